// One chat log file and the gateway's changes to it. Every change is an
// anchored edit: the lines the gateway expects are found in the file and
// replaced. While the file is still what the gateway last wrote, only its
// changed tail is written, in place (editproto::Workspace::write_tail, with
// a TailJournal record first); otherwise the edit engine (the same one
// agents use) finds those lines in the file as it is now, wherever they
// moved, and replaces the file whole; if they are gone, the edit fails and
// says why. Both ways give the same bytes. The gateway holds a log's tail,
// not its text (keep_bytes): memory stays flat whatever the logs' length.
#pragma once

#include "editproto/workspace.hpp"
#include "repl/error.hpp"
#include "repl/format.hpp"
#include "repl/tail_journal.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace repl {

// The first `bytes` bytes of a file, by their checksum: a long log's text
// is its last bytes, after a head read from the file when needed.
struct Head {
  std::size_t bytes = 0;
  std::uint64_t sum = 0;
};

// A file the gateway changed, for the committer. Texts are shared, not
// copied: a log's tail is kept once however many changes refer to it.
// A text with a head (`bytes` > 0) is the file's first bytes, as they still
// are on disk (the gateway writes in place only after them), then the text.
using Text = std::shared_ptr<const std::string>;
struct FileChange {
  FileChange() = default;
  FileChange(std::string p, Text b, Text a) : path(std::move(p)), before(std::move(b)), after(std::move(a)) {}
  std::string path;
  Text before;  // null: the file is new
  Text after;
  Head before_head, after_head;
  const editproto::Workspace* ws = nullptr;  // where a head is read; outlives the commit
  // Set when a head was not what it was: the log's next write reads the file.
  std::shared_ptr<std::atomic<bool>> stale;
};

// A text of `change` whole: its head read from the file (nullopt when those
// bytes are not what they were: someone else changed them, and the log is
// told), then the text. On any thread.
std::optional<std::string> whole_text(const FileChange& change, const Head& head, const std::string& text);

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

  // The text as the gateway last wrote or accepted it (what is new beyond
  // it was written by someone else): its size, and its last bytes (at least
  // `keep_bytes` once it is that long, from a line's start); the bytes before
  // are known by their checksum only, so a log costs its tail in memory.
  static constexpr std::size_t keep_bytes = 4u << 10;
  std::size_t size() const { return at_ + tail_->size(); }
  const std::string& tail() const { return *tail_; }
  // Whether `text` is that text; the text rebuilt on `found`'s first bytes
  // (nullopt when they are not the known ones).
  bool is_known(std::string_view text) const;
  std::optional<std::string> known_in(std::string_view found) const;
  void set_known(std::string text);

  // Someone else's change the gateway's own edit was applied on top of (the
  // edit engine re-reads the file): what the gateway knew (nullopt when
  // that was changed above its tail), and what it found. The REPL reads what
  // was added in it, as if it had seen the save.
  struct Unseen {
    std::optional<std::string> known;
    std::string found;
  };
  std::optional<Unseen> take_unseen() { return std::exchange(unseen_, std::nullopt); }

  // Called after each write the gateway makes to the file (the dashboard
  // follows the log through it).
  std::function<void()> on_written;

 private:
  Result<FileChange> apply(const Lines& old_lines, const Lines& new_lines);
  // The in-place way: the tail with bytes [from, to) of it made `with`.
  // nullopt when it does not apply (the file changed, someone has it open,
  // ...): the caller takes the engine's way.
  std::optional<FileChange> write_in_place(std::size_t from, std::size_t to, std::string_view with);
  void wrote(Text tail);
  // Keeps the tail within twice keep_bytes: what goes joins the head.
  void slide();
  Head head() const;

  const editproto::Workspace& ws_;
  std::string path_;
  TailJournal* journal_;
  std::size_t at_ = 0;  // where tail_ starts in the file
  Text tail_ = std::make_shared<const std::string>();
  std::uint64_t head_sum_ = 0;  // the checksum's state over the bytes before at_
  bool known_plain_ = true;  // LF lines, no CR, no byte-order mark, ends in LF (or empty)
  // Set by a commit that found the head changed (a save the REPL has not
  // read yet): the next write takes the engine's way, which reads the file.
  std::shared_ptr<std::atomic<bool>> stale_ = std::make_shared<std::atomic<bool>>(false);
  std::optional<Unseen> unseen_;
  std::optional<Lines> later_;  // create_later's lines, not written yet
  // The first write of a log made later: the file first, then `write`.
  Result<FileChange> created_with(const std::function<Result<FileChange>()>& write);
};

}  // namespace repl
