// The live pages and their jobs. Pages connect (a browser tab through the
// page door, the built-in Node page through a pipe) and get a chat log;
// agents send code by the eval op or by an edit that appends a request to
// a log. Either way the job is the same: the request written into the log,
// run in the page, one job at a time per page, the reply written under it
// and both committed on the workspace's one commit queue (repl/committer.hpp).
//
// Everything here runs on one thread (the worker's): the transports post
// page messages to it, and Listener callbacks are called on it.
#pragma once

#include "editproto/workspace.hpp"
#include "repl/admission.hpp"
#include "repl/agent_files.hpp"
#include "repl/chatlog.hpp"
#include "repl/committer.hpp"
#include "repl/error.hpp"
#include "repl/format.hpp"
#include "repl/log_rendering.hpp"
#include "repl/modules.hpp"
#include "repl/page_keys.hpp"
#include "repl/provenance.hpp"
#include "repl/registry_file.hpp"
#include "repl/status_files.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace repl {

struct Appended;
struct Accepted;

// A page's connection, as the REPL sees it. May be called from the REPL's
// thread only; implementations post to their own strand.
class PageLink {
 public:
  virtual ~PageLink() = default;
  virtual void send(std::string message) = 0;
  virtual void close() = 0;
  // Stops job's synchronous code the hard way, where the page can (Node:
  // its own thread sends SIGINT while that job's code runs).
  virtual bool interrupt_hard(std::uint64_t /*job*/) { return false; }
  // Starts the page again, its globals gone (Node: the process is killed
  // and restarted, which also ends code stuck where nothing else reaches;
  // a realm: a fresh context, which does not); false where it cannot be.
  virtual bool restart() { return false; }
};

struct Hello {
  std::string id;      // the instance id the page kept; "" for a new page
  std::string secret;  // the secret of that id, from its first welcome
  std::string name;
  std::string url;
  std::string title;
  std::string kind;  // browser, node: set by the transport, never by the page
  std::string origin;
  std::string user_agent;  // the page's own word: node/<version>, a browser's navigator.userAgent
};

// How an agent hears about its eval: `out` while it runs (console output,
// need-input), `done` once, with the final answer. `out` hears the events the
// job keeps (Options::max_events_kept); `done` counts the rest in
// "events_dropped".
struct Listener {
  std::function<void(boost::json::object)> out;
  std::function<void(Answer)> done;
};

struct EvalRequest {
  std::string page;   // the log's page name ("node-1a2b") or its instance id
  std::string agent = "agent";
  std::string code;
  std::chrono::milliseconds timeout{0};  // 0: the default
  bool silent = false;                   // tooling: not written to the log
  // How the code's alert, confirm and prompt are answered in a browser tab
  // (at once, never shown): accepted, or dismissed (the default); what an
  // accepted prompt returns (default: the prompt's own default value). A
  // Node page has no dialogs and ignores both.
  bool accept_dialogs = false;
  std::optional<std::string> prompt_text;
  // load-file: the code is this workspace file; once it ran without an
  // error the page lists it among its modules.
  std::optional<LoadedModule> module;
  std::uint64_t job = 0;                 // its number, taken from next_sequence(); 0: numbered here
};

// What stdin hands a page's waiting prompt: a line of text, or the end of
// input (the prompt resolves to null).
struct Input {
  std::string text;
  bool eof = false;
};

