// The job scheduler: one job at a time per page, in the order accepted;
// each job's deadline, the interrupt a timeout sends and the answer it
// waits for; the reply's place in the log; the queue going on.
#include "record/trailers.hpp"
#include "repl/log.hpp"
#include "repl/page_state.hpp"
#include "repl/headlines.hpp"
#include "repl/transcript.hpp"

#include <boost/json.hpp>

#include <iostream>

namespace repl {

namespace json = boost::json;

void Repl::eval(EvalRequest request, Listener listener) {
  if (stopping_) return listener.done(refusal({Error::shutting_down, "the gateway is stopping"}));
  auto found = find(request.page);
  if (!found) return listener.done(refusal(found.error()));
  Page* p = *found;
  auto job = std::make_shared<Job>();
  job->id = request.job;
  job->agent = request.agent.empty() ? "agent" : request.agent;
  job->codes = {std::move(request.code)};
  job->silent = request.silent;
  job->accept_dialogs = request.accept_dialogs;
  job->prompt_text = std::move(request.prompt_text);
  job->timeout = request.timeout.count() > 0 ? request.timeout : opt_.timeout;
  job->listener = std::move(listener);
  if (request.module) job->listener.done = loading(p->id, std::move(*request.module), std::move(job->listener.done));
  submit(*p, std::move(job));
}

std::function<void(Answer)> Repl::loading(std::string page_id, LoadedModule module, std::function<void(Answer)> done) {
  return [this, page_id = std::move(page_id), module = std::move(module), done = std::move(done)](Answer a) mutable {
    const auto it = pages_.find(page_id);
    if (!a.failure && it != pages_.end()) {
      module.loaded = wall::now();
      if (const json::value* ms = a.body.if_contains("duration_ms"); ms && ms->is_number())
        module.load_ms = ms->to_number<std::int64_t>();
      it->second->modules.loaded(module);
      a.body["module"] = module.path;
      a.body["blob"] = module.blob;
    }
    if (done) done(std::move(a));
  };
}

void Repl::submit(Page& p, std::shared_ptr<Job> job) {
  if (job->id == 0) job->id = next_job_++;
  job->submitted = steady::now();
  if (p.queue.size() >= opt_.max_queued) {
    if (job->listener.done)
      job->listener.done(refusal({Error::queue_full, std::to_string(p.queue.size()) + " jobs wait for " + p.stem}));
    return;
  }
  job->deadline = std::make_unique<boost::asio::steady_timer>(ex_);
  job->deadline->expires_after(job->timeout + late_grace);
  job->deadline->async_wait([this, id = p.id, weak = std::weak_ptr<Job>(job)](boost::system::error_code ec) {
    auto j = weak.lock();
    if (ec || !j) return;
    auto it = pages_.find(id);
    if (it == pages_.end()) return;
    // A running job's reply says what became of it once the page answers
    // being told to stop (Repl::fail, end_timeout); a queued one never started.
    fail(*it->second, *j, Error::timeout, "no reply within " + std::to_string(j->timeout.count()) + " ms");
  });
  if (!job->silent) status_.accepted(p.stem, p.progress, job->id, job->codes.size());
  p.queue.push_back(std::move(job));
  pump(p);
  write_status(p);
}

void Repl::pump(Page& p) {
  if (!p.running && !p.held_notes.empty()) flush_notes(p);
  if (p.link) refuse_held(p);
  if (p.running || stopping_ || p.unanswered) return;
  if (!p.link || p.queue.empty()) {
    p.log->place_footer(p.running != nullptr);
    // A note says what happened (a reconnect); a footer put back alone says only that.
    // (A copy: the commit takes the changes, and the notes' words with them.)
    const std::string noted = p.log->noted();
    if (p.log->has_uncommitted())
      commit(p, {}, p.stem, noted.empty() ? "footer of " + p.stem : noted, {{record::trailer::kind, "page"}});
    return;
  }
  std::shared_ptr<Job> job = p.queue.front();
  p.queue.pop_front();
  p.running = job;
  start(p, *job);
}

void Repl::start(Page& p, Job& job) {
  job.started = steady::now();
  job.clock_text = clock_text(wall::now());
  const std::string ann = reply_header(p.stem, job.agent, job.clock_text, "");
  if (job.silent) {
    send_block(p, job);
  } else if (job.from_log) {
    if (!start_from_log(p, job, ann)) return;
  } else {
    start_from_door(p, job, ann);
  }
  p.last_seen = wall::now();
  registry_changed();
  schedule_tick(p);
}

void Repl::send_block(Page& p, Job& job) {
  job.started = steady::now();  // the block's duration starts here
  job.started_in_page = false;
  p.link->send(eval_message(job));
}

// The agent's request is in the log already: it runs only if it is still
// there as accepted, so the announcement goes in first. False when it is
// not (the job failed as a queued job does, and the queue went on).
bool Repl::start_from_log(Page& p, Job& job, const std::string& ann) {
  p.log->will_write();
  Lines with = job.segments.front();
  with.insert(with.end(), {"", ann, placeholder(0)});
  Result<FileChange> done = p.log->chat.replace(job.segments.front(), with);
  if (!done) {
    p.queue.push_front(std::move(p.running));
    fail(p, job, Error::log_conflict, "the request could not be placed in the log: " + done.error().message);
    pump(p);
    return false;
  }
  p.log->active = {ann, placeholder(0)};
  // The request itself was committed when it was accepted; its
  // announcement goes with the reply.
  p.log->keep(std::move(*done));
  send_block(p, job);
  return true;
}

// An eval op's job: the page starts at once and the request is written
// while it runs. The result is handled on this thread, so it always lands
// under a request that is already in the log.
void Repl::start_from_door(Page& p, Job& job, const std::string& ann) {
  send_block(p, job);
  p.log->will_write();
  Lines lines{request_header(job.agent, p.stem, job.clock_text)};
  for (std::string& l : fenced("JS", job.codes.front())) lines.push_back(std::move(l));
  lines.insert(lines.end(), {"", ann, placeholder(0)});
  Result<FileChange> done = Failure{};
  if (ends_with_footer(p.log->chat.tail())) done = p.log->chat.replace({std::string(footer)}, lines);
  if (!done) {
    lines.insert(lines.begin(), "");
    done = p.log->chat.append(lines);
  }
  if (!done) {
    // Too late to hold the code back: the agent gets its result, told the log missed it.
    job.log_error = "the request could not be placed in the log: " + done.error().message;
    log_line("job " + std::to_string(job.id) + ": " + job.log_error);
    return;
  }
  job.segments = {Lines(lines.begin(), lines.end() - 3)};  // the request, for the recovery rules
  if (job.segments.front().front().empty()) job.segments.front().erase(job.segments.front().begin());
  p.log->active = {ann, placeholder(0)};
  // The request is committed as it is dispatched, so history shows it before its reply.
  commit(p, {std::move(*done)}, job.agent,
         "request: " + header_name(job.agent) + " to " + p.stem + ", job " + std::to_string(job.id),
         {{record::trailer::kind, "request"}, {record::trailer::agent, header_name(job.agent)},
          {record::trailer::job, std::to_string(job.id)}},
         [this, id = p.id, keep = p.running](const std::string& c) { requested(id, {keep}, c); },
         {{p.stem + "/" + std::to_string(job.id)}, {}, code_headline(job.codes.front()), false});
}

void Repl::schedule_tick(Page& p) {
  p.ticker->expires_after(opt_.placeholder_every);
  p.ticker->async_wait([this, id = p.id](boost::system::error_code ec) {
    if (ec) return;
    if (auto it = pages_.find(id); it != pages_.end()) tick(*it->second);
  });
}

// The placeholder counts the seconds, with the console output so far above it.
void Repl::tick(Page& p) {
  if (!p.running) return;
  Job& job = *p.running;
  if (!job.silent && !p.log->active.empty()) {
    Lines now{p.log->active.front()};
    for (std::string& l : render_events(job.events.list())) now.push_back(std::move(l));
    now.push_back(placeholder(static_cast<long>(ms_since(job.started) / 1000)));
    p.log->will_write();
    if (auto done = p.log->chat.replace(p.log->active, now)) {
      p.log->active = std::move(now);
      p.log->keep(std::move(*done));
    }
  }
  schedule_tick(p);
}

// debug.md's line for a late reply to job `id`, `after` ms after its request.
void Repl::late_outcome(Page& p, std::uint64_t id, std::int64_t after) {
  const std::string job = "job " + std::to_string(id) + " ";
  if (!p.outcome.starts_with(job)) p.outcome = job + "timed out";
  p.outcome += ", late reply after " + std::to_string(after) + "ms";
  registry_changed();
}

// The reply goes where the announcement is. `more`: the next block of the
// request starts in the same edit, its announcement under it.
void Repl::write_reply(Page& p, Job& job, const Lines& reply, bool more) {
  p.log->will_write();
  // ack.marker is on disk before a reply can be read: a file agent that
  // sees the reply also sees its job's number. (An eval op's agent hears
  // the reply itself: its path does not wait for the status files.)
  if (job.from_log) status_.flush();
  Result<FileChange> written = Failure{};
  if (more) {
    const Lines& next = job.segments[job.index + 1];
    Lines old = p.log->active, now = reply;
    old.insert(old.end(), next.begin(), next.end());
    if (!next.empty() && !next.front().empty()) now.emplace_back();  // one blank line under a finished reply
    now.insert(now.end(), next.begin(), next.end());
    job.clock_text = clock_text(wall::now());
    const std::string ann = reply_header(p.stem, job.agent, job.clock_text, "");
    now.insert(now.end(), {"", ann, placeholder(0)});
    written = p.log->chat.replace(old, now);
    if (written) p.log->active = {ann, placeholder(0)};
  } else {
    // Nothing more to run: the footer comes back in the same edit, unless
    // the gateway noted something below the running job meanwhile.
    Lines now = reply;
    if (!job.from_log && p.queue.empty() && ends_with_lines(p.log->chat.tail(), p.log->active))
      now.insert(now.end(), {"", std::string(footer)});
    written = p.log->chat.replace(p.log->active, now, true);
    p.log->active.clear();
  }
  if (!written) {
    log_line("the reply to job " + std::to_string(job.id) + " could not be written: " +
                     written.error().message);
    p.log->note({"> _the reply to job " + std::to_string(job.id) +
             " could not be placed under its request (the log was edited meanwhile); it follows here_"});
    p.log->note(reply);
    p.log->active.clear();
  } else {
    p.log->keep(std::move(*written));
  }
}

void Repl::finish(Page& p, Job& job, std::int64_t ms, Lines reply, Answer done) {
  p.ticker->cancel();
  p.input_job.reset();
  const bool more = job.from_log && job.index + 1 < job.codes.size() && p.link;
  const bool error = done.failure.has_value();
  json::object& body = done.body;
  body["duration_ms"] = ms;
  if (more)
    p.progress.ran(job.id, job.index + 1);
  else
    p.progress.ran_all(job.id);
  if (!job.silent && !p.log->active.empty()) {
    write_reply(p, job, reply, more);
    if (!body.contains("log")) body["log"] = p.log->path();
  }
  if (!job.log_error.empty()) body["log_error"] = job.log_error;
  if (job.events.dropped()) body["events_dropped"] = job.events.dropped();
  if (!job.dialogs.empty()) body["dialogs"] = job.dialogs;
  if (job.dialogs_dropped) body["dialogs_dropped"] = job.dialogs_dropped;
  // How the page's error reads (a Node SIGINT, a browser's exception) is the
  // page's; that an agent's interrupt ended the job is ours to say.
  if (error && job.interrupted) body["interrupted"] = true;
  const std::string status = error ? std::string(to_string(done.failure->code)) : "ok";
  if (!job.silent && !more)
    p.outcome = "job " + std::to_string(job.id) +
                (error ? " failed after " + std::to_string(ms) + "ms (" + status + ")"
                       : " completed in " + std::to_string(ms) + "ms");
  const std::string outcome = outcome_headline(done);
  Answered answered{job.id, job.agent, job.index + 1, done, !more};
  // Everything the job wrote, for a client that reads no out message; the
  // chat history keeps the reply without it (the log has the events).
  if (!job.output.empty()) body["output"] = job.output;
  if (job.output_truncated) body["output_truncated"] = true;
  // The agent hears as soon as the reply is in the file; git comes after.
  if (job.listener.done) job.listener.done(std::move(done));
  job.listener = {};
  std::shared_ptr<Job> keep = p.running;  // the job outlives this function's use of it
  if (!more) {
    p.running.reset();
    if (p.queue.empty()) p.log->place_footer(p.running != nullptr);  // committed with the reply
  }
  if (!job.silent)
    commit(p, {}, p.stem,
           "reply: " + p.stem + " to " + header_name(job.agent) + ", job " + std::to_string(job.id) + " (" +
               (error ? "ERROR after " : "") + duration_text(static_cast<double>(ms)) + ")",
           {{record::trailer::kind, "reply"},
            {record::trailer::agent, header_name(job.agent)},
            {record::trailer::job, std::to_string(job.id)},
            {record::trailer::duration, std::to_string(ms) + "ms"},
            {record::trailer::status, status}},
           [this, id = p.id, answered = std::move(answered)](const std::string& c) { status_.replied(id, answered, c); },
           {{}, {p.stem + "/" + std::to_string(job.id)}, outcome, false});
  if (more && p.link) return next_block(p, job);
  if (job.deadline) job.deadline->cancel();
  registry_changed();
  pump(p);
  write_status(p);
}

// The request's next block runs, in the same job.
void Repl::next_block(Page& p, Job& job) {
  ++job.index;
  job.events.clear();
  job.output.clear();
  job.output_truncated = false;
  job.prompts = 0;
  job.dialogs.clear();
  job.dialogs_dropped = 0;
  send_block(p, job);
  schedule_tick(p);
  write_status(p);
}

// A job past its deadline: the page was told to stop, and `what` says what
// became of it (its answer, its silence, a restart), so the log promises a
// late reply only where one can still come (`late_possible`). `late` is a
// result that came meanwhile: it is written under the timeout as a late reply.
void Repl::end_timeout(Page& p, Job& job, const std::string& what, const json::object* late, bool late_possible) {
  p.answer_timer->cancel();
  const std::int64_t ms = job.gave_up.value_or(elapsed_ms(job.started));
  Failure failure{Error::timeout, "no reply within " + std::to_string(job.timeout.count()) + " ms; " + what};
  job.from_log = false;  // later blocks of the request do not run
  Lines reply = reply_block(
      reply_header(p.stem, job.agent, job.clock_text, "**ERROR** timeout after " + duration_text(static_cast<double>(ms))),
      fenced("Error", failure_text(failure)), job.events.list(), job.events.dropped(), opt_);
  p.log->keep(p.log->log_events(job.events.list()));
  std::int64_t after = 0;
  if (late) {
    after = elapsed_ms(job.started);
    std::vector<FileChange> extra;
    reply.push_back("");
    reply.push_back(late_header(p.stem, job.agent, clock_text(wall::now()), ok_result(*late), after));
    for (std::string& l : p.log->render_result(job.id, *late, extra)) reply.push_back(std::move(l));
    p.log->keep(std::move(extra));
  }
  if (late_possible) p.late[job.id] = {job.agent, job.started};
  const std::uint64_t id = job.id;
  finish(p, job, ms, std::move(reply), {{{"page", p.stem}, {"job", job.id}}, std::move(failure)});
  if (late) late_outcome(p, id, after);
}

void Repl::fail(Page& p, Job& job, Error code, const std::string& message) {
  if (p.running.get() == &job) return fail_running(p, job, code, message);
  fail_queued(p, job, code, message);
}

// The running job fails. A timeout tells the page to stop first, and what it
// answers (or its silence) says what became of the job (end_timeout).
void Repl::fail_running(Page& p, Job& job, Error code, const std::string& message) {
  if (job.gave_up)  // timed out already, and the page had not answered yet
    return end_timeout(p, job,
                       code == Error::shutting_down
                           ? "the gateway stopped before the page answered being told to stop"
                           : "the page was told to stop, and then: " + message + "; no reply will follow");
  if (code == Error::timeout && p.link) return time_out(p, job);
  const bool cancelled = code == Error::request_edited || code == Error::log_conflict;
  if (cancelled && p.link) {
    // Async work the page may still await is abandoned; the next job waits for the page.
    p.link->interrupt_hard(job.id);
    p.link->send(json::serialize(json::object{{"type", "interrupt"}, {"job", job.id}}));
    wait_for_answer(p, job);
  }
  job.from_log = false;  // later blocks of the request do not run
  const std::int64_t ms = elapsed_ms(job.started);
  const std::string what = std::string(to_string(code));
  Lines reply = reply_block(
      reply_header(p.stem, job.agent, job.clock_text, "**ERROR** " + what + " after " + duration_text(static_cast<double>(ms))),
      fenced("Error", what + ": " + message), job.events.list(), job.events.dropped(), opt_);
  p.log->keep(p.log->log_events(job.events.list()));
  finish(p, job, ms, std::move(reply), {{{"page", p.stem}, {"job", job.id}}, Failure{code, message}});
}

// The page is told to stop the job that timed out; a page silent for
// answer_within is stuck in synchronous code.
void Repl::time_out(Page& p, Job& job) {
  job.gave_up = elapsed_ms(job.started);
  p.link->send(json::serialize(json::object{{"type", "interrupt"}, {"job", job.id}}));
  p.answer_timer->expires_after(answer_within);
  p.answer_timer->async_wait([this, id = p.id, job = job.id](boost::system::error_code ec) {
    auto it = pages_.find(id);
    if (ec || it == pages_.end()) return;
    Page& q = *it->second;
    if (!q.running || q.running->id != job || !q.running->gave_up) return;
    // Silent: stuck in synchronous code. A page that can be restarted is,
    // and the queue waits for it to come back (connect() goes on).
    if (q.link && restart(q)) {
      q.unanswered = job;
      return end_timeout(q, *q.running,
                         "the page did not answer being told to stop within 2 s (it was stuck in code nothing "
                         "reaches), so it was restarted: " + restarted_as(q) + "; no reply will follow");
    }
    end_timeout(q, *q.running,
                q.dialog ? held_by(q) + "; the job runs when it is closed, its result written below as a late reply"
                         : "the page did not answer being told to stop within 2 s: it is busy with synchronous code, "
                           "which a browser tab cannot stop; if that code ends, its result is written below as a late "
                           "reply",
                nullptr, true);
  });
}

// A queued job fails: it never ran. A request from the log gets its reply
// under it.
void Repl::fail_queued(Page& p, Job& job, Error code, const std::string& message) {
  auto it = std::find_if(p.queue.begin(), p.queue.end(), [&](const auto& j) { return j.get() == &job; });
  if (it == p.queue.end()) return;
  std::shared_ptr<Job> keep = *it;
  p.queue.erase(it);
  if (job.deadline) job.deadline->cancel();
  p.progress.ran_all(job.id);
  const std::string what = std::string(to_string(code));
  if (job.from_log && !job.segments.empty()) {
    p.log->will_write();
    Lines now = job.segments.front();
    now.push_back("");
    now.push_back(reply_header(p.stem, job.agent, clock_text(wall::now()), "**ERROR** " + what + ", never started"));
    for (std::string& l : fenced("Error", what + ": " + message)) now.push_back(std::move(l));
    if (auto written = p.log->chat.replace(job.segments.front(), now, true))
      p.log->keep(std::move(*written));
    else  // the request is not there as accepted: the reply goes at the end
      p.log->note(Lines(now.begin() + static_cast<std::ptrdiff_t>(job.segments.front().size() + 1), now.end()));
  }
  Answer done{{{"page", p.stem}, {"job", job.id}}, Failure{code, message}};
  if (!job.silent) {
    p.outcome = "job " + std::to_string(job.id) + " failed (" + what + ", never started)";
    registry_changed();
    commit(p, {}, p.stem, "reply: " + p.stem + " never ran job " + std::to_string(job.id),
           {{record::trailer::kind, "reply"}, {record::trailer::job, std::to_string(job.id)}, {record::trailer::status, what}},
           [this, id = p.id, answered = Answered{job.id, job.agent, 1, done, true}](const std::string& c) {
             status_.replied(id, answered, c);
           },
           {{}, {p.stem + "/" + std::to_string(job.id)}, "(" + what + ", never started)", false});
  }
  if (job.listener.done) job.listener.done(std::move(done));
  job.listener = {};
  write_status(p);
}

// After a job is cancelled, the next job waits until the page answers the
// interrupt (a page awaiting something abandons it at once). A page that
// stays silent is stuck in synchronous code: restarted where it can be
// (Node), else the queue goes on and meets the same fate. (A timeout waits
// for the same answer in Repl::fail, to say in its reply what it was.)
void Repl::wait_for_answer(Page& p, const Job& job) {
  p.unanswered = job.id;
  p.answer_timer->expires_after(answer_within);
  p.answer_timer->async_wait([this, id = p.id, job = job.id](boost::system::error_code ec) {
    auto it = pages_.find(id);
    if (ec || it == pages_.end() || it->second->unanswered != job) return;
    Page& q = *it->second;
    q.unanswered.reset();
    if (q.link && restart(q)) {
      q.log->note({"> _" + q.stem + " did not answer after job " + std::to_string(job) +
               " was cancelled, so it was restarted: " + restarted_as(q) + "_"});
      commit(q, {}, q.stem, "page " + q.stem + " restarted: silent after job " + std::to_string(job) + " was cancelled",
             {{record::trailer::kind, "page"}, {record::trailer::job, std::to_string(job)}});
      return;  // the queue goes on when it is back
    }
    pump(q);
  });
}

void Repl::shutdown() {
  stopping_ = true;
  registry_.stop();
  for (auto& [id, p] : pages_) {
    std::vector<std::shared_ptr<Job>> jobs(p->queue.begin(), p->queue.end());
    for (auto& j : jobs) fail(*p, *j, Error::shutting_down, "the gateway stopped before the job ran");
    if (p->running) fail(*p, *p->running, Error::shutting_down, "the gateway stopped while the job ran");
    p->ticker->cancel();
    p->background_timer->cancel();
    if (p->link) p->link->close();
    p->link.reset();
    write_status(*p);
  }
  registry_.write();
}

}  // namespace repl
