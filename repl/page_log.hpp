// A page's log as the REPL writes it: the chat log, its events log, the
// lines of the running job in it, a draft's tail, and the changes not
// committed yet. The scheduler, the page messages, the intake's glue and
// the status files share one by reference (Repl::Page::log); the writes of
// the transcript's blocks (transcript.hpp) into the files are its own.
#pragma once

#include "editproto/workspace.hpp"
#include "repl/chatlog.hpp"
#include "repl/format.hpp"
#include "repl/repl.hpp"
#include "repl/tail_journal.hpp"

#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace repl {

class PageLog {
 public:
  // debug/<stem>.md and debug/<stem>.events.log. `before_write` is called
  // with the log's path before each write, so another writer's uncommitted
  // changes there are committed first. Values past `inline_result_bytes`
  // go to a file of their own (render_result).
  PageLog(const editproto::Workspace& ws, const std::string& stem, TailJournal* journal,
          std::function<void(const std::string& path)> before_write, std::size_t inline_result_bytes);

  ChatLog chat;
  Lines active;  // the running job's announcement, background text and placeholder in the log
  Lines draft;   // appended text with a fence still open, the footer moved below it

  const std::string& path() const { return chat.path(); }
  const std::string& events_path() const { return events_path_; }

  // Tells the workspace's other writers the log is about to be written.
  void will_write() const;
  // A change made, committed with the page's next commit.
  void keep(FileChange change) { uncommitted_.push_back(std::move(change)); }
  void keep(std::vector<FileChange> changes);
  // The changes not committed yet, taken out for a commit.
  std::vector<FileChange> take_uncommitted() {
    noted_.clear();
    return std::exchange(uncommitted_, {});
  }
  bool has_uncommitted() const { return !uncommitted_.empty(); }
  // Nothing waits to be committed and no draft is open.
  bool settled() const { return uncommitted_.empty() && draft.empty(); }

  // Text of the gateway's own above the footer (a reconnect, background
  // events, a late reply), or at the end while a job runs. `what` says what
  // happened ("page tab-1 reconnected (…)"): the subject of the commit that
  // takes it when that commit has none of its own (noted()).
  void note(const Lines& lines, const std::string& what = "");
  // What the notes not committed yet say, joined by "; "; "" when none said.
  const std::string& noted() const { return noted_; }
  // The footer at the log's end, unless a job runs (`running`) or it is there.
  void place_footer(bool running);
  // `events` appended to the events log; the change, or none when it could
  // not be read or written (kept by the caller, with what it commits).
  std::vector<FileChange> log_events(const std::vector<Event>& events);
  // A result as its reply shows it: the value, its archived head (the file
  // made joins `extra`), or the error.
  Lines render_result(std::uint64_t job, const boost::json::object& msg, std::vector<FileChange>& extra);

 private:
  const editproto::Workspace& ws_;
  std::string stem_, events_path_;
  std::function<void(const std::string&)> before_write_;
  std::size_t inline_result_bytes_;
  std::vector<FileChange> uncommitted_;
  std::string noted_;
};

}  // namespace repl
