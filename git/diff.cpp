// A commit's patch for a person to read (git/diff.hpp): libgit2 compares the
// trees and finds renames; this file keeps to the bounds.
#include "git/diff.hpp"
#include "git/handle.hpp"
#include "git/repository.hpp"

#include <algorithm>
#include <cstring>

namespace editgit {

using namespace detail;

namespace {

using PatchPtr = Handle<git_patch, git_patch_free>;

FileStatus status_of(git_delta_t s) {
  switch (s) {
    case GIT_DELTA_ADDED:
    case GIT_DELTA_COPIED: return FileStatus::added;
    case GIT_DELTA_DELETED: return FileStatus::deleted;
    case GIT_DELTA_RENAMED: return FileStatus::renamed;
    default: return FileStatus::modified;  // modified, a type or mode change
  }
}

std::string hunk_header(const git_diff_hunk& h) {
  return "@@ -" + std::to_string(h.old_start) + "," + std::to_string(h.old_lines) + " +" +
         std::to_string(h.new_start) + "," + std::to_string(h.new_lines) + " @@";
}

// Bytes a line costs beyond its text in the show op's JSON
// ({"t":"+","old":1234,"new":1234,"text":""}): counted too, so that
// max_bytes bounds the reply, not only the text.
constexpr std::size_t line_overhead = 48;

// What is left of the bounds while the files are read.
struct Budget {
  const DiffBounds& bounds;
  std::size_t bytes = 0;  // line text taken so far
  bool cut = false;       // something was left out because of max_bytes
  bool full() {
    if (bytes >= bounds.max_bytes) cut = true;
    return cut;
  }
};

// The hunks of one file's patch, as far as the bounds let them.
Result<void> read_hunks(git_patch* patch, FilePatch& file, Budget& budget) {
  std::size_t taken = 0;
  for (std::size_t h = 0; h < git_patch_num_hunks(patch); ++h) {
    const git_diff_hunk* hunk = nullptr;
    std::size_t count = 0;
    if (int rc = git_patch_get_hunk(&hunk, &count, patch, h); rc < 0) return failure(rc, "cannot read a hunk");
    DiffHunk out{hunk_header(*hunk), {}};
    for (std::size_t l = 0; l < count; ++l) {
      const git_diff_line* line = nullptr;
      if (int rc = git_patch_get_line_in_hunk(&line, patch, h, l); rc < 0) return failure(rc, "cannot read a line");
      const char t = line->origin;
      if (t != ' ' && t != '+' && t != '-') continue;  // "\ No newline at end of file"
      std::string_view text(line->content, line->content_len);
      if (text.ends_with('\n')) text.remove_suffix(1);
      if (taken >= budget.bounds.max_lines_per_file || budget.full()) {
        ++file.lines_cut;
        continue;
      }
      DiffLine dl;
      dl.type = t;
      if (line->old_lineno > 0) dl.old_line = static_cast<std::size_t>(line->old_lineno);
      if (line->new_lineno > 0) dl.new_line = static_cast<std::size_t>(line->new_lineno);
      dl.text = text;
      budget.bytes += text.size() + line_overhead;
      out.lines.push_back(std::move(dl));
      ++taken;
    }
    if (!out.lines.empty()) file.hunks.push_back(std::move(out));
  }
  return {};
}

}  // namespace

std::string_view to_string(FileStatus s) {
  switch (s) {
    case FileStatus::added: return "added";
    case FileStatus::modified: return "modified";
    case FileStatus::deleted: return "deleted";
    case FileStatus::renamed: return "renamed";
  }
  return "modified";
}

Result<CommitPatch> Repository::patch(const std::string& id, const DiffBounds& bounds) const {
  auto compared = diff_with_parent(repo_, id, prefix_, static_cast<git_off_t>(bounds.max_file_bytes));
  if (!compared) return compared.error();
  DiffPtr diff = std::move(*compared);
  git_diff* d = diff.get();
  git_diff_find_options find = GIT_DIFF_FIND_OPTIONS_INIT;
  find.flags = GIT_DIFF_FIND_RENAMES;
  if (int rc = git_diff_find_similar(d, &find); rc < 0) return failure(rc, "cannot find the renames of " + id);

  CommitPatch out;
  Budget budget{bounds};
  const std::size_t deltas = git_diff_num_deltas(d);
  for (std::size_t i = 0; i < deltas; ++i) {
    if (out.files.size() >= bounds.max_files || budget.full()) {
      out.files_cut = deltas - i;
      break;
    }
    git_patch* p = nullptr;
    if (int rc = git_patch_from_diff(&p, d, i); rc < 0) return failure(rc, "cannot compare a file of " + id);
    PatchPtr patch(p);
    const git_diff_delta* delta = git_patch_get_delta(p);
    FilePatch file;
    file.status = status_of(delta->status);
    const char* path = delta->new_file.path ? delta->new_file.path : delta->old_file.path;
    file.path = std::string(path).substr(prefix_.size());
    if (file.status != FileStatus::added && delta->old_file.path)
      file.old_path = std::string(delta->old_file.path + std::min(prefix_.size(), std::strlen(delta->old_file.path)));
    file.binary = (delta->flags & GIT_DIFF_FLAG_BINARY) != 0;
    if (!file.binary)
      if (auto read = read_hunks(p, file, budget); !read) return read.error();
    out.files.push_back(std::move(file));
  }
  out.bytes_cut = budget.cut;
  git_error_clear();
  return out;
}

}  // namespace editgit
