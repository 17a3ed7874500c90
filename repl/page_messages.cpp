// Messages from a page (results, console output, answers), and the agents'
// requests that talk to a running page: interrupt, complete, lookup, stdin.
#include "record/trailers.hpp"
#include "repl/page_input.hpp"
#include "repl/page_state.hpp"
#include "repl/transcript.hpp"

#include "editproto/unicode.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

namespace repl {

namespace json = boost::json;

namespace {

// A word of the page's choosing that lands in a fence info string.
std::string token(std::string_view s, std::string_view fallback) {
  std::string out;
  for (char c : s)
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
        c == '_')
      out += c;
  return out.empty() || out.size() > 40 ? std::string(fallback) : out;
}

}  // namespace

void Repl::from_page(const std::string& id, std::string_view text) {
  auto it = pages_.find(id);
  if (it == pages_.end()) return;
  Page& p = *it->second;
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return;  // a page's garbage is its own problem
  const json::object msg = clean_page_message(std::move(v.get_object()));
  const std::string type = str(msg, "type");
  if (p.unanswered && job_of(msg) == p.unanswered && (type == "result" || type == "interrupted")) {
    p.unanswered.reset();
    p.answer_timer->cancel();
    boost::asio::post(ex_, [this, id] {
      if (auto it = pages_.find(id); it != pages_.end()) pump(*it->second);
    });
  }
  if (type == "started" && p.running && job_of(msg) == p.running->id) p.running->started_in_page = true;
  if (type == "dropped" && p.running && job_of(msg) == p.running->id) {
    // Writes the page counted instead of sending; the count is the page's word.
    const json::value* count = msg.if_contains("count");
    if (count && count->is_uint64() && count->get_uint64() > 0) {
      const std::uint64_t n = std::min<std::uint64_t>(count->get_uint64(), 1'000'000'000);
      p.running->events.count_dropped(static_cast<std::size_t>(n));
      p.running->output_truncated = true;
    }
    return;
  }
  if (type == "result") return on_result(p, msg);
  if (type == "event") return on_event(p, msg);
  if (type == "dialog") return on_dialog(p, msg);
  if (type == "interrupted" && p.running && p.running->gave_up && job_of(msg) == p.running->id)
    end_timeout(p, *p.running,
                str(msg, "status") == "idle"
                    ? "the page was told to stop and said it ran no such job; no reply will follow"
                    : "the page was told to stop and stopped it; no reply will follow");
  if (type == "bindings" || type == "cleared") return on_bindings(p, msg);
  if (type == "interrupted" || type == "completions" || type == "looked-up") {
    auto answer = p.answers.take(job_of(msg));
    if (!answer) return;
    json::object out;
    if (type == "looked-up") {
      const json::value* info = msg.if_contains("info");
      out["info"] = info ? *info : json::object{{"found", false}};
    } else if (type == "interrupted") {
      out["result"] = str(msg, "status").empty() ? "interrupted" : str(msg, "status");
      out["message"] = str(msg, "message");
    } else {
      json::array items;
      if (auto* list = msg.if_contains("items"); list && list->is_array())
        for (const auto& item : list->get_array())
          if (item.is_string() && items.size() < 1000) items.push_back(item);
      // The page's message says "items"; the reply says "completions", as
      // the agents' protocol (after nREPL's complete) names them.
      out["completions"] = std::move(items);
      // Where the word they replace starts (UTF-16 units into the code sent).
      if (const json::value* start = msg.if_contains("start")) out["start"] = *start;
    }
    return answer({std::move(out)});
  }
  if (type == "need-input") {
    auto job = job_of(msg);
    if (!job || !p.running || p.running->id != *job) return;
    p.input_job = *job;
    if (++p.running->prompts > opt_.max_events_kept) return p.running->events.count_dropped(1);
    if (p.running->listener.out)
      // Shaped as the protocol's intermediate status: it says the eval
      // waits, and must never read as a final reply (which has "done").
      p.running->listener.out({{"status", json::array{"need-input"}},
                               {"prompt", editproto::unicode::to_valid_utf8(str(msg, "prompt").substr(0, 4096))},
                               {"page", p.stem}});
  }
}

void Repl::on_event(Page& p, const json::object& msg) {
  Event e;
  e.source = token(str(msg, "source"), "console.log");
  const std::string lang = str(msg, "lang");
  e.lang = lang == "JSON" || lang == "Error" ? lang : "Text";
  e.text = str(msg, "text");
  e.ts = event_time(msg);
  // The agent hears each write as written, with its line end (a page
  // that sends none ends its lines); the log keeps the text alone.
  const auto end = msg.find("end");
  const std::string written = e.text + (end != msg.end() ? std::string(end->value().get_string()) : "\n");
  add_event(p, std::move(e), written, true);
}

void Repl::add_event(Page& p, Event e, const std::string& written, bool output) {
  keep_recent(p, e);
  // A flood of output costs a count, not memory: what is past the bound is
  // neither kept nor passed on.
  if (p.running) {
    Job& job = *p.running;
    const std::string source = e.source;
    if (!job.events.add(std::move(e), opt_.max_events_kept, opt_.max_event_bytes_kept)) {
      job.output_truncated = output || job.output_truncated;
      return;
    }
    if (!output) return;
    job.output += written;
    if (job.listener.out) job.listener.out({{"out", written}, {"source", source}, {"page", p.stem}});
    return;
  }
  // Outside a job: gathered for a second, then written on their own.
  if (!p.background.add(std::move(e), opt_.max_events_kept, opt_.max_event_bytes_kept)) return;
  if (p.background.list().size() == 1) {
    p.background_timer->expires_after(std::chrono::seconds(1));
    p.background_timer->async_wait([this, id = p.id](boost::system::error_code ec) {
      if (ec) return;
      if (auto it = pages_.find(id); it != pages_.end()) flush_background(*it->second);
    });
  }
}

void Repl::flush_background(Page& p) {
  if (p.background.empty()) return;
  if (p.running) return p.running->events.join(p.background);  // a job started meanwhile: they belong to it now
  KeptEvents taken;
  taken.join(p.background);
  const std::vector<Event>& events = taken.list();
  const std::size_t dropped = taken.dropped();
  Lines lines{"> **" + p.stem + "** background at " + clock_text(wall::now())};
  for (std::string& l : render_events(events)) lines.push_back(std::move(l));
  if (dropped) lines.push_back(dropped_note(dropped, opt_));
  p.log->note(lines);
  commit(p, p.log->log_events(events), p.stem, "background: " + std::to_string(events.size()) + " events of " + p.stem,
         {{record::trailer::kind, "background"}});
}

void Repl::on_result(Page& p, const json::object& msg) {
  auto id = job_of(msg);
  if (!id) return;
  const bool ok = ok_result(msg);
  // The page's answer to being told to stop: it abandoned the await.
  const bool abandoned = !ok && msg.if_contains("error") && msg.at("error").is_object() &&
                         str(msg.at("error").get_object(), "name") == "Interrupted";

  if (!p.running || p.running->id != *id) {
    auto late = p.late.find(*id);
    if (late == p.late.end()) return;
    const std::string agent = late->second.agent;
    const std::int64_t after = elapsed_ms(late->second.started);
    p.late.erase(late);
    // The page gave up on our interrupt after the timeout: that says nothing new.
    if (abandoned) return;
    std::vector<FileChange> extra;
    Lines lines{late_header(p.stem, agent, clock_text(wall::now()), ok, after)};
    for (std::string& l : p.log->render_result(*id, msg, extra)) lines.push_back(std::move(l));
    p.log->note(lines);
    late_outcome(p, *id, after);
    commit(p, std::move(extra), p.stem, "late reply: " + p.stem + " to " + header_name(agent) + ", job " + std::to_string(*id),
           {{record::trailer::kind, "reply"}, {record::trailer::agent, header_name(agent)}, {record::trailer::job, std::to_string(*id)},
            {record::trailer::duration, std::to_string(after) + "ms"}, {record::trailer::status, "late"}});
    return;
  }
  Job& job = *p.running;
  if (job.gave_up) {
    if (abandoned)
      return end_timeout(p, job,
                         "the page was told to stop and abandoned the await the code was in (async work it started may "
                         "still run); no reply will follow");
    return end_timeout(p, job, "the page answered after that: its result follows as a late reply", &msg);
  }
  const std::int64_t ms = elapsed_ms(job.started);
  std::vector<FileChange> extra;
  const std::string took = duration_text(static_cast<double>(ms));
  Lines reply = reply_block(reply_header(p.stem, job.agent, job.clock_text, ok ? took : "**ERROR** after " + took),
                            p.log->render_result(job.id, msg, extra), job.events.list(), job.events.dropped(), opt_);
  for (FileChange& c : p.log->log_events(job.events.list())) extra.push_back(std::move(c));

  Answer done{{{"page", p.stem}, {"job", job.id}, {"log", p.log->path()}}};
  if (ok) {
    const json::value* v = msg.if_contains("value");
    done.body["value"] = v ? *v : json::value(json::object{{"$undefined", true}});
  } else {
    json::object exception = msg.if_contains("error") && msg.at("error").is_object() ? msg.at("error").get_object()
                                                                                      : json::object{};
    done.failure = Failure{Error::page_error, str(exception, "name") + ": " + str(exception, "message")};
    done.body["exception"] = std::move(exception);
  }
  p.log->keep(std::move(extra));
  finish(p, job, ms, std::move(reply), std::move(done));
}


// ---- interrupt, complete, lookup, stdin -------------------------------------------------

// The page's answer to `req` goes to `done`; `otherwise` does, if none comes in time.
void Repl::await_answer(Page& p, std::uint64_t req, std::function<void(Answer)> done, Answer otherwise) {
  p.answers.await(ex_, req, std::move(done), std::move(otherwise), answer_within);
}

void Repl::interrupt(const std::string& page, std::function<void(Answer)> done) {
  auto found = find(page);
  if (!found) return done(refusal(found.error()));
  Page* p = *found;
  if (p->dialog && p->link)
    return done({{{"result", "not-interruptible"}, {"message", held_by(*p)}, {"dialog", dialog_json(*p)}}});
  if (!p->running || !p->link) return done({{{"result", "idle"}, {"message", "no job is running in " + page}}});
  const std::uint64_t job = p->running->id;
  p->running->interrupted = true;
  // SIGINT stops synchronous Node code; the message ends an await.
  p->link->interrupt_hard(job);
  p->link->send(json::serialize(json::object{{"type", "interrupt"}, {"job", job}}));
  // No answer: the page is stuck in code nothing reaches (a tab's loop, or
  // Node code running after an await). A page that can be restarted is.
  auto answered = [this, id = p->id, job, done = std::move(done)](Answer answer) {
    auto it = pages_.find(id);
    if (answer.failure && answer.failure->code == Error::timeout) {
      Page* q = it == pages_.end() ? nullptr : it->second.get();
      // Only a new process ends code that holds its thread: a realm's fresh
      // context would not (the Node page and every realm share that thread).
      // A job the page never said it started waits behind another's code
      // (a realm's): a restart would end the wrong code, and every realm.
      // (A page of the gateway's browser has one queue and no realms: silent is stuck.)
      const bool started = q && q->running && (q->running->started_in_page || q->owned);
      if (q && q->link && started && q->running->id == job && q->kind != "realm" && restart(*q)) {
        q->log->note({"> _" + q->stem + " did not answer an interrupt of job " + std::to_string(job) +
                     ", so it was restarted: " + restarted_as(*q) + "_"});
        answer = {{{"result", "interrupted"},
                   {"message", "the page did not answer within 2 s, so it was restarted: " + restarted_as(*q) +
                               ", the same log"}}};
      } else {
        const bool node = q && (q->kind == "realm" || q->kind == "node");
        answer = {{{"result", "not-interruptible"},
                   {"message", !node ? "the page did not answer within 2 s: it is running synchronous code, which a "
                                       "browser tab cannot stop; the job ends at its timeout"
                               : !started ? "the job has not started: it waits in the Node process behind another "
                                            "realm's synchronous code, which the process is not restarted for; it "
                                            "ends at its timeout"
                                          : "the realm did not answer within 2 s: synchronous code holds its process "
                                            "(after an await or in a callback, where SIGINT does not reach), which is "
                                            "not restarted for one realm; the job ends at its timeout"}}};
      }
    }
    done(std::move(answer));
  };
  await_answer(*p, job, std::move(answered), refusal({Error::timeout, "the page did not answer within 2 s"}));
}

void Repl::complete(const std::string& page, std::string code, std::function<void(Answer)> done) {
  ask(page, {{"type", "complete"}, {"code", std::move(code)}}, std::move(done));
}

void Repl::ask(const std::string& page, json::object message, std::function<void(Answer)> done) {
  auto found = find(page);
  if (!found) return done(refusal(found.error()));
  Page* p = *found;
  if (!p->link) return done(refusal({Error::not_found, p->stem + " is not connected"}));
  if (p->dialog) return done(refusal({Error::dialog_open, held_by(*p)}));
  const std::uint64_t req = next_job_++;
  message["job"] = req;
  p->link->send(json::serialize(message));
  await_answer(*p, req, std::move(done),
               refusal({Error::timeout, "the page did not answer within 2 s (busy with synchronous code?)"}));
}

void Repl::lookup(const std::string& page, std::string_view what, std::string symbol, std::function<void(Answer)> done) {
  ask(page, {{"type", "lookup"}, {"what", what}, {"symbol", std::move(symbol)}}, std::move(done));
}

Result<void> Repl::input(const std::string& page, Input in) {
  auto found = find(page);
  if (!found) return found.error();
  return send_input(**found, std::move(in));
}

Result<void> Repl::input(std::uint64_t job, Input in) {
  for (auto& [id, p] : pages_)
    if (p->running && p->running->id == job) return send_input(*p, std::move(in));
  return Failure{Error::not_found, "job " + std::to_string(job) + " is not running"};
}

Result<void> Repl::send_input(Page& p, Input in) {
  if (!p.link) return Failure{Error::not_found, p.stem + " is not connected"};
  if (!p.input_job) return Failure{Error::not_found, p.stem + " is not waiting for input"};
  json::object msg{{"type", "stdin"}, {"job", *p.input_job}};
  if (in.eof) msg["eof"] = true;
  else msg["text"] = std::move(in.text);
  p.link->send(json::serialize(msg));
  p.input_job.reset();
  return {};
}

Result<json::object> Repl::modules(const std::string& page) {
  auto found = find(page);
  if (!found) return found.error();
  const Page& p = **found;
  json::object out{{"page", p.stem}, {"modules", p.modules.listed(wall::now())}};
  if (p.modules.forgotten()) out["modules_forgotten"] = p.modules.forgotten();
  return out;
}

Result<std::optional<std::string>> Repl::module_path(const std::string& page, const std::string& module) {
  auto found = find(page);
  if (!found) return found.error();
  const LoadedModule* m = (*found)->modules.find(module);
  return m ? std::optional<std::string>(m->path) : std::nullopt;
}

Result<bool> Repl::unload(const std::string& page, const std::string& module) {
  auto found = find(page);
  if (!found) return found.error();
  return (*found)->modules.unload(module);
}

}  // namespace repl
