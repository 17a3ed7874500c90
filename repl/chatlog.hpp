// One chat log file and the gateway's changes to it. Every change is an
// anchored edit applied by the edit engine (the same one agents use): the
// lines the gateway expects are found in the file as it is now, wherever
// they moved, and replaced; if they are gone, the edit fails and says why.
#pragma once

#include "editproto/workspace.hpp"
#include "repl/error.hpp"
#include "repl/format.hpp"

#include <functional>
#include <optional>
#include <string>
#include <utility>

namespace repl {

// A file the gateway changed, for the committer.
struct FileChange {
  std::string path;
  std::optional<std::string> before;  // nullopt: the file is new
  std::string after;
};

class ChatLog {
 public:
  ChatLog(const editproto::Workspace& ws, std::string path) : ws_(ws), path_(std::move(path)) {}

  const std::string& path() const { return path_; }

  // The file as it is now; nullopt when it does not exist.
  Result<std::optional<std::string>> read() const;

  // Creates the file with `lines` (fails when it exists).
  Result<FileChange> create(const Lines& lines);
  // Replaces the lines `old_lines` (their last occurrence) with `new_lines`.
  // `blank_after`: `new_lines` end a finished reply, which one blank line
  // separates from whatever follows it (commentary, a queued request).
  Result<FileChange> replace(const Lines& old_lines, const Lines& new_lines, bool blank_after = false);
  // Adds `lines` at the end of the file, anchored on its last lines.
  Result<FileChange> append(const Lines& lines);

  // The text as the gateway last wrote or accepted it: what is new beyond
  // it was written by someone else.
  const std::string& known() const { return known_; }
  void set_known(std::string text) { known_ = std::move(text); }

  // Someone else's change the gateway's own edit was applied on top of (the
  // edit engine re-reads the file): what the gateway knew, and what it found.
  // The REPL reads what was added in it, as if it had seen the save.
  struct Unseen {
    std::string known, found;
  };
  std::optional<Unseen> take_unseen() { return std::exchange(unseen_, std::nullopt); }

  // Called after each write the gateway makes to the file (the dashboard
  // follows the log through it).
  std::function<void()> on_written;

 private:
  Result<FileChange> apply(const Lines& old_lines, const Lines& new_lines);

  const editproto::Workspace& ws_;
  std::string path_;
  std::string known_;
  std::optional<Unseen> unseen_;
};

}  // namespace repl
