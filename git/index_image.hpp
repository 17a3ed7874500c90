// Private to git/: the index file's bytes (format versions 2, 3 and 4), read
// only as far as finding an entry needs, and a changed copy written by
// splicing: the entries that change are encoded anew, every other entry and
// extension is copied as it is, and the cache-tree extension (TREE) is kept
// with only the folders above a changed path invalidated. So a commit of one
// file no longer decodes and re-encodes every entry of a large index, as
// libgit2's git_index_write did; what is left grows with the file's size is a
// copy and git's SHA-1 trailer over it (which git fsck and libgit2 check).
#pragma once

#include "git/error.hpp"

#include <git2.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace editgit::detail {

// One change to the index: `entry` replaces every stage of `path` (as `git
// add` does), or, when nullopt, the path's stage-0 entry is removed.
struct IndexEdit {
  std::string path;
  std::optional<git_index_entry> entry;  // its `path` is not read
};

class IndexImage {
 public:
  struct Entry {
    std::uint32_t offset = 0;  // in bytes(); entries are contiguous
    std::uint32_t size = 0;
    std::string_view path;     // into bytes() (versions 2, 3) or into the decoded paths (version 4)
    std::uint32_t mode = 0;
    int stage = 0;
  };

  // An index with no entries: what git writes for an empty repository.
  IndexImage();
  // Moves keep the entries' paths valid: they point into heap buffers, which
  // a move hands over (both strings are kept longer than any short-string buffer).
  IndexImage(IndexImage&&) = default;
  IndexImage& operator=(IndexImage&&) = default;
  IndexImage(const IndexImage&) = delete;
  IndexImage& operator=(const IndexImage&) = delete;
  // Error::internal naming what is wrong when the bytes are not an index this
  // code can change safely: a version other than 2-4, truncated entries, or
  // a mandatory extension it does not know (split index, sparse index), which
  // libgit2 refuses as well. The checksum is not verified, as git does not.
  static Result<IndexImage> parse(std::string bytes);

  const std::string& bytes() const { return bytes_; }
  std::string take_bytes() && {
    entries_.clear();
    return std::move(bytes_);
  }
  // The stage-0 entry of `path`, or null.
  const Entry* find(std::string_view path) const;
  const std::vector<Entry>& entries() const { return entries_; }

  // The index with `edits` applied, trailer included, into `out` (its
  // capacity is reused). Paths must be in git's form (relative, '/').
  void write_edited(const std::vector<IndexEdit>& edits, std::string& out) const;

 private:
  std::string bytes_;
  unsigned version_ = 2;
  std::size_t entries_end_ = 12;  // where the extensions begin
  std::vector<Entry> entries_;    // sorted as in the file: by path, then stage
  std::string v4_paths_;          // version 4: the decoded paths, back to back
  struct Extension {
    std::uint32_t offset = 0, size = 0;  // the header's offset; size counts the payload only
    char sig[4]{};
  };
  std::vector<Extension> extensions_;
};

}  // namespace editgit::detail
