// One chat log file and the gateway's changes to it. Every change is an
// anchored edit: the lines the gateway expects are found in the file and
// replaced. While the file is still what the gateway last wrote, only its
// changed tail is written, in place (editproto::Workspace::write_tail, with
// a TailJournal record first); otherwise the edit engine (the same one
// agents use) finds those lines in the file as it is now, wherever they
// moved, and replaces the file whole; if they are gone, the edit fails and
// says why. Both ways give the same bytes.
#pragma once

#include "editproto/workspace.hpp"
#include "repl/error.hpp"
#include "repl/format.hpp"
#include "repl/tail_journal.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace repl {

// A file the gateway changed, for the committer. Texts are shared, not
// copied: a log's text is kept once however many changes refer to it.
using Text = std::shared_ptr<const std::string>;
struct FileChange {
  std::string path;
  Text before;  // null: the file is new
  Text after;
};

class ChatLog {
 public:
  // `journal`: where the in-place writes are recorded first; null: every
  // write replaces the file whole.
  ChatLog(const editproto::Workspace& ws, std::string path, TailJournal* journal = nullptr)
      : ws_(ws), path_(std::move(path)), journal_(journal) {}

  const std::string& path() const { return path_; }

  // The file as it is now; nullopt when it does not exist.
  Result<std::optional<std::string>> read() const;

  // Creates the file with `lines` (fails when it exists).
  Result<FileChange> create(const Lines& lines);
  // The file will hold `lines`, written at the first replace or append, not
  // now: a realm that runs nothing leaves no log. known() says them at once;
  // the first write's FileChange holds the whole new file (no `before`).
  void create_later(const Lines& lines);
  // Replaces the lines `old_lines` (their last occurrence) with `new_lines`.
  // `blank_after`: `new_lines` end a finished reply, which one blank line
  // separates from whatever follows it (commentary, a queued request).
  Result<FileChange> replace(const Lines& old_lines, const Lines& new_lines, bool blank_after = false);
  // Adds `lines` at the end of the file, anchored on its last lines.
  Result<FileChange> append(const Lines& lines);

  // The text as the gateway last wrote or accepted it: what is new beyond
  // it was written by someone else.
  const std::string& known() const { return *known_; }
  void set_known(std::string text);

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
  // The in-place way: `text` is known_ with bytes [from, to) made `with`.
  // nullopt when it does not apply (the file changed, someone has it open,
  // ...): the caller takes the engine's way.
  std::optional<FileChange> write_in_place(std::size_t from, std::size_t to, std::string_view with);
  void wrote(Text after);

  const editproto::Workspace& ws_;
  std::string path_;
  TailJournal* journal_;
  Text known_ = std::make_shared<const std::string>();
  bool known_plain_ = true;  // LF lines, no CR, no byte-order mark, ends in LF (or empty)
  std::optional<Unseen> unseen_;
  std::optional<Lines> later_;  // create_later's lines, not written yet
  // The first write of a log made later: the file first, then `write`.
  Result<FileChange> created_with(const std::function<Result<FileChange>()>& write);
};

}  // namespace repl
