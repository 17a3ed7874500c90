// What one commit changed, hunk by hunk, for a person to read (the show op):
// against its first parent, or the empty tree for a root commit; renames
// found; binary files named but never dumped; every part bounded.
#pragma once

#include "git/error.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace editgit {

struct DiffBounds {
  std::size_t max_files = 200;             // files listed; the rest only counted
  std::size_t max_lines_per_file = 5000;   // lines listed per file; the rest only counted
  // Line text in all, each line counted with its JSON's overhead (48
  // bytes); past it no more lines or files.
  std::size_t max_bytes = 4 * 1024 * 1024;
  // A file larger than this on either side is not compared (libgit2 takes it
  // for binary): comparing it would cost more than any reader would see.
  std::size_t max_file_bytes = 16 * 1024 * 1024;
};

struct DiffLine {
  char type = ' ';  // ' ' context, '+' added, '-' removed
  std::optional<std::size_t> old_line;  // 1-based; nullopt for an added line
  std::optional<std::size_t> new_line;  // 1-based; nullopt for a removed line
  std::string text;  // the line's bytes as stored, without its "\n" (may be invalid UTF-8)
};

struct DiffHunk {
  std::string header;  // "@@ -a,b +c,d @@"
  std::vector<DiffLine> lines;
};

enum class FileStatus { added, modified, deleted, renamed };
std::string_view to_string(FileStatus s);

struct FilePatch {
  std::string path;      // relative to the workspace root; the new path of a rename
  std::string old_path;  // the path before ("" when added)
  FileStatus status = FileStatus::modified;
  bool binary = false;   // hunks empty
  std::vector<DiffHunk> hunks;
  std::size_t lines_cut = 0;  // lines left out by a bound
};

struct CommitPatch {
  std::vector<FilePatch> files;
  std::size_t files_cut = 0;  // files left out by a bound
  bool bytes_cut = false;     // max_bytes was reached
};

}  // namespace editgit
