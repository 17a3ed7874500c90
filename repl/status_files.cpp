// The status files of file-driven agents (status.json, the markers,
// chat_history.jsonl; AgentFiles writes them), and the commits of the
// pages' logs, whose callbacks bring the markers forward.
#include "record/trailers.hpp"
#include "repl/names.hpp"
#include "repl/page_state.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

namespace repl {

namespace json = boost::json;

void Repl::set_files(AgentFiles* files) {
  files_ = files;
  if (files_) next_job_ = std::max(next_job_, files_->last_sequence() + 1);
}

// status.json and ready.marker, from the page's state now. While jobs are
// open (accepted, reply not committed yet), `job` is the newest of them (the
// one ack.marker names) and `phase` where it is: dispatching (queued, or
// waiting for the page), executing, writing_output (its reply is written and
// waits for its commit, or for older jobs); `progress` counts the blocks done
// of all open jobs.
void Repl::write_status(Page& p) {
  // Every change of a page's queue or job passes here.
  if (pages_changed) pages_changed();
  if (!files_) return;
  const JobProgress& jobs = p.progress;
  json::object st{{"page", p.stem}, {"log", p.log->path()}, {"connected", p.link != nullptr},
                  {"queued", p.queue.size()}, {"acked", jobs.acked()}, {"completed", jobs.completed()}};
  std::uint64_t job = 0;
  std::string state = "processing", phase, message;
  std::int64_t progress = 0;
  const std::string away = p.link ? "" : "; the page is not connected: its jobs wait for it";
  if (jobs.any_open()) {
    progress = jobs.percent();
    job = jobs.newest_open();
    const std::string name = "job " + std::to_string(job);
    const bool queued = std::any_of(p.queue.begin(), p.queue.end(), [&](const auto& j) { return j->id == job; });
    if (p.running && p.running->id == job) {
      phase = "executing";
      message = name + " runs in the page (block " + std::to_string(p.running->index + 1) + " of " +
                std::to_string(p.running->codes.size()) + ")";
    } else if (queued) {
      phase = "dispatching";
      message = name + " waits for " +
                (p.running ? "job " + std::to_string(p.running->id) + ", which runs in the page" : std::string("the page")) +
                away;
    } else {
      phase = "writing_output";
      message = "the reply to " + name + " is in the log; its commit follows" + away;
    }
  } else if (!p.link) {
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
  const bool idle = p.link && !p.running && p.queue.empty() && jobs.completed() >= jobs.acked();
  if (idle)
    files_->marker(p.stem, "ready.marker", jobs.completed());
  else
    files_->erase("pages/" + p.stem + "/ready.marker");
}

// A reply's commit is made: the chat history's record, the status files, and
// when the job has nothing more to run, completed.marker.
void Repl::replied(const std::string& page_id, const Answered& a, const std::string& commit) {
  auto it = pages_.find(page_id);
  if (!files_ || it == pages_.end()) return;
  Page& p = *it->second;
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
  const bool moved = p.progress.replied(a.job, status);
  // completed.marker last: an agent that wakes on it finds status.json and
  // ready.marker saying the same job already.
  write_status(p);
  if (moved) files_->marker(p.stem, "completed.marker", p.progress.completed());
}

void Repl::requested(const std::string& page_id, const std::vector<std::shared_ptr<Job>>& jobs,
                     const std::string& commit) {
  auto it = pages_.find(page_id);
  if (!files_ || it == pages_.end()) return;
  for (const auto& job : jobs) {
    json::array code;
    for (const std::string& c : job->codes) code.push_back(json::string(c));
    files_->record(it->second->stem, {{"type", "request"},
                                      {"job", job->id},
                                      {"page", it->second->stem},
                                      {"agent", job->agent},
                                      {"code", std::move(code)},
                                      {"commit", commit.empty() ? json::value() : json::value(commit)}});
  }
}

void Repl::commit(Page& p, std::vector<FileChange> files, const std::string& author, const std::string& summary,
                  std::vector<std::pair<std::string, std::string>> trailers,
                  std::function<void(const std::string& id)> committed, Exchange exchange) {
  CommitItem item;
  item.opens = std::move(exchange.opens);
  item.closes = std::move(exchange.closes);
  item.headline = std::move(exchange.headline);
  item.takes_save = exchange.takes_save;
  item.page = p.stem;
  item.files = p.log->take_uncommitted();
  for (FileChange& f : files) item.files.push_back(std::move(f));
  if (item.files.empty()) {
    if (committed) boost::asio::post(ex_, [committed = std::move(committed)] { committed(""); });
    return;
  }
  if (committed)
    item.committed = [ex = ex_, committed = std::move(committed)](const std::string& id) {
      boost::asio::post(ex, [committed, id] { committed(id); });
    };
  item.author = author == p.stem ? page_identity(p.stem) : agent_identity(header_name(author));
  item.summary = summary;
  trailers.emplace_back(record::trailer::page, p.stem);
  item.trailers = std::move(trailers);
  if (!committer_.submit(std::move(item))) {
    // Refused (the commit queue is full; submit left the item whole): the
    // files wait for this page's next commit, never to pass for a user's save.
    for (FileChange& f : item.files) p.log->keep(std::move(f));
  }
}

}  // namespace repl
