// The workspace root and every file access under it. Paths are resolved one
// component at a time with openat(O_NOFOLLOW), so a symlink is never followed
// out of the root; links that stay inside are resolved by hand.
#pragma once

#include "editproto/reason.hpp"

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace editproto {

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  int release() { int f = fd_; fd_ = -1; return f; }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// Identity and version of a file on disk, to notice a change under us.
struct Stamp {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  long long mtime_ns = 0;
  long long ctime_ns = 0;
  mode_t mode = 0;
  bool operator==(const Stamp&) const = default;
};

struct FileContent {
  Stamp stamp;
  std::string bytes;  // empty when !stamp.exists
};

class Workspace {
 public:
  static Outcome<Workspace> open(const std::string& root);

  const std::string& root() const { return root_; }

  // Normalises a path as the block wrote it: Windows separators become '/',
  // "." and empty components go; refuses absolute paths, NUL bytes, ".."
  // that leaves the root (path_escape) and anything under .git (protected_path).
  Outcome<std::string> normalize(std::string_view raw) const;

  // The real path of a normalised one inside the root, following symlinks
  // that stay inside (path_escape when one leads out).
  Outcome<std::string> resolve(const std::string& rel) const;

  Outcome<Stamp> stat(const std::string& real_rel) const;
  Outcome<FileContent> read(const std::string& real_rel, std::size_t max_bytes) const;
  // The file opened for reading, for a reader that takes only part of it
  // (pread from an offset); an empty fd when there is no such file.
  struct Opened {
    Fd fd;
    Stamp stamp;
  };
  Outcome<Opened> open_read(const std::string& real_rel) const;
  // The file's first out.size() bytes into `out`: false when the file is
  // missing, shorter, or cannot be read (the descriptor is open for this
  // read alone).
  bool read_start(const std::string& real_rel, std::span<char> out) const;

  // A folder opened for listing (O_RDONLY | O_DIRECTORY), reached as every
  // path is: real_rel "" is the root; file_not_found when there is no such
  // folder or the path names something else.
  Outcome<Fd> open_folder(const std::string& real_rel) const;

  // A path component whose folder belongs to tools, not to agents (.git, in
  // any case): normalize and resolve refuse paths through it
  // (protected_path), and a listing leaves it out.
  static bool protected_name(std::string_view component);

  // Writes through a temp file in the same folder and a rename. An existing
  // file keeps its mode; a new one gets parents created and default mode.
  // The bytes are the concatenation of `chunks`.
  Outcome<Stamp> write_atomic(const std::string& real_rel, std::span<const std::string_view> chunks) const;

  // Replaces the file by `chunks` only if it is still what the caller based
  // them on: `seen` is its stamp when last read or written (!exists: there
  // was no file) and `same` tells whether bytes found there are that content.
  // The new file is swapped in with renameat2(RENAME_EXCHANGE) and the file it
  // replaced is checked once more, through a descriptor kept on it since the
  // check before the swap: a save that landed in between (by rename or in
  // place) is swapped back, so it is never overwritten. When the file is not
  // what the caller expected, nothing is written and `changed` holds what is
  // there now (to rebase on and try again).
  struct Replaced {
    Stamp stamp;                          // the file written (when !changed)
    std::optional<FileContent> changed;   // what the file holds instead
  };
  Outcome<Replaced> replace(const std::string& real_rel, std::span<const std::string_view> chunks, const Stamp& seen,
                            const std::function<bool(std::string_view)>& same, std::size_t max_bytes) const;

  // Rewrites the file in place from byte `offset` on: `old_tail` there (to
  // the end of the file) becomes `new_tail`. Only while nobody else has the
  // file open: a write lease (F_SETLEASE) is taken first, so an open by any
  // other process waits until the write is done and a reader never sees it
  // half made; then the file must still end in exactly `old_tail` at
  // `offset` (its size and those bytes, read back), or nothing is written.
  // `before_write` runs between that check and the write (a journal records
  // it there). The bytes before `offset` are neither read nor written.
  enum class Tail {
    written,      // `stamp` is the file as written
    changed,      // the file is not what the caller expected: nothing written
    unavailable,  // someone has it open, or no leases here: nothing written
  };
  struct TailWrite {
    Tail outcome = Tail::unavailable;
    Stamp stamp;
  };
  Outcome<TailWrite> write_tail(const std::string& real_rel, std::size_t offset, std::string_view old_tail,
                                std::string_view new_tail, const std::function<void()>& before_write = {}) const;

  // Removes temp files of this writer (".<name>.editgate-<pid>-<n>") that a
  // process no longer running left in the folder of `real_rel`, after a crash.
  void clean_leftovers(const std::string& real_rel) const;

  // Removes a regular file (undo of a file an edit created). A missing file
  // is not an error.
  Outcome<void> remove(const std::string& real_rel) const;

 private:
  struct Located {
    Fd dir;
    std::string name;
    std::string real_rel;
  };
  Outcome<Located> locate(const std::string& rel, bool create_parents) const;

  std::string root_;       // as given
  std::string root_real_;  // realpath of the root
  std::shared_ptr<Fd> root_fd_;
  mode_t umask_ = 022;
};

}  // namespace editproto
