// The state the REPL keeps per page and per job. Private to the REPL's
// parts (page_registry, jobs, page_messages, log_requests, transcript;
// status_files reads it as repl.cpp's StatusPage): all of it lives on the
// REPL's one executor, and no other thread touches it.
#pragma once

#include "repl/intake.hpp"
#include "repl/job_progress.hpp"
#include "repl/kept_events.hpp"
#include "repl/page_log.hpp"
#include "repl/pending_answers.hpp"
#include "repl/repl.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace repl {

using steady = std::chrono::steady_clock;
using wall = std::chrono::system_clock;

inline constexpr auto late_grace = std::chrono::milliseconds(500);  // the page's own timeout answers first
inline constexpr auto answer_within = std::chrono::seconds(2);      // interrupt and complete

// A dialog the page opened by itself, outside jobs, and that is still open:
// it holds the page's one thread, so nothing sent there is read until it
// is closed (page_dialogs.cpp).
struct OpenDialog {
  std::string kind, message, default_value;  // default_value: a prompt's
  wall::time_point since;
};

struct Repl::Job {
  std::uint64_t id = 0;
  std::string agent;
  std::vector<std::string> codes;  // the blocks, run in order
  std::size_t index = 0;           // the block running
  bool from_log = false;           // the request is an agent's text in the log
  bool silent = false;
  Listener listener;
  steady::time_point submitted;
  steady::time_point started;  // the running block's code was handed to the page
  std::string clock_text;      // of the running block's announcement
  std::chrono::milliseconds timeout{0};
  std::unique_ptr<boost::asio::steady_timer> deadline;
  KeptEvents events;  // its running block's console output
  // What the kept events wrote, each with its line end: the final reply's
  // "output" (bounded with the events; truncated once one is dropped).
  std::string output;
  bool output_truncated = false;
  std::size_t prompts = 0;  // need-input messages passed on, bounded like the events
  // from_log: segments[0] is the request from its header through its first
  // block; segments[k] the lines after block k-1 through block k.
  std::vector<Lines> segments;
  std::string log_error;  // why the request is not in the log, when it could not be written
  // Timed out: how long it had run when the gateway gave up, while the page's
  // answer to the interrupt tells what became of it (Repl::end_timeout).
  std::optional<std::int64_t> gave_up;
  bool interrupted = false;  // an agent's interrupt was sent to it: its error says so
  // The page said the running block started: one it has not waits behind
  // other code (a realm's), which no restart is made for.
  bool started_in_page = false;
  bool accept_dialogs = false;  // EvalRequest's
  std::optional<std::string> prompt_text;
  // The dialogs its running block's code opened, as the page answered
  // them ({kind, message, answer, default, value}): the reply's "dialogs";
  // past the bound only counted.
  boost::json::array dialogs;
  std::size_t dialogs_dropped = 0;
};

struct Repl::Page {
  std::string id, stem, url, title, kind, origin;
  std::unique_ptr<PageLog> log;  // made when the page's log is opened (Repl::open_log)
  std::shared_ptr<PageLink> link;
  std::deque<std::shared_ptr<Job>> queue;
  std::shared_ptr<Job> running;
  KeptEvents background;                // events outside jobs, not flushed yet
  std::unique_ptr<boost::asio::steady_timer> ticker, background_timer, answer_timer;
  // A job that timed out and whose page has not answered the interrupt
  // since: the queue waits, and a page that stays silent is restarted.
  std::optional<std::uint64_t> unanswered;
  wall::time_point last_seen;
  struct Late {
    std::string agent;
    steady::time_point started;
  };
  std::map<std::uint64_t, Late> late;  // timed out: a reply may still come
  PendingAnswers answers;  // owed to agents: interrupt, complete, lookup, bindings, clear
  std::optional<std::uint64_t> input_job;  // a job waiting on stdin
  JobProgress progress;  // the jobs as the status files count them (ack, open, completed)
  Modules modules;      // what load-file ran in it since it connected
  std::string outcome;  // how its last job ended, for debug.md ("job 7 failed after 60500ms (timeout)")
  std::string user_agent;
  wall::time_point connected_at;  // its link's, the actors' spawned_at
  std::deque<Event> recent;       // its last events, cut short, for inspect (keep_recent)
  std::optional<OpenDialog> dialog;  // its own dialog, open now
  // A page of the gateway's own browser (page_owned.cpp): its screenshots'
  // paths (the last ones), and notes that wait for the running job's end.
  bool owned = false;
  std::deque<std::string> screenshots;
  unsigned last_screenshot = 0;
  struct HeldNote {
    Lines lines;
    std::string summary, agent;
    std::vector<FileChange> files;
  };
  std::deque<HeldNote> held_notes;
};

// A page's state as pages, inspect, the actors and the dashboard show it:
// disconnected, dialog (held by its own dialog), executing or idle.
std::string_view state_of(const Repl::Page& p);
// Its open dialog as {kind, message, default, since} (page_dialogs.cpp);
// null when none is open.
boost::json::value dialog_json(const Repl::Page& p);
// Why the page runs nothing now: its open dialog, in words.
std::string held_by(const Repl::Page& p);

// Keeps a short copy of `e` among the page's recent events (page_actors.cpp).
void keep_recent(Repl::Page& p, const Event& e);

inline double ms_since(steady::time_point t) {
  return std::chrono::duration<double, std::milli>(steady::now() - t).count();
}

// A block's one duration, in whole milliseconds: from handing its code to
// the page until the gateway has its result, or gives up on it.
inline std::int64_t elapsed_ms(steady::time_point t) { return std::max<std::int64_t>(0, std::llround(ms_since(t))); }

// A string field of a page message; "" when missing or not a string.
inline std::string str(const boost::json::object& o, std::string_view key) {
  if (auto it = o.find(key); it != o.end() && it->value().is_string()) return std::string(it->value().get_string());
  return {};
}

// A final answer refusing a request: nothing but why.
inline Answer refusal(Failure f) { return {{}, std::move(f)}; }

// A page message's time: its `ts`, or the gateway's own when the page's
// could not have been meant (page_time left it out).
inline std::int64_t event_time(const boost::json::object& o) {
  auto ts = o.find("ts");
  return ts != o.end() && ts->value().is_int64()
             ? ts->value().get_int64()
             : std::chrono::duration_cast<std::chrono::milliseconds>(wall::now().time_since_epoch()).count();
}

inline std::optional<std::uint64_t> job_of(const boost::json::object& o) {
  auto it = o.find("job");
  if (it == o.end()) return std::nullopt;
  if (it->value().is_uint64()) return it->value().get_uint64();
  if (it->value().is_int64() && it->value().get_int64() >= 0) return static_cast<std::uint64_t>(it->value().get_int64());
  return std::nullopt;
}

inline bool ends_with_footer(std::string_view text) { return ends_with_lines(text, {std::string(footer)}); }

inline bool ok_result(const boost::json::object& msg) {
  auto it = msg.find("ok");
  return it != msg.end() && it->value().is_bool() && it->value().get_bool();
}

// The message that hands a job's running block to its page.
inline std::string eval_message(const Repl::Job& job) {
  boost::json::object m{{"type", "eval"},
                        {"job", job.id},
                        {"code", job.codes[job.index]},
                        {"timeout_ms", job.timeout.count()},
                        {"dialog", job.accept_dialogs ? "accept" : "dismiss"}};
  if (job.prompt_text) m["prompt_text"] = *job.prompt_text;
  return boost::json::serialize(m);
}

}  // namespace repl