struct Options {
  std::chrono::milliseconds timeout{60'000};
  std::chrono::milliseconds placeholder_every{5'000};
  std::size_t inline_result_bytes = 4096;  // larger results go to debug-archive/
  std::size_t max_queued = 1000;           // jobs waiting for one page
  // New page instances per origin: a burst of this many, then one per
  // new_page_every (each makes a log and a commit).
  std::size_t new_page_burst = 10;
  std::chrono::milliseconds new_page_every{2'000};
  // And at most this many in one gateway run (too_many_pages past it):
  // coming back to an instance with its secret is not counted.
  std::size_t max_pages_per_origin = 64;
  // Pages kept in memory. Past it, disconnected pages with no work left are
  // forgotten, longest gone first; their log and key stay on disk, so such a
  // page comes back with its secret as after a gateway restart.
  std::size_t max_pages_kept = 256;
  // Disconnected pages debug.md lists, the most recently seen first; the
  // rest are counted in one line.
  std::size_t registry_disconnected = 10;
  std::string keys_file;  // where PageKeys keeps its hashes; "" in memory
  // Where the logs' in-place writes are recorded first (repl/tail_journal.hpp);
  // "": every log write replaces the file whole.
  std::string tail_journal;
  // A job's console output, kept for its reply and its events log and
  // passed to its agent as it comes: the first 1000 events and 1 MiB of
  // their text; beyond that only counted (the final reply's events_dropped).
  // The same bound holds for the output between jobs.
  std::size_t max_events_kept = 1000;
  std::size_t max_event_bytes_kept = 1u << 20;
};

class Repl {
 public:
  Repl(const editproto::Workspace& ws, Committer& committer, boost::asio::any_io_executor ex, Options options);
  ~Repl();
  Repl(const Repl&) = delete;
  Repl& operator=(const Repl&) = delete;

  // The page door. connect() answers the hello (welcome or refused) through
  // the link itself; the instance id it returns names the page afterwards,
  // and the secret (a new instance's only) takes it back later.
  struct Welcome {
    std::string id, secret;
  };
  Result<Welcome> connect(const Hello& hello, std::shared_ptr<PageLink> link);
  void disconnect(const std::string& id, const PageLink* link);
  void from_page(const std::string& id, std::string_view message);

  // The agents' side. A page is named by its full name, its instance id, a
  // bare name one live page has ("node"), or "" for the default page: the
  // built-in Node page, else the only live page.
  void eval(EvalRequest request, Listener listener);
  // The full name of the page `name_or_id` names now.
  Result<std::string> page_name(const std::string& name_or_id);
  boost::json::array pages() const;
  void interrupt(const std::string& page, std::function<void(Answer)> done);
  void complete(const std::string& page, std::string code, std::function<void(Answer)> done);
  // The files load-file ran in a page ({"modules": [...]}, and how many the
  // bound made it forget), and forgetting one: false when the page has
  // none by that name.
  Result<boost::json::object> modules(const std::string& page);
  Result<bool> unload(const std::string& page, const std::string& module);
  // The file a loaded module came from; nullopt when the page has none by that name.
  Result<std::optional<std::string>> module_path(const std::string& page, const std::string& module);

  // The pages as the concurrent things of the gateway (page_actors.cpp).
  // The live pages: name, kind, URL (a browser's) or log (Node's), when
  // each connected.
  boost::json::array actors() const;
  // One page's state: its queue, the job it runs, its recent events.
  Result<boost::json::object> inspect(const std::string& page);
  // The newest `limit` events of the page's events log that end before
  // byte `before` (default: its end), read backwards, never whole
  // (events_log.cpp): {"page", "events_log", "events": [{source, text,
  // time}...] oldest first, "next_before": the cursor for older ones or
  // null}, bounded (events_log.hpp); bad_request when `before` is past the
  // log's end.
  Result<boost::json::object> events(const std::string& page, std::optional<std::uint64_t> before, std::size_t limit);
  // The entries of the page's chat log that end before byte `before`
  // (default: its end), read from a window of at most `window_bytes`
  // (log_render.cpp), oldest first, not yet rendered (log_rendering.hpp:
  // off this thread); bad_request when `before` is past the log's end.
  Result<LogTail> log_tail(const std::string& page, std::optional<std::uint64_t> before, std::size_t window_bytes);
  // Stops a live page, with a note in its log: the Node page's process is
  // killed and started again by its transport, a tab's socket is dropped
  // (its adapter connects again). Its running job fails context_destroyed.
  Result<boost::json::object> kill(const std::string& page);
  // Interrupts job `job` (numbered by the door, EvalRequest::job) in
  // whichever page it runs; a queued one is taken out of its queue. When no
  // job has that number (0: the door knows none): "idle" when `page` runs
  // nothing, else not_found with the "result" "interrupt-id-mismatch",
  // naming the job it runs.
  void interrupt_job(const std::string& page, std::uint64_t job, std::function<void(Answer)> done);
  // info and docs: what the page can tell about `symbol` (a dotted path of
  // identifiers, checked by the caller), as {"info": {...}}; no job, so
  // nothing is logged or committed.
  void lookup(const std::string& page, std::string_view what, std::string symbol, std::function<void(Answer)> done);
  // stdin: to the prompt that `page`'s running job waits on, or that job
  // `job` waits on wherever it runs. not_found when none waits.
  Result<void> input(const std::string& page, Input in);
  Result<void> input(std::uint64_t job, Input in);
  // The globals evaluations made in the page (names and tagged values),
  // and removing them: {"value":"ok","kept":[names it could not delete]}.
  void bindings(const std::string& page, std::function<void(Answer)> done);
  void clear(const std::string& page, std::function<void(Answer)> done);

  // The edit path: an agent's edit wrote `path`. When it is a chat log, the
  // requests it appended below the footer are dispatched. Here and below, a
  // request that came with git (part of a commit) does not run: a note under
  // it says so (repl/provenance.hpp).
  bool is_log(const std::string& path) const;
  void written(const std::string& path, const std::string& agent);
  // The file watcher: `path` was saved by someone else (an editor, a
  // file-writing agent). Requests appended below the footer run, attributed
  // to `agent` unless their header names someone; running and queued
  // requests that were edited are handled by the chat-log recovery rules.
  void saved(const std::string& path);
  // At start: jobs a stopped gateway left executing in the logs under
  // debug/ are marked interrupted there, and committed.
  void mark_interrupted();
  // Called before the REPL writes a log, so another writer with uncommitted
  // changes in it commits them first (the gateway's edit runs), and each
  // commit holds one writer's work.
  std::function<void(const std::string& path)> before_write;
  // What a dashboard follows, told on the REPL's executor: the pages
  // changed (one came or went, a job started or ended, a queue moved), and
  // the gateway wrote page `page`'s log. Whoever listens coalesces them.
  std::function<void()> pages_changed;
  std::function<void(const std::string& page, const std::string& log)> log_changed;
  // A page's hello was taken (its instance id): the gateway's own browser
  // waits for its pages' (services/owned_pages.hpp).
  std::function<void(const std::string& id)> page_connected;

  // Pages the gateway's own browser opens (page_owned.cpp). An instance is
  // reserved before its page exists, so the browser hands the page its id
  // and secret and every document it loads comes back to one log.
  struct Reserved {
    std::string id, secret, stem;
  };
  Reserved reserve_owned(const std::string& name);
  // Stops what holds an owned page's thread and loads its document again
  // (the browser's, set by services/owned_pages.cpp); false when it cannot.
  std::function<bool(const std::string& id)> restart_owned;
  // The page is no longer the browser's: `why` noted in its log (a page
  // that never connected leaves nothing).
  void release_owned(const std::string& id, const std::string& why);
  // A line in an owned page's log, committed: a crash, a restart.
  void note_owned(const std::string& id, const std::string& text, const std::string& summary);
  // A screenshot of an owned page: saved as debug/<stem>.screenshots/<n>.png,
  // linked from a note in its log (after the running job, when one runs) and
  // committed with it. Its path; too_many_screenshots past the bound.
  Result<std::string> add_screenshot(const std::string& id, std::string png, const std::string& agent,
                                     const std::string& what);
  static constexpr unsigned max_screenshots = 1000;  // per page and gateway run

  // Where the pages' status, markers and chat history go; job
  // numbers continue after the highest marker's. Before any page connects.
  void set_files(AgentFiles* files);
  // A number from the jobs' sequence (the inbox's markers use it too).
  std::uint64_t next_sequence() { return next_job_++; }

  // Fails what is running and queued (shutting_down) and closes the links.
  void shutdown();

  struct Page;
  struct Job;

 private:
  // Each group is one of the REPL's parts, in the file named beside it; all
  // run on the REPL's executor and share the state of page_state.hpp.

  // The page registry (page_registry.cpp): pages by instance id, found by
  // name, admitted per origin (admission_), forgotten past a bound; debug.md.
  //
  // A page by its full name, its instance id, or a bare name ("node") that
  // one live page has: Error::not_found naming the pages there are,
  // Error::ambiguous naming the live pages that have the bare name.
  Result<Page*> find(const std::string& name_or_id);
  Result<Page*> default_page();
  Page* by_log(const std::string& path);
  Result<Page*> returning_page(const Hello& hello);
  Result<Page*> new_page(const Hello& hello, std::string& secret);
  Page* reserved_page(const std::string& id);
  // Ends code that holds a silent page: the Node page's process restarted,
  // an owned page's script stopped and its document loaded again.
  bool restart(Page& p);
  static std::string restarted_as(const Page& p);  // what restart did, in words
  void flush_notes(Page& p);  // the owned page's notes held while a job ran
  void open_log(Page& p, bool returning);
  void forget_pages();
  void registry_changed();
  std::vector<RegistryLine> registry_lines() const;

  // The job scheduler (jobs.cpp): one job at a time per page, deadlines,
  // the interrupt a timeout sends, the reply's place in the log.
  void submit(Page& p, std::shared_ptr<Job> job);
  // A load-file's final reply: the module joins the page's list first.
  std::function<void(Answer)> loading(std::string page_id, LoadedModule module, std::function<void(Answer)> done);
  void pump(Page& p);
  void start(Page& p, Job& job);
  bool start_from_log(Page& p, Job& job, const std::string& announcement);
  void start_from_door(Page& p, Job& job, const std::string& announcement);
  void send_block(Page& p, Job& job);
  void schedule_tick(Page& p);
  void tick(Page& p);
  // `ms`: the block's one duration (its header, commit, trailer, history, reply).
  void finish(Page& p, Job& job, std::int64_t ms, Lines reply, Answer done);
  void write_reply(Page& p, Job& job, const Lines& reply, bool more);
  void next_block(Page& p, Job& job);
  void end_timeout(Page& p, Job& job, const std::string& what, const boost::json::object* late = nullptr,
                   bool late_possible = false);
  void late_outcome(Page& p, std::uint64_t job, std::int64_t after);
  void fail(Page& p, Job& job, Error code, const std::string& message);
  void fail_running(Page& p, Job& job, Error code, const std::string& message);
  void fail_queued(Page& p, Job& job, Error code, const std::string& message);
  void time_out(Page& p, Job& job);
  void wait_for_answer(Page& p, const Job& job);

  // Page messages (page_messages.cpp): results, console output, answers.
  void on_result(Page& p, const boost::json::object& msg);
  void on_event(Page& p, const boost::json::object& msg);
  void flush_background(Page& p);
  void on_bindings(Page& p, const boost::json::object& msg);  // page_bindings.cpp
  // An event of the page's, kept with the running job's (and passed to its
  // agent, in its output when `output`) or with the page's between jobs.
  void add_event(Page& p, Event e, const std::string& written, bool output);

  // Dialogs (page_dialogs.cpp): one the running job's code opened and the
  // page answered at once, or one the page opened by itself, which holds
  // it until it is closed: jobs are refused (dialog_open) meanwhile.
  void on_dialog(Page& p, const boost::json::object& msg);
  void refuse_held(Page& p);
  // Sends `message` (with a number of its own, "job") to a live page and
  // hands its answer, or a timeout after 2 s, to `done`: complete, info,
  // docs, bindings and clear.
  void ask(const std::string& page, boost::json::object message, std::function<void(Answer)> done);
  void await_answer(Page& p, std::uint64_t req, std::function<void(Answer)> done, Answer otherwise);
  Result<void> send_input(Page& p, Input in);

  // The intake's glue (log_requests.cpp): requests found in a changed log.
  // `door`: the change is an agent's edit; else a save, or text found at start.
  void changed(Page& p, const std::string& agent, bool door);
  std::vector<std::shared_ptr<Job>> take_requests(Page& p, const std::string& seen, const std::string& found,
                                                  const std::string& agent, bool saved);
  Result<std::optional<FileChange>> rewrite_tail(Page& p, const Appended& a, Lines now);
  void keep_appended(Page& p, const Appended& a, const Lines& notes);
  std::vector<std::shared_ptr<Job>> accept(Page& p, const Appended& a, Accepted& accepted, const std::string& found);
  void check_jobs(Page& p);
  void mark_interrupted_in(const std::string& file);

  // The status files and the commits: an object of their own (status_, repl/status_files.hpp);
  // these hand it a page (repl.cpp).
  using Exchange = StatusFiles::Exchange;
  using Answered = StatusFiles::Answered;
  void commit(Page& p, std::vector<FileChange> files, const std::string& author, const std::string& summary,
              std::vector<std::pair<std::string, std::string>> trailers,
              std::function<void(const std::string& id)> committed = {}, Exchange exchange = {});
  void write_status(Page& p);  // status.json and ready.marker, from the page's state now
  StatusPage status_page(Page& p);
  std::optional<StatusPage> status_page(const std::string& page_id);
  void requested(const std::string& page_id, const std::vector<std::shared_ptr<Job>>& jobs, const std::string& commit);

  const editproto::Workspace& ws_;
  Committer& committer_;
  boost::asio::any_io_executor ex_;
  Options opt_;
  std::map<std::string, std::unique_ptr<Page>> pages_;  // by instance id
  std::uint64_t next_job_ = 1;
  RegistryFile registry_;  // debug.md
  bool stopping_ = false;
  PageKeys keys_;
  Admission admission_;  // new instances per origin
  GitProvenance provenance_;
  StatusFiles status_;  // status.json, the markers, the chat history; the commits
  std::optional<TailJournal> journal_;
  std::map<std::string, std::string> reserved_;  // owned instances not connected yet: id -> stem
};

}  // namespace repl
