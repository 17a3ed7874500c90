// The pages as the concurrent things of the gateway: listed as actors,
// inspected, killed, and a job interrupted by the request that asked for it.
// On the REPL's thread, as all of it.
#include "editproto/unicode.hpp"
#include "record/trailers.hpp"
#include "repl/log.hpp"
#include "repl/page_state.hpp"

#include <boost/json.hpp>

namespace repl {

namespace json = boost::json;

namespace {

// What inspect shows of a page's recent events, and of its queue and code.
constexpr std::size_t recent_kept = 20;
constexpr std::size_t recent_text_bytes = 200;
constexpr std::size_t queue_shown = 10;
constexpr std::size_t code_shown = 200;

std::string head(std::string_view text, std::size_t bytes) {
  return editproto::unicode::to_valid_utf8(text.substr(0, bytes));
}

std::int64_t epoch_seconds(wall::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

}  // namespace

void keep_recent(Repl::Page& p, const Event& e) {
  if (p.recent.size() >= recent_kept) p.recent.pop_front();
  p.recent.push_back(Event{e.source, e.lang, head(e.text, recent_text_bytes), e.ts});
}

json::array Repl::actors() const {
  json::array out;
  for (const auto& [id, p] : pages_) {
    if (!p->link) continue;  // a disconnected page runs nothing
    out.push_back(json::object{
        {"pid", p->stem},
        {"class", p->kind},
        // A tab is where it was loaded from; the Node page's URL is only its
        // folder, so its log says more.
        {"module", p->kind == "node" ? p->log->path() : p->url},
        {"spawned_at", epoch_seconds(p->connected_at)},
        {"state", state_of(*p)},
        {"queued", p->queue.size()},
        {"owned", p->owned},
    });
  }
  return out;
}

Result<json::object> Repl::inspect(const std::string& page) {
  auto found = find(page);
  if (!found) return found.error();
  const Page& p = **found;
  json::object state{{"page", p.stem},   {"id", p.id},       {"kind", p.kind},   {"url", p.url},
                     {"title", p.title}, {"user_agent", p.user_agent},
                     {"state", state_of(p)}, {"dialog", dialog_json(p)},
                     {"log", p.log->path()}, {"events_log", p.log->events_path()},
                     {"spawned_at", epoch_seconds(p.connected_at)}, {"last_seen", clock_text(p.last_seen)},
                     {"queued", p.queue.size()}};
  json::array queue;
  for (std::size_t i = 0; i < p.queue.size() && i < queue_shown; ++i)
    queue.push_back(json::object{{"job", p.queue[i]->id}, {"agent", p.queue[i]->agent}});
  state["queue"] = std::move(queue);
  if (p.running) {
    const Job& j = *p.running;
    state["job"] = json::object{{"job", j.id},
                                {"agent", j.agent},
                                {"block", j.index + 1},
                                {"blocks", j.codes.size()},
                                {"code", head(j.codes[j.index], code_shown)},
                                {"running_ms", elapsed_ms(j.started)},
                                {"timeout_ms", j.timeout.count()},
                                {"waiting_for_input", p.input_job == j.id},
                                {"interrupted", j.interrupted}};
  }
  json::array events;
  for (const Event& e : p.recent) events.push_back(json::object{{"source", e.source}, {"text", e.text}, {"ts", e.ts}});
  state["recent_events"] = std::move(events);
  return json::object{{"state", std::move(state)}};
}

Result<json::object> Repl::kill(const std::string& page) {
  auto found = find(page);
  if (!found) return found.error();
  Page& p = **found;
  if (!p.link) return Failure{Error::not_found, p.stem + " is not connected; there is nothing to stop"};
  // The Node page's transport starts a new process when the old one dies,
  // a realm gets a fresh context, a tab's adapter connects again when its
  // socket closes.
  const bool tab = p.kind == "browser";
  // A realm's fresh context does not stop the code its old one runs on the
  // thread every realm shares: SIGINT does, when it runs synchronously.
  if (p.kind == "realm" && p.running) p.link->interrupt_hard(p.running->id);
  const bool stopped = tab ? (p.link->close(), true) : p.link->restart();
  if (!stopped) return Failure{Error::in_use, p.stem + " could not be stopped: its process is gone already"};
  const std::string next = tab                 ? "its connection was dropped, and the tab's adapter connects again"
                           : p.kind == "realm" ? "a fresh context takes its place, its globals gone"
                                               : "a new process takes its place, its globals gone";
  p.log->note({"> _" + p.stem + " was stopped by an agent's kill at " + clock_text(wall::now()) + ": " + next + "_"});
  log_line("page " + p.stem + " killed by an agent");
  // A running job's failure (context_destroyed) commits the note with its reply.
  if (!p.running) commit(p, {}, p.stem, "kill: " + p.stem + " stopped by an agent", {{record::trailer::kind, "page"}});
  return json::object{{"value", "ok"},
                      {"page", p.stem},
                      {"restart", tab                 ? "the tab's adapter connects again, to the same log"
                                  : p.kind == "realm" ? "the realm starts again as a fresh context, on the same log"
                                                      : "the gateway starts the Node page again, on the same log"}};
}

void Repl::interrupt_job(const std::string& page, std::uint64_t job, std::function<void(Answer)> done) {
  for (const auto& [id, p] : pages_) {
    if (job == 0) break;
    if (p->running && p->running->id == job) return interrupt(id, std::move(done));
    for (const std::shared_ptr<Job>& j : p->queue) {
      if (j->id != job) continue;
      std::shared_ptr<Job> queued = j;  // the queue lets go of it
      fail_queued(*p, *queued, Error::interrupted, "interrupted while it waited in the queue; it never started");
      return done({{{"result", "interrupted"},
                    {"message", "the request waited in " + p->stem + "'s queue; it never started"}}});
    }
  }
  auto found = find(page);
  if (!found) return done(refusal(found.error()));
  const Page& p = **found;
  if (p.dialog && p.link) return interrupt(p.id, std::move(done));  // held: says by what
  if (!p.running || !p.link) return done({{{"result", "idle"}, {"message", "no job is running in " + p.stem}}});
  done({{{"result", "interrupt-id-mismatch"}, {"job", p.running->id}},
        Failure{Error::not_found,
                "no running request has that id; " + p.stem + " runs job " + std::to_string(p.running->id)}});
}

}  // namespace repl
