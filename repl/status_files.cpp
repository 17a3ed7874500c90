// The status files of file-driven agents, and the commits of the pages'
// logs, whose callbacks bring the markers forward (status_files.hpp).
#include "repl/status_files.hpp"

#include "record/trailers.hpp"
#include "repl/format.hpp"
#include "repl/names.hpp"
#include "repl/page_log.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <algorithm>

namespace repl {

namespace json = boost::json;

StatusFiles::StatusFiles(Committer& committer, boost::asio::any_io_executor ex,
                         std::function<std::optional<StatusPage>(const std::string& page_id)> page,
                         std::function<void()> changed)
    : committer_(committer), ex_(std::move(ex)), page_(std::move(page)), changed_(std::move(changed)) {}

void StatusFiles::accepted(const std::string& stem, JobProgress& progress, std::uint64_t job, std::size_t blocks) {
  if (!files_) return;
  progress.accepted(job, blocks);
  files_->marker(stem, "ack.marker", job);
}

void StatusFiles::flush() {
  if (files_) files_->flush();
}

// status.json and ready.marker, from the page's state now. While jobs are
// open (accepted, reply not committed yet), `job` is the newest of them (the
// one ack.marker names) and `phase` where it is: dispatching (queued, or
// waiting for the page), executing, writing_output (its reply is written and
// waits for its commit, or for older jobs); `progress` counts the blocks done
// of all open jobs.
void StatusFiles::write(const StatusPage& p) {
  // Every change of a page's queue or job passes here.
  if (changed_) changed_();
  if (!files_) return;
  const JobProgress& jobs = *p.progress;
  json::object st{{"page", p.stem}, {"log", p.log}, {"connected", p.connected},
                  {"queued", p.queued}, {"acked", jobs.acked()}, {"completed", jobs.completed()}};
  std::uint64_t job = 0;
  std::string state = "processing", phase, message;
  std::int64_t progress = 0;
  const std::string away = p.connected ? "" : "; the page is not connected: its jobs wait for it";
  if (jobs.any_open()) {
    progress = jobs.percent();
    job = jobs.newest_open();
    const std::string name = "job " + std::to_string(job);
    const bool queued = p.waits && p.waits(job);
    if (p.running && p.running->job == job) {
      phase = "executing";
      message = name + " runs in the page (block " + std::to_string(p.running->block + 1) + " of " +
                std::to_string(p.running->blocks) + ")";
    } else if (queued) {
      phase = "dispatching";
      message = name + " waits for " +
                (p.running ? "job " + std::to_string(p.running->job) + ", which runs in the page" : std::string("the page")) +
                away;
    } else {
      phase = "writing_output";
      message = "the reply to " + name + " is in the log; its commit follows" + away;
    }
  } else if (!p.connected) {
    state = "error";
    message = "the page is not connected";
  } else {
    job = jobs.completed();
    const std::string& how = jobs.completed_status();
    state = job == 0 ? "ready" : how == "ok" ? "completed" : "error";
    progress = job == 0 ? 0 : 100;
    message = job == 0 ? "connected and idle" : "job " + std::to_string(job) + " " + (how == "ok" ? "completed" : "failed: " + how);
  }
  st["state"] = state;
  st["phase"] = phase;
  st["progress"] = progress;
  st["message"] = message;
  st["job"] = job;
  files_->status(p.stem, std::move(st));
  const bool idle = p.connected && !p.running && p.queued == 0 && jobs.completed() >= jobs.acked();
  if (idle)
    files_->marker(p.stem, "ready.marker", jobs.completed());
  else
    files_->erase("pages/" + p.stem + "/ready.marker");
}

// A reply's commit is made: the chat history's record, the status files, and
// when the job has nothing more to run, completed.marker.
void StatusFiles::replied(const std::string& page_id, const Answered& a, const std::string& commit) {
  if (!files_) return;
  const std::optional<StatusPage> page = page_(page_id);
  if (!page) return;
  const StatusPage& p = *page;
  json::object rec{{"type", "reply"}, {"job", a.job},     {"page", p.stem},
                   {"agent", a.agent}, {"block", a.block}, {"commit", commit.empty() ? json::value() : json::value(commit)}};
  const std::optional<Failure>& failure = a.done.failure;
  const std::string status = failure ? std::string(to_string(failure->code)) : "ok";
  rec["status"] = status;
  if (const auto* v = a.done.body.if_contains("value")) rec["result"] = *v;
  if (failure) rec["error"] = failure_text(*failure);
  for (const char* key : {"exception", "duration_ms", "log_error"})
    if (const auto* v = a.done.body.if_contains(key)) rec[key] = *v;
  files_->record(p.stem, std::move(rec));
  if (!a.last) return;
  const bool moved = p.progress->replied(a.job, status);
  // completed.marker last: an agent that wakes on it finds status.json and
  // ready.marker saying the same job already.
  write(p);
  if (moved) files_->marker(p.stem, "completed.marker", p.progress->completed());
}

void StatusFiles::requested(const std::string& page_id, std::uint64_t job, const std::string& agent,
                            const std::vector<std::string>& codes, const std::string& commit) {
  if (!files_) return;
  const std::optional<StatusPage> p = page_(page_id);
  if (!p) return;
  json::array code;
  for (const std::string& c : codes) code.push_back(json::string(c));
  files_->record(p->stem, {{"type", "request"},
                           {"job", job},
                           {"page", p->stem},
                           {"agent", agent},
                           {"code", std::move(code)},
                           {"commit", commit.empty() ? json::value() : json::value(commit)}});
}

void StatusFiles::commit(const std::string& stem, PageLog& log, std::vector<FileChange> files,
                         const std::string& author, const std::string& summary,
                         std::vector<std::pair<std::string, std::string>> trailers,
                         std::function<void(const std::string& id)> committed, Exchange exchange) {
  CommitItem item;
  item.opens = std::move(exchange.opens);
  item.closes = std::move(exchange.closes);
  item.headline = std::move(exchange.headline);
  item.takes_save = exchange.takes_save;
  item.page = stem;
  item.files = log.take_uncommitted();
  for (FileChange& f : files) item.files.push_back(std::move(f));
  if (item.files.empty()) {
    if (committed) boost::asio::post(ex_, [committed = std::move(committed)] { committed(""); });
    return;
  }
  if (committed)
    item.committed = [ex = ex_, committed = std::move(committed)](const std::string& id) {
      boost::asio::post(ex, [committed, id] { committed(id); });
    };
  item.author = author == stem ? page_identity(stem) : agent_identity(header_name(author));
  item.summary = summary;
  trailers.emplace_back(record::trailer::page, stem);
  item.trailers = std::move(trailers);
  if (!committer_.submit(std::move(item))) {
    // Refused (the commit queue is full; submit left the item whole): the
    // files wait for this page's next commit, never to pass for a user's save.
    for (FileChange& f : item.files) log.keep(std::move(f));
  }
}

}  // namespace repl
