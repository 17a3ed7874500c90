#include "repl/repl.hpp"

#include "editproto/unicode.hpp"
#include "repl/intake.hpp"
#include "repl/markdown.hpp"
#include "repl/names.hpp"
#include "repl/page_input.hpp"
#include "repl/secrets.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <set>
#include <limits>
#include <dirent.h>
#include <iostream>

namespace repl {

namespace json = boost::json;
using clock = std::chrono::steady_clock;
using wall = std::chrono::system_clock;

namespace {

constexpr auto late_grace = std::chrono::milliseconds(500);  // the page's own timeout answers first
constexpr auto answer_within = std::chrono::seconds(2);      // interrupt and complete
constexpr auto registry_delay = std::chrono::milliseconds(100);  // debug.md follows job states within this
constexpr std::size_t max_registry_live = 100;  // connected pages listed in debug.md

double ms_since(clock::time_point t) {
  return std::chrono::duration<double, std::milli>(clock::now() - t).count();
}

// A block's one duration, in whole milliseconds: from handing its code to
// the page until the gateway has its result, or gives up on it.
std::int64_t elapsed_ms(clock::time_point t) {
  return std::max<std::int64_t>(0, std::llround(ms_since(t)));
}

std::string str(const json::object& o, std::string_view key) {
  if (auto it = o.find(key); it != o.end() && it->value().is_string()) return std::string(it->value().get_string());
  return {};
}

// A final reply refusing a request: the code first, then why.
json::object refusal(const Failure& f) {
  return {{"error", std::string(to_string(f.code)) + ": " + f.message}, {"reason", to_string(f.code)}};
}

std::optional<std::uint64_t> job_of(const json::object& o) {
  auto it = o.find("job");
  if (it == o.end()) return std::nullopt;
  if (it->value().is_uint64()) return it->value().get_uint64();
  if (it->value().is_int64() && it->value().get_int64() >= 0) return static_cast<std::uint64_t>(it->value().get_int64());
  return std::nullopt;
}

// A word of the page's choosing that lands in a fence info string.
std::string token(std::string_view s, std::string_view fallback) {
  std::string out;
  for (char c : s)
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
        c == '_')
      out += c;
  return out.empty() || out.size() > 40 ? std::string(fallback) : out;
}

bool ends_with_footer(std::string_view text) { return ends_with_lines(text, {std::string(footer)}); }

// The instance ids of the logs in `dir` (debug/<name>-<id>.md).
std::set<std::string> log_ids(const std::string& dir) {
  std::set<std::string> ids;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string_view file = e->d_name;
      if (file.size() < 4 || file.substr(file.size() - 3) != ".md") continue;
      file.remove_suffix(3);
      if (const std::size_t dash = file.rfind('-'); dash != std::string_view::npos && valid_id(file.substr(dash + 1)))
        ids.emplace(file.substr(dash + 1));
    }
    ::closedir(d);
  }
  return ids;
}

// Where output past Options::max_events_kept went: nowhere, and the log says so.
std::string dropped_note(std::size_t n, const Options& o) {
  return "(" + std::to_string(n) + " more events were not kept: past " + std::to_string(o.max_events_kept) +
         " events or " + std::to_string(o.max_event_bytes_kept / 1024) + " KiB of output they are only counted)";
}

editgit::Identity page_identity(std::string_view stem) {
  return {std::string(stem), std::string(stem) + "@page.editgate.invalid"};
}

}  // namespace

struct Repl::Job {
  std::uint64_t id = 0;
  std::string agent;
  std::vector<std::string> codes;  // the blocks, run in order
  std::size_t index = 0;           // the block running
  bool from_log = false;           // the request is an agent's text in the log
  bool silent = false;
  Listener listener;
  clock::time_point submitted;
  clock::time_point started;  // the running block's code was handed to the page
  std::string clock_text;          // of the running block's announcement
  std::chrono::milliseconds timeout{0};
  std::unique_ptr<boost::asio::steady_timer> deadline;
  std::vector<Event> events;
  std::size_t events_bytes = 0;  // of the kept events' text
  std::size_t events_dropped = 0;
  std::size_t prompts = 0;  // need-input messages passed on, bounded like the events
  // from_log: segments[0] is the request from its header through its first
  // block; segments[k] the lines after block k-1 through block k.
  std::vector<Lines> segments;
  std::string log_error;  // why the request is not in the log, when it could not be written
  // Timed out: how long it had run when the gateway gave up, while the page's
  // answer to the interrupt tells what became of it (Repl::end_timeout).
  std::optional<std::int64_t> gave_up;
};

struct Repl::Page {
  std::string id, stem, url, title, kind, origin;
  std::unique_ptr<ChatLog> log;
  std::string events_path;
  std::shared_ptr<PageLink> link;
  std::deque<std::shared_ptr<Job>> queue;
  std::shared_ptr<Job> running;
  Lines active;                        // the announcement, background text and placeholder in the log
  std::vector<FileChange> uncommitted;  // placeholder updates, committed with the reply
  std::vector<Event> background;       // events outside jobs, not flushed yet
  std::size_t background_bytes = 0;
  std::size_t background_dropped = 0;
  std::unique_ptr<boost::asio::steady_timer> ticker, background_timer, answer_timer;
  // A job that timed out and whose page has not answered the interrupt
  // since: the queue waits, and a page that stays silent is restarted.
  std::optional<std::uint64_t> unanswered;
  wall::time_point last_seen;
  struct Late {
    std::string agent;
    clock::time_point started;
  };
  std::map<std::uint64_t, Late> late;  // timed out: a reply may still come
  std::map<std::uint64_t, std::function<void(json::object)>> waiting;  // interrupt and complete answers
  std::optional<std::uint64_t> input_job;  // a job waiting on stdin
  Lines draft;  // appended text with a fence still open, the footer moved below it
  // Sequence numbers in the markers: the newest job accepted, and the newest
  // whose reply is committed, with how it ended.
  std::uint64_t acked = 0, completed = 0;
  std::string completed_status;
  // Accepted and not completed yet, with their blocks (status.json's
  // progress); completed out of turn (a queued job cancelled while an older
  // one runs): completed.marker only passes a job once every older one of
  // the page is done too.
  struct Blocks {
    std::size_t total = 1, done = 0;
  };
  std::map<std::uint64_t, Blocks> open;
  std::map<std::uint64_t, std::string> done_early;  // with how each ended
  std::string outcome;  // how its last job ended, for debug.md ("job 7 failed after 60500ms (timeout)")
};

Repl::Repl(const editproto::Workspace& ws, Committer& committer, boost::asio::any_io_executor ex, Options options)
    : ws_(ws),
      committer_(committer),
      ex_(std::move(ex)),
      opt_(options),
      registry_timer_(std::make_unique<boost::asio::steady_timer>(ex_)),
      keys_(opt_.keys_file, [ids = log_ids(ws.root() + "/debug")](const std::string& id) { return ids.count(id) > 0; }),
      provenance_(ws.root()) {}

Repl::~Repl() = default;

// ---- pages -------------------------------------------------------------------

Result<Repl::Page*> Repl::find(const std::string& name) {
  if (auto it = pages_.find(name); it != pages_.end()) return it->second.get();
  for (auto& [id, p] : pages_)
    if (p->stem == name) return p.get();
  // A bare name ("node") names the one live page of that name; two live
  // pages of that name make it ambiguous, never a guess.
  std::vector<std::string> live;
  Page* only = nullptr;
  for (auto& [id, p] : pages_)
    if (p->link && p->stem.substr(0, p->stem.rfind('-')) == name) {
      only = p.get();
      live.push_back(p->stem);
    }
  auto listed = [](std::vector<std::string> names) {
    std::sort(names.begin(), names.end());
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
  };
  if (live.size() > 1)
    return Failure{Error::ambiguous, "'" + name + "' names " + std::to_string(live.size()) +
                                         " live pages (" + listed(live) + "); give the full name or the id"};
  if (only) return only;
  std::vector<std::string> all;
  for (const auto& [id, p] : pages_) all.push_back(p->stem);
  return Failure{Error::not_found, "no page '" + name + "'" +
                                       (all.empty() ? "; no page is connected" : "; the pages are " + listed(all))};
}

Repl::Page* Repl::by_log(const std::string& path) {
  for (auto& [id, p] : pages_)
    if (p->log->path() == path) return p.get();
  return nullptr;
}

bool Repl::is_log(const std::string& path) const {
  for (const auto& [id, p] : pages_)
    if (p->log->path() == path) return true;
  return false;
}

// A token bucket per origin. The built-in Node page is not counted: only
// the gateway starts it, and it keeps one instance.
bool Repl::may_add_page(const std::string& origin) {
  if (origin == "editgate") return true;
  const auto now = clock::now();
  const double burst = static_cast<double>(opt_.new_page_burst);
  if (new_pages_.size() >= 1000)  // origins whose bucket is full again are forgotten
    std::erase_if(new_pages_, [&](const auto& e) {
      return e.second.tokens + std::chrono::duration<double>(now - e.second.at) /
                                   std::chrono::duration<double>(opt_.new_page_every) >= burst;
    });
  if (new_pages_.size() >= 1000 && !new_pages_.count(origin)) return false;
  auto [it, fresh] = new_pages_.try_emplace(origin, Bucket{burst, now});
  Bucket& b = it->second;
  if (!fresh)
    b.tokens = std::min(burst, b.tokens + std::chrono::duration<double>(now - b.at) /
                                              std::chrono::duration<double>(opt_.new_page_every));
  b.at = now;
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

// How many origins' counts of new instances are kept: past it a new origin
// makes no page (its count could not be kept, so neither could its cap).
constexpr std::size_t max_origins = 1000;

// A new instance of `origin` is refused past its cap for the run, or past
// its bucket. The Node page is exempt, as from the bucket.
std::optional<Error> Repl::new_page_refused(const std::string& origin) {
  if (origin == "editgate") return std::nullopt;
  const auto made = made_.find(origin);
  if (made == made_.end() ? made_.size() >= max_origins : made->second >= opt_.max_pages_per_origin)
    return Error::too_many_pages;
  if (!may_add_page(origin)) return Error::rate_limited;
  ++made_[origin];
  return std::nullopt;
}

// The page list is bounded: past max_pages_kept, disconnected pages with no
// work left (nothing queued, running, waiting for its commit or its flush)
// are forgotten, longest gone first. The Node page is kept. A forgotten page
// is where a restart leaves every page: its log and key are on disk, and its
// secret brings it back to them. Pages with work are kept whatever their
// number (connected ones are bounded by the door's sockets).
void Repl::forget_pages() {
  while (pages_.size() >= opt_.max_pages_kept) {
    auto oldest = pages_.end();
    for (auto it = pages_.begin(); it != pages_.end(); ++it) {
      const Page& p = *it->second;
      const bool idle = !p.link && p.kind != "node" && !p.running && p.queue.empty() && p.waiting.empty() &&
                        p.open.empty() && p.completed >= p.acked && p.background.empty() && p.uncommitted.empty() &&
                        p.draft.empty();
      if (idle && (oldest == pages_.end() || p.last_seen < oldest->second->last_seen)) oldest = it;
    }
    if (oldest == pages_.end()) return;
    std::cerr << "editgate: page " + oldest->second->stem + " forgotten (disconnected; its log stays)\n";
    pages_.erase(oldest);
  }
}

namespace {

// The hello's text is the page's: one line each, bounded, before any of it
// is used (page_input.hpp).
Hello clean_hello(const Hello& raw) {
  Hello h = raw;
  h.name = page_line(raw.name, page_bounds::name);
  h.url = page_line(raw.url, page_bounds::url);
  h.title = page_line(raw.title, page_bounds::title);
  h.kind = page_line(raw.kind, page_bounds::word);
  h.origin = page_line(raw.origin, page_bounds::url);
  return h;
}

}  // namespace

Result<Repl::Welcome> Repl::connect(const Hello& raw_hello, std::shared_ptr<PageLink> link) {
  const Hello hello = clean_hello(raw_hello);
  auto refuse = [&](Error code, const std::string& message) -> Result<Welcome> {
    link->send(json::serialize(json::object{{"type", "refused"}, {"error", to_string(code)}, {"message", message}}));
    link->close();
    return Failure{code, message};
  };
  if (stopping_) return refuse(Error::shutting_down, "the gateway is stopping");
  Page* p = nullptr;
  bool returning = false;
  // An instance is taken back only with the secret issued to it, by a page
  // of its kind (the page door's are all browsers). An unknown id and a
  // wrong secret are alike: the page is a new instance, so no answer tells
  // which ids exist. Only the secret's holder hears in_use.
  if (!hello.id.empty() && valid_id(hello.id) && keys_.check(hello.id, hello.kind, hello.secret)) {
    if (auto it = pages_.find(hello.id); it != pages_.end()) {
      p = it->second.get();
      if (p->link)
        return refuse(Error::in_use, "page instance " + hello.id + " is connected on another socket (" + p->url +
                                         "); a second socket may not take it over");
      returning = true;
    } else if (DIR* dir = ::opendir((ws_.root() + "/debug").c_str())) {
      // The gateway restarted: the page comes back to its log.
      const std::string suffix = "-" + hello.id + ".md";
      while (dirent* e = ::readdir(dir)) {
        std::string file = e->d_name;
        if (file.size() > suffix.size() && file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0) {
          auto page = std::make_unique<Page>();
          page->id = hello.id;
          page->stem = file.substr(0, file.size() - 3);
          forget_pages();
          pages_[hello.id] = std::move(page);
          p = pages_[hello.id].get();
          returning = true;
          break;
        }
      }
      ::closedir(dir);
    }
  }
  const std::string& url = hello.url;
  std::string secret;  // issued to a new instance, sent once in its welcome
  if (!p) {
    // The origin is the page door's, normalized.
    if (const auto refused = new_page_refused(hello.origin))
      return refuse(*refused, *refused == Error::rate_limited
                                  ? "too many new pages from " + hello.origin + " lately; connect again in a few seconds"
                                  : "the pages from " + hello.origin + " made as many page instances as one origin " +
                                        "may in this gateway run; come back to one with its id and secret, or " +
                                        "restart the gateway");
    forget_pages();
    std::string id;
    const std::string name = sanitize_name(hello.name.empty() ? hello.title : hello.name);
    for (int tries = 0; tries < 100; ++tries) {
      id = random_hex(id_digits);
      auto st = ws_.stat("debug/" + name + "-" + id + ".md");
      if (!pages_.count(id) && st && !st->exists) break;
    }
    secret = keys_.issue(id, hello.kind == "node" ? "node" : "browser");
    auto page = std::make_unique<Page>();
    page->id = id;
    page->stem = name + "-" + id;
    p = page.get();
    pages_[id] = std::move(page);
  }
  p->link = std::move(link);
  p->url = url;
  p->title = hello.title;
  p->kind = hello.kind == "node" ? "node" : "browser";
  p->origin = hello.origin;
  p->last_seen = wall::now();
  if (!p->log) {
    p->log = std::make_unique<ChatLog>(ws_, "debug/" + p->stem + ".md");
    p->events_path = "debug/" + p->stem + ".events.log";
    p->ticker = std::make_unique<boost::asio::steady_timer>(ex_);
    p->background_timer = std::make_unique<boost::asio::steady_timer>(ex_);
    p->answer_timer = std::make_unique<boost::asio::steady_timer>(ex_);
  }

  auto existing = p->log->read();
  if (existing && *existing) {
    // New to this gateway: what is below the last footer was appended while
    // no gateway watched, and is read as a save once the page is in.
    if (p->log->known().empty()) {
      const std::string& text = **existing;
      const std::string line = "\n" + std::string(footer) + "\n";
      const std::size_t at = text.rfind(line);
      p->log->set_known(at == std::string::npos ? text : text.substr(0, at + line.size()));
    } else {
      p->log->set_known(**existing);
    }
    if (returning)
      note(*p, {"> _" + p->stem + " reconnected at " + clock_text(wall::now()) + " (" + markdown_inline(url) +
                "): a reload, a navigation or a lost connection_"});
    place_footer(*p);
  } else {
    if (before_write) before_write(p->log->path());
    auto made = p->log->create(new_log(p->stem, url, p->stem + ".events.log"));
    if (!made) {
      std::cerr << "editgate: cannot create " + p->log->path() + ": " + made.error().message + "\n";
    } else {
      commit(*p, {std::move(*made)}, p->stem, "page " + p->stem + " connected (" + url + ")", {{"Editgate-Kind", "page"}});
    }
  }
  json::object welcome{{"type", "welcome"}, {"id", p->id}, {"name", p->stem}, {"log", p->log->path()}};
  // The Node page's secret stays with its transport, out of reach of the code it runs.
  if (!secret.empty() && p->kind != "node") welcome["secret"] = secret;
  p->link->send(json::serialize(welcome));
  std::cerr << "editgate: page " + p->stem + " connected (" + p->kind + ", " + url + ")\n";
  write_registry();
  changed(*p, "agent", false);
  pump(*p);
  report(*p);
  return Welcome{p->id, secret};
}

void Repl::disconnect(const std::string& id, const PageLink* link) {
  auto it = pages_.find(id);
  if (it == pages_.end() || it->second->link.get() != link) return;
  Page& p = *it->second;
  p.link.reset();
  p.last_seen = wall::now();
  p.unanswered.reset();  // the queue waits for the page to come back anyway
  p.answer_timer->cancel();
  for (auto& [req, answer] : p.waiting) answer({{"error", "context_destroyed: the page went away"}});
  p.waiting.clear();
  if (p.running)
    fail(p, *p.running, Error::context_destroyed,
         "the page went away (a reload, a navigation or a closed tab) while the job ran");
  std::cerr << "editgate: page " + p.stem + " disconnected\n";
  write_registry();
  report(p);
}

// A job's start and end change a page's state many times a second under
// load: the registry follows within registry_delay, written once for all.
void Repl::registry_changed() {
  if (registry_pending_) return;
  registry_pending_ = true;
  registry_timer_->expires_after(registry_delay);
  registry_timer_->async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    registry_pending_ = false;
    write_registry();
  });
}

// The registry is short: every live page (at most max_registry_live), then
// the disconnected ones seen last (Options::registry_disconnected); the rest
// are counted. Each line says how the page's last job ended.
void Repl::write_registry() {
  std::string text =
      "# Connected pages:\n\n> Master registry of connected pages and states. Do not edit it: the gateway rewrites it. "
      "Open a page's log under debug/ to run code in that page.\n\n";
  std::vector<const Page*> live, gone;
  for (const auto& [id, p] : pages_) (p->link ? live : gone).push_back(p.get());
  std::stable_sort(gone.begin(), gone.end(), [](const Page* a, const Page* b) { return a->last_seen > b->last_seen; });
  auto line = [&](const Page& p) {
    std::string state = !p.link ? "disconnected" : p.running ? "executing job " + std::to_string(p.running->id) : "idle";
    if (!p.outcome.empty() && !(p.link && p.running)) state += ", " + p.outcome;
    text += "* " + p.stem + " (" + markdown_inline(p.url) + ") last " + clock_text(p.last_seen) + " state: " + state +
            " [log](" + p.log->path() + ")\n";
  };
  for (std::size_t i = 0; i < live.size() && i < max_registry_live; ++i) line(*live[i]);
  for (std::size_t i = 0; i < gone.size() && i < opt_.registry_disconnected; ++i) line(*gone[i]);
  const std::size_t more_live = live.size() - std::min(live.size(), max_registry_live);
  const std::size_t more_gone = gone.size() - std::min(gone.size(), opt_.registry_disconnected);
  if (more_live || more_gone) {
    text += "\n(";
    if (more_live) text += std::to_string(more_live) + " more connected pages";
    if (more_live && more_gone) text += " and ";
    if (more_gone) text += std::to_string(more_gone) + " more disconnected pages";
    text += " not listed; their logs are under debug/)\n";
  }
  const std::string_view bytes = text;
  if (auto w = ws_.write_atomic("debug.md", std::span<const std::string_view>(&bytes, 1)); !w)
    std::cerr << "editgate: cannot write debug.md: " + w.error().detail + "\n";
}

boost::json::array Repl::pages() const {
  json::array out;
  for (const auto& [id, p] : pages_) {
    out.push_back(json::object{
        {"page", p->stem},
        {"id", p->id},
        {"kind", p->kind},
        {"url", p->url},
        {"title", p->title},
        {"state", !p->link ? "disconnected" : p->running ? "executing" : "idle"},
        {"log", p->log->path()},
        {"queued", p->queue.size()},
        {"last_seen", clock_text(p->last_seen)},
    });
  }
  return out;
}

// ---- the files of file-driven agents ------------------------------------------

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
void Repl::report(Page& p) {
  if (!files_) return;
  json::object st{{"page", p.stem}, {"log", p.log->path()}, {"connected", p.link != nullptr},
                  {"queued", p.queue.size()}, {"acked", p.acked}, {"completed", p.completed}};
  std::uint64_t job = 0;
  std::string state = "processing", phase, message;
  std::int64_t progress = 0;
  const std::string away = p.link ? "" : "; the page is not connected: its jobs wait for it";
  if (!p.open.empty()) {
    std::size_t total = 0, done = 0;
    for (const auto& [id, b] : p.open) {
      total += b.total;
      done += std::min(b.done, b.total);
    }
    progress = total == 0 ? 100 : static_cast<std::int64_t>(100 * done / total);
    job = p.open.rbegin()->first;
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
    job = p.completed;
    state = job == 0 ? "ready" : p.completed_status == "ok" ? "completed" : "error";
    progress = job == 0 ? 0 : 100;
    message = job == 0 ? "connected and idle" : "job " + std::to_string(job) + " " + (p.completed_status == "ok" ? "completed" : "failed: " + p.completed_status);
  }
  st["state"] = state;
  st["phase"] = phase;
  st["progress"] = progress;
  st["message"] = message;
  st["job"] = job;
  files_->status(p.stem, std::move(st));
  const bool idle = p.link && !p.running && p.queue.empty() && p.completed >= p.acked;
  if (idle)
    files_->marker(p.stem, "ready.marker", p.completed);
  else
    files_->erase("pages/" + p.stem + "/ready.marker");
}

// A reply's commit is made: the chat history's record, and when the job has
// nothing more to run, completed.marker.
void Repl::replied(const std::string& page_id, const Answered& a, const std::string& commit) {
  auto it = pages_.find(page_id);
  if (!files_ || it == pages_.end()) return;
  Page& p = *it->second;
  json::object rec{{"type", "reply"}, {"job", a.job},     {"page", p.stem},
                   {"agent", a.agent}, {"block", a.block}, {"commit", commit.empty() ? json::value() : json::value(commit)}};
  rec["status"] = a.done.contains("reason") ? a.done.at("reason") : json::value("ok");
  for (const char* key : {"value", "error", "exception", "duration_ms", "log_error"})
    if (const auto* v = a.done.if_contains(key)) rec[key == std::string_view("value") ? "result" : key] = *v;
  files_->record(p.stem, std::move(rec));
  if (!a.last) return;
  p.open.erase(a.job);
  p.done_early[a.job] = a.done.contains("reason") ? std::string(a.done.at("reason").as_string()) : "ok";
  const std::uint64_t before = p.completed;
  while (!p.done_early.empty() && (p.open.empty() || p.done_early.begin()->first < p.open.begin()->first)) {
    p.completed = p.done_early.begin()->first;
    p.completed_status = p.done_early.begin()->second;
    p.done_early.erase(p.done_early.begin());
  }
  if (p.completed != before) files_->marker(p.stem, "completed.marker", p.completed);
  report(p);
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

// ---- the log -----------------------------------------------------------------

void Repl::commit(Page& p, std::vector<FileChange> files, const std::string& author, const std::string& summary,
                  std::vector<std::pair<std::string, std::string>> trailers,
                  std::function<void(const std::string& id)> committed) {
  CommitItem item;
  item.files = std::move(p.uncommitted);
  p.uncommitted.clear();
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
  trailers.emplace_back("Editgate-Page", p.stem);
  item.trailers = std::move(trailers);
  committer_.submit(std::move(item));
}

// Text of the gateway's own above the footer (a reconnect, background
// events, a late reply), or at the end while a job runs.
void Repl::note(Page& p, const Lines& lines) {
  if (before_write) before_write(p.log->path());
  Result<FileChange> done = Failure{};
  if (ends_with_footer(p.log->known())) {
    Lines with = lines;
    with.push_back("");
    with.emplace_back(footer);
    done = p.log->replace({std::string(footer)}, with);
  }
  if (!done) {
    Lines with = lines;
    with.insert(with.begin(), "");
    done = p.log->append(with);
  }
  if (done) p.uncommitted.push_back(std::move(*done));
}

void Repl::place_footer(Page& p) {
  if (p.running || ends_with_footer(p.log->known())) return;
  if (before_write) before_write(p.log->path());
  if (auto done = p.log->append({"", std::string(footer)})) p.uncommitted.push_back(std::move(*done));
}

std::vector<FileChange> Repl::log_events(Page& p, const std::vector<Event>& events) {
  if (events.empty()) return {};
  auto now = ws_.read(p.events_path, 64u << 20);
  if (!now) return {};
  std::string before = now->bytes;
  std::string after = before;
  for (const Event& e : events) {
    after += clock_text_ms(e.ts) + " " + e.source + ": ";
    Lines lines = split_lines(clean_page_text(e.text));
    for (std::size_t i = 0; i < lines.size(); ++i) after += (i ? "    " : "") + lines[i] + "\n";
    if (lines.empty()) after += "\n";
  }
  const std::string_view bytes = after;
  if (!ws_.write_atomic(p.events_path, std::span<const std::string_view>(&bytes, 1))) return {};
  FileChange c{p.events_path, now->stamp.exists ? std::optional<std::string>(std::move(before)) : std::nullopt, after};
  return {std::move(c)};
}

// ---- jobs --------------------------------------------------------------------

void Repl::eval(EvalRequest request, Listener listener) {
  auto answer_error = [&](Error code, const std::string& message) { listener.done(refusal({code, message})); };
  if (stopping_) return answer_error(Error::shutting_down, "the gateway is stopping");
  auto found = find(request.page);
  if (!found) return answer_error(found.error().code, found.error().message);
  Page* p = *found;
  auto job = std::make_shared<Job>();
  job->agent = request.agent.empty() ? "agent" : request.agent;
  job->codes = {std::move(request.code)};
  job->silent = request.silent;
  job->timeout = request.timeout.count() > 0 ? request.timeout : opt_.timeout;
  job->listener = std::move(listener);
  submit(*p, std::move(job));
}

void Repl::submit(Page& p, std::shared_ptr<Job> job) {
  if (job->id == 0) job->id = next_job_++;
  job->submitted = clock::now();
  if (p.queue.size() >= opt_.max_queued) {
    if (job->listener.done)
      job->listener.done({{"error", "queue_full: " + std::to_string(p.queue.size()) + " jobs wait for " + p.stem},
                          {"reason", "queue_full"}});
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
  if (!job->silent && files_) {
    p.acked = std::max(p.acked, job->id);
    p.open[job->id] = Page::Blocks{job->codes.size(), 0};
    files_->marker(p.stem, "ack.marker", job->id);
  }
  p.queue.push_back(std::move(job));
  pump(p);
  report(p);
}

void Repl::pump(Page& p) {
  if (p.running || stopping_ || p.unanswered) return;
  if (!p.link || p.queue.empty()) {
    place_footer(p);
    if (!p.uncommitted.empty()) commit(p, {}, p.stem, "footer of " + p.stem, {{"Editgate-Kind", "page"}});
    return;
  }
  std::shared_ptr<Job> job = p.queue.front();
  p.queue.pop_front();
  p.running = job;
  start(p, *job);
}

void Repl::start(Page& p, Job& job) {
  job.started = clock::now();
  job.clock_text = clock_text(wall::now());
  const std::string ann = reply_header(p.stem, job.agent, job.clock_text, "");
  auto send_eval = [&] {
    job.started = clock::now();  // the block's duration starts here
    p.link->send(json::serialize(json::object{{"type", "eval"},
                                              {"job", job.id},
                                              {"code", job.codes[job.index]},
                                              {"timeout_ms", job.timeout.count()}}));
  };
  if (job.silent) {
    send_eval();
  } else if (job.from_log) {
    // The agent's request is in the log already: it runs only if it is
    // still there as accepted, so the announcement goes in first.
    if (before_write) before_write(p.log->path());
    Lines with = job.segments.front();
    with.insert(with.end(), {"", ann, placeholder(0)});
    Result<FileChange> done = p.log->replace(job.segments.front(), with);
    if (!done) {
      // Not run: it fails as a queued job does, and the queue goes on.
      p.queue.push_front(std::move(p.running));
      fail(p, job, Error::log_conflict, "the request could not be placed in the log: " + done.error().message);
      return pump(p);
    }
    p.active = {ann, placeholder(0)};
    // The request itself was committed when it was accepted; its
    // announcement goes with the reply.
    p.uncommitted.push_back(std::move(*done));
    send_eval();
  } else {
    // The page starts at once and the request is written while it runs: the
    // result is handled on this thread, so it always lands under a request
    // that is already in the log.
    send_eval();
    if (before_write) before_write(p.log->path());
    Lines lines{request_header(job.agent, p.stem, job.clock_text)};
    for (std::string& l : fenced("JS", job.codes.front())) lines.push_back(std::move(l));
    lines.insert(lines.end(), {"", ann, placeholder(0)});
    Result<FileChange> done = Failure{};
    if (ends_with_footer(p.log->known())) done = p.log->replace({std::string(footer)}, lines);
    if (!done) {
      lines.insert(lines.begin(), "");
      done = p.log->append(lines);
    }
    if (!done) {
      // Too late to hold the code back: the agent gets its result, told the log missed it.
      job.log_error = "the request could not be placed in the log: " + done.error().message;
      std::cerr << "editgate: job " + std::to_string(job.id) + ": " + job.log_error + "\n";
    } else {
      job.segments = {Lines(lines.begin(), lines.end() - 3)};  // the request, for the recovery rules
      if (job.segments.front().front().empty()) job.segments.front().erase(job.segments.front().begin());
      p.active = {ann, placeholder(0)};
      // The request is committed as it is dispatched, so history shows it before its reply.
      commit(p, {std::move(*done)}, job.agent,
             "request: " + header_name(job.agent) + " to " + p.stem + ", job " + std::to_string(job.id),
             {{"Editgate-Kind", "request"}, {"Editgate-Agent", header_name(job.agent)},
              {"Editgate-Job", std::to_string(job.id)}},
             [this, id = p.id, keep = p.running](const std::string& c) { requested(id, {keep}, c); });
    }
  }
  p.last_seen = wall::now();
  registry_changed();
  p.ticker->expires_after(opt_.placeholder_every);
  p.ticker->async_wait([this, id = p.id](boost::system::error_code ec) {
    if (ec) return;
    if (auto it = pages_.find(id); it != pages_.end()) tick(*it->second);
  });
}

void Repl::tick(Page& p) {
  if (!p.running) return;
  Job& job = *p.running;
  if (!job.silent && !p.active.empty()) {
    Lines now{p.active.front()};
    for (std::string& l : render_events(job.events)) now.push_back(std::move(l));
    now.push_back(placeholder(static_cast<long>(ms_since(job.started) / 1000)));
    if (before_write) before_write(p.log->path());
    if (auto done = p.log->replace(p.active, now)) {
      p.active = std::move(now);
      p.uncommitted.push_back(std::move(*done));
    }
  }
  p.ticker->expires_after(opt_.placeholder_every);
  p.ticker->async_wait([this, id = p.id](boost::system::error_code ec) {
    if (ec) return;
    if (auto it = pages_.find(id); it != pages_.end()) tick(*it->second);
  });
}

Lines Repl::render_result(Page& p, std::uint64_t job, const json::object& msg, std::vector<FileChange>& extra) {
  Lines out;
  auto it = msg.find("ok");
  const bool ok = it != msg.end() && it->value().is_bool() && it->value().get_bool();
  if (ok) {
    const json::value* v = msg.if_contains("value");
    const std::string text = pretty_json(v ? *v : json::value(json::object{{"$undefined", true}}));
    if (text.size() <= opt_.inline_result_bytes) return fenced("JSON", text);
    // Too long for a log an LLM reads whole: the value goes to a side file.
    const std::string file = "debug-archive/" + p.stem + "-job" + std::to_string(job) + "-" + random_hex(4) + ".json";
    ChatLog archive(ws_, file);
    if (auto made = archive.create(split_lines(text + "\n"))) extra.push_back(std::move(*made));
    std::string head = text.substr(0, 1000);
    while (!head.empty() && (static_cast<unsigned char>(head.back()) & 0xC0) == 0x80) head.pop_back();
    if (!head.empty() && static_cast<unsigned char>(head.back()) >= 0xC0) head.pop_back();
    out.push_back("The result is " + std::to_string(text.size()) + " bytes of JSON, in [" + file + "](../" + file +
                  "); it begins:");
    for (std::string& l : fenced("Text", clean_page_text(head + "\n…"))) out.push_back(std::move(l));
    return out;
  }
  const json::object* err = msg.if_contains("error") && msg.at("error").is_object() ? &msg.at("error").get_object() : nullptr;
  std::string name = err ? str(*err, "name") : "", message = err ? str(*err, "message") : "",
              stack = err ? str(*err, "stack") : "";
  std::string text = !stack.empty() ? stack : (name.empty() ? "Error" : name) + ": " + message;
  if (!stack.empty() && stack.find(message) == std::string::npos) text = name + ": " + message + "\n" + stack;
  return fenced("Error", clean_page_text(text));
}

void Repl::on_result(Page& p, const json::object& msg) {
  auto id = job_of(msg);
  if (!id) return;
  auto ok_it = msg.find("ok");
  const bool ok = ok_it != msg.end() && ok_it->value().is_bool() && ok_it->value().get_bool();
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
    Lines lines{reply_header(p.stem, agent, clock_text(wall::now()),
                             std::string(ok ? "" : "**ERROR** ") + "late, " + duration_text(static_cast<double>(after)) +
                                 " after the request")};
    for (std::string& l : render_result(p, *id, msg, extra)) lines.push_back(std::move(l));
    note(p, lines);
    late_outcome(p, *id, after);
    commit(p, std::move(extra), p.stem, "late reply: " + p.stem + " to " + header_name(agent) + ", job " + std::to_string(*id),
           {{"Editgate-Kind", "reply"}, {"Editgate-Agent", header_name(agent)}, {"Editgate-Job", std::to_string(*id)},
            {"Editgate-Duration", std::to_string(after) + "ms"}, {"Editgate-Status", "late"}});
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
  Lines reply{reply_header(p.stem, job.agent, job.clock_text,
                           ok ? duration_text(static_cast<double>(ms)) : "**ERROR** after " + duration_text(static_cast<double>(ms)))};
  for (std::string& l : render_result(p, job.id, msg, extra)) reply.push_back(std::move(l));
  for (std::string& l : render_events(job.events)) reply.push_back(std::move(l));
  if (job.events_dropped) reply.push_back(dropped_note(job.events_dropped, opt_));
  for (FileChange& c : log_events(p, job.events)) extra.push_back(std::move(c));

  json::object done{{"page", p.stem}, {"job", job.id}, {"log", p.log->path()}};
  if (ok) {
    const json::value* v = msg.if_contains("value");
    done["value"] = v ? *v : json::value(json::object{{"$undefined", true}});
  } else {
    json::object exception = msg.if_contains("error") && msg.at("error").is_object() ? msg.at("error").get_object()
                                                                                      : json::object{};
    done["error"] = str(exception, "name") + ": " + str(exception, "message");
    done["reason"] = "page_error";
    done["exception"] = std::move(exception);
  }
  for (FileChange& c : extra) p.uncommitted.push_back(std::move(c));
  finish(p, job, ms, std::move(reply), std::move(done), !ok);
}

// debug.md's line for a late reply to job `id`, `after` ms after its request.
void Repl::late_outcome(Page& p, std::uint64_t id, std::int64_t after) {
  const std::string job = "job " + std::to_string(id) + " ";
  if (!p.outcome.starts_with(job)) p.outcome = job + "timed out";
  p.outcome += ", late reply after " + std::to_string(after) + "ms";
  registry_changed();
}

void Repl::finish(Page& p, Job& job, std::int64_t ms, Lines reply, json::object done, bool error) {
  p.ticker->cancel();
  p.input_job.reset();
  const bool more = job.from_log && job.index + 1 < job.codes.size() && p.link;
  done["duration_ms"] = ms;
  if (auto open = p.open.find(job.id); open != p.open.end())
    open->second.done = more ? job.index + 1 : open->second.total;
  if (!job.silent && !p.active.empty()) {
    if (before_write) before_write(p.log->path());
    // ack.marker is on disk before a reply can be read: a file agent that
    // sees the reply also sees its job's number. (An eval op's agent hears
    // the reply itself: its path does not wait for the status files.)
    if (files_ && job.from_log) files_->flush();
    Result<FileChange> written = Failure{};
    if (more) {
      // The next block starts in the same edit: its announcement goes under it.
      const Lines& next = job.segments[job.index + 1];
      Lines old = p.active, now = reply;
      old.insert(old.end(), next.begin(), next.end());
      if (!next.empty() && !next.front().empty()) now.emplace_back();  // one blank line under a finished reply
      now.insert(now.end(), next.begin(), next.end());
      job.clock_text = clock_text(wall::now());
      const std::string ann = reply_header(p.stem, job.agent, job.clock_text, "");
      now.insert(now.end(), {"", ann, placeholder(0)});
      written = p.log->replace(old, now);
      if (written) p.active = {ann, placeholder(0)};
    } else {
      // Nothing more to run: the footer comes back in the same edit, unless
      // the gateway noted something below the running job meanwhile.
      Lines now = reply;
      if (!job.from_log && p.queue.empty() && ends_with_lines(p.log->known(), p.active))
        now.insert(now.end(), {"", std::string(footer)});
      written = p.log->replace(p.active, now, true);
      p.active.clear();
    }
    if (!written) {
      std::cerr << "editgate: the reply to job " + std::to_string(job.id) + " could not be written: " +
                       written.error().message + "\n";
      note(p, {"> _the reply to job " + std::to_string(job.id) +
               " could not be placed under its request (the log was edited meanwhile); it follows here_"});
      note(p, reply);
      p.active.clear();
    } else {
      p.uncommitted.push_back(std::move(*written));
    }
    if (!done.contains("log")) done["log"] = p.log->path();
  }
  if (!job.log_error.empty()) done["log_error"] = job.log_error;
  if (job.events_dropped) done["events_dropped"] = job.events_dropped;
  const std::string status = done.contains("reason") ? std::string(done.at("reason").as_string()) : "ok";
  done["status"] = error ? json::array{"done", "error"} : json::array{"done"};
  if (!job.silent && !more)
    p.outcome = "job " + std::to_string(job.id) +
                (error ? " failed after " + std::to_string(ms) + "ms (" + status + ")"
                       : " completed in " + std::to_string(ms) + "ms");
  Answered answered{job.id, job.agent, job.index + 1, done, !more};
  // The agent hears as soon as the reply is in the file; git comes after.
  if (job.listener.done) job.listener.done(std::move(done));
  job.listener = {};
  std::shared_ptr<Job> keep = p.running;  // the job outlives this function's use of it
  if (!more) {
    p.running.reset();
    if (p.queue.empty()) place_footer(p);  // committed with the reply
  }
  if (!job.silent)
    commit(p, {}, p.stem,
           "reply: " + p.stem + " to " + header_name(job.agent) + ", job " + std::to_string(job.id) + " (" +
               (error ? "ERROR after " : "") + duration_text(static_cast<double>(ms)) + ")",
           {{"Editgate-Kind", "reply"},
            {"Editgate-Agent", header_name(job.agent)},
            {"Editgate-Job", std::to_string(job.id)},
            {"Editgate-Duration", std::to_string(ms) + "ms"},
            {"Editgate-Status", status}},
           [this, id = p.id, answered = std::move(answered)](const std::string& c) { replied(id, answered, c); });
  if (more && p.link) {
    ++job.index;
    job.events.clear();
    job.events_bytes = 0;
    job.events_dropped = 0;
    job.prompts = 0;
    job.started = clock::now();  // the block's duration starts here
    p.link->send(json::serialize(json::object{{"type", "eval"},
                                              {"job", job.id},
                                              {"code", job.codes[job.index]},
                                              {"timeout_ms", job.timeout.count()}}));
    p.ticker->expires_after(opt_.placeholder_every);
    p.ticker->async_wait([this, id = p.id](boost::system::error_code ec) {
      if (ec) return;
      if (auto it = pages_.find(id); it != pages_.end()) tick(*it->second);
    });
    report(p);
    return;
  }
  if (job.deadline) job.deadline->cancel();
  registry_changed();
  pump(p);
  report(p);
}

// A job past its deadline: the page was told to stop, and `what` says what
// became of it (its answer, its silence, a restart), so the log promises a
// late reply only where one can still come (`late_possible`). `late` is a
// result that came meanwhile: it is written under the timeout as a late reply.
void Repl::end_timeout(Page& p, Job& job, const std::string& what, const json::object* late, bool late_possible) {
  p.answer_timer->cancel();
  const std::int64_t ms = job.gave_up.value_or(elapsed_ms(job.started));
  const std::string error = "timeout: no reply within " + std::to_string(job.timeout.count()) + " ms; " + what;
  job.from_log = false;  // later blocks of the request do not run
  Lines reply{reply_header(p.stem, job.agent, job.clock_text, "**ERROR** timeout after " + duration_text(static_cast<double>(ms)))};
  for (std::string& l : fenced("Error", error)) reply.push_back(std::move(l));
  for (std::string& l : render_events(job.events)) reply.push_back(std::move(l));
  if (job.events_dropped) reply.push_back(dropped_note(job.events_dropped, opt_));
  for (FileChange& c : log_events(p, job.events)) p.uncommitted.push_back(std::move(c));
  std::int64_t after = 0;
  if (late) {
    after = elapsed_ms(job.started);
    std::vector<FileChange> extra;
    auto ok = late->find("ok");
    reply.push_back("");
    reply.push_back(reply_header(p.stem, job.agent, clock_text(wall::now()),
                                 std::string(ok != late->end() && ok->value().is_bool() && ok->value().get_bool() ? "" : "**ERROR** ") + "late, " +
                                     duration_text(static_cast<double>(after)) + " after the request"));
    for (std::string& l : render_result(p, job.id, *late, extra)) reply.push_back(std::move(l));
    for (FileChange& c : extra) p.uncommitted.push_back(std::move(c));
  }
  if (late_possible) p.late[job.id] = {job.agent, job.started};
  const std::uint64_t id = job.id;
  finish(p, job, ms, std::move(reply),
         {{"page", p.stem}, {"job", job.id}, {"error", error}, {"reason", to_string(Error::timeout)}}, true);
  if (late) late_outcome(p, id, after);
}

void Repl::fail(Page& p, Job& job, Error code, const std::string& message) {
  json::object done{{"page", p.stem},
                    {"job", job.id},
                    {"error", std::string(to_string(code)) + ": " + message},
                    {"reason", to_string(code)}};
  if (p.running.get() == &job) {
    if (job.gave_up)  // timed out already, and the page had not answered yet
      return end_timeout(p, job,
                         code == Error::shutting_down
                             ? "the gateway stopped before the page answered being told to stop"
                             : "the page was told to stop, and then: " + message + "; no reply will follow");
    if (code == Error::timeout && p.link) {
      // The page is told to stop; what it answers (or its silence) says
      // what became of the job, and the timeout reply says that.
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
        if (q.link && q.link->restart()) {
          q.unanswered = job;
          return end_timeout(q, *q.running,
                             "the page did not answer being told to stop within 2 s (it was stuck in code nothing "
                             "reaches), so it was restarted: a new process, its globals gone; no reply will follow");
        }
        end_timeout(q, *q.running,
                    "the page did not answer being told to stop within 2 s: it is busy with synchronous code, which "
                    "a browser tab cannot stop; if that code ends, its result is written below as a late reply",
                    nullptr, true);
      });
      return;
    }
    const bool cancelled = code == Error::request_edited || code == Error::log_conflict;
    if (cancelled && p.link) {
      // Async work the page may still await is abandoned; the next job waits for the page.
      p.link->interrupt_hard();
      p.link->send(json::serialize(json::object{{"type", "interrupt"}, {"job", job.id}}));
      wait_for_answer(p, job);
    }
    job.from_log = false;  // later blocks of the request do not run
    const std::int64_t ms = elapsed_ms(job.started);
    Lines reply{reply_header(p.stem, job.agent, job.clock_text,
                             "**ERROR** " + std::string(to_string(code)) + " after " + duration_text(static_cast<double>(ms)))};
    for (std::string& l : fenced("Error", std::string(to_string(code)) + ": " + message)) reply.push_back(std::move(l));
    for (std::string& l : render_events(job.events)) reply.push_back(std::move(l));
    if (job.events_dropped) reply.push_back(dropped_note(job.events_dropped, opt_));
    for (FileChange& c : log_events(p, job.events)) p.uncommitted.push_back(std::move(c));
    return finish(p, job, ms, std::move(reply), std::move(done), true);
  }
  // Still queued: it never ran.
  auto it = std::find_if(p.queue.begin(), p.queue.end(), [&](const auto& j) { return j.get() == &job; });
  if (it == p.queue.end()) return;
  std::shared_ptr<Job> keep = *it;
  p.queue.erase(it);
  if (job.deadline) job.deadline->cancel();
  if (auto open = p.open.find(job.id); open != p.open.end()) open->second.done = open->second.total;
  if (job.from_log && !job.segments.empty()) {
    if (before_write) before_write(p.log->path());
    Lines now = job.segments.front();
    now.push_back("");
    now.push_back(reply_header(p.stem, job.agent, clock_text(wall::now()), "**ERROR** " + std::string(to_string(code)) +
                                                                               ", never started"));
    for (std::string& l : fenced("Error", std::string(to_string(code)) + ": " + message)) now.push_back(std::move(l));
    if (auto written = p.log->replace(job.segments.front(), now, true))
      p.uncommitted.push_back(std::move(*written));
    else  // the request is not there as accepted: the reply goes at the end
      note(p, Lines(now.begin() + static_cast<std::ptrdiff_t>(job.segments.front().size() + 1), now.end()));
  }
  done["status"] = json::array{"done", "error"};
  if (!job.silent) {
    p.outcome = "job " + std::to_string(job.id) + " failed (" + std::string(to_string(code)) + ", never started)";
    registry_changed();
    commit(p, {}, p.stem, "reply: " + p.stem + " never ran job " + std::to_string(job.id),
           {{"Editgate-Kind", "reply"}, {"Editgate-Job", std::to_string(job.id)}, {"Editgate-Status", std::string(to_string(code))}},
           [this, id = p.id, answered = Answered{job.id, job.agent, 1, done, true}](const std::string& c) {
             replied(id, answered, c);
           });
  }
  if (job.listener.done) job.listener.done(std::move(done));
  job.listener = {};
  report(p);
}

// ---- page messages -----------------------------------------------------------

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
  if (type == "result") return on_result(p, msg);
  if (type == "event") return on_event(p, msg);
  if (type == "interrupted" && p.running && p.running->gave_up && job_of(msg) == p.running->id)
    end_timeout(p, *p.running,
                str(msg, "status") == "idle"
                    ? "the page was told to stop and said it ran no such job; no reply will follow"
                    : "the page was told to stop and stopped it; no reply will follow");
  if (type == "interrupted" || type == "completions") {
    auto job = job_of(msg);
    if (!job) return;
    auto w = p.waiting.find(*job);
    if (w == p.waiting.end()) return;
    auto answer = std::move(w->second);
    p.waiting.erase(w);
    json::object out;
    if (type == "interrupted") {
      out["result"] = str(msg, "status").empty() ? "interrupted" : str(msg, "status");
      out["message"] = str(msg, "message");
    } else {
      json::array items;
      if (auto* list = msg.if_contains("items"); list && list->is_array())
        for (const auto& item : list->get_array())
          if (item.is_string() && items.size() < 1000) items.push_back(item);
      out["items"] = std::move(items);
    }
    return answer(std::move(out));
  }
  if (type == "need-input") {
    auto job = job_of(msg);
    if (!job || !p.running || p.running->id != *job) return;
    p.input_job = *job;
    if (++p.running->prompts > opt_.max_events_kept) return void(++p.running->events_dropped);
    if (p.running->listener.out)
      p.running->listener.out({{"need-input", editproto::unicode::to_valid_utf8(str(msg, "prompt").substr(0, 4096))},
                               {"page", p.stem}});
  }
}

void Repl::on_event(Page& p, const json::object& msg) {
  Event e;
  e.source = token(str(msg, "source"), "console.log");
  const std::string lang = str(msg, "lang");
  e.lang = lang == "JSON" || lang == "Error" ? lang : "Text";
  e.text = str(msg, "text");
  // A time the page cannot have meant (page_time) was left out: the gateway's own.
  auto ts = msg.find("ts");
  e.ts = ts != msg.end() && ts->value().is_int64()
             ? ts->value().get_int64()
             : std::chrono::duration_cast<std::chrono::milliseconds>(wall::now().time_since_epoch()).count();
  // A flood of output costs a count, not memory: what is past the bound is
  // neither kept nor passed on.
  auto fits = [&](const std::vector<Event>& kept, std::size_t bytes) {
    return kept.size() < opt_.max_events_kept && bytes + e.text.size() <= opt_.max_event_bytes_kept;
  };
  if (p.running) {
    Job& job = *p.running;
    if (!fits(job.events, job.events_bytes)) {
      ++job.events_dropped;
      return;
    }
    if (job.listener.out) job.listener.out({{"out", e.text}, {"source", e.source}, {"page", p.stem}});
    job.events_bytes += e.text.size();
    job.events.push_back(std::move(e));
    return;
  }
  // Outside a job: gathered for a second, then written on their own.
  if (!fits(p.background, p.background_bytes)) {
    ++p.background_dropped;
    return;
  }
  p.background_bytes += e.text.size();
  p.background.push_back(std::move(e));
  if (p.background.size() == 1) {
    p.background_timer->expires_after(std::chrono::seconds(1));
    p.background_timer->async_wait([this, id = p.id](boost::system::error_code ec) {
      if (ec) return;
      if (auto it = pages_.find(id); it != pages_.end()) flush_background(*it->second);
    });
  }
}

void Repl::flush_background(Page& p) {
  if (p.background.empty()) return;
  std::vector<Event> events = std::move(p.background);
  p.background.clear();
  const std::size_t bytes = std::exchange(p.background_bytes, 0), dropped = std::exchange(p.background_dropped, 0);
  if (p.running) {
    // A job started meanwhile: they belong to it now.
    for (Event& e : events) p.running->events.push_back(std::move(e));
    p.running->events_bytes += bytes;
    p.running->events_dropped += dropped;
    return;
  }
  Lines lines{"> **" + p.stem + "** background at " + clock_text(wall::now())};
  for (std::string& l : render_events(events)) lines.push_back(std::move(l));
  if (dropped) lines.push_back(dropped_note(dropped, opt_));
  note(p, lines);
  commit(p, log_events(p, events), p.stem, "background: " + std::to_string(events.size()) + " events of " + p.stem,
         {{"Editgate-Kind", "background"}});
}

// ---- interrupt, complete, stdin ------------------------------------------------

// The page's answer to `req` goes to `done`; `otherwise` does, if none comes in time.
void Repl::await_answer(Page& p, std::uint64_t req, std::function<void(json::object)> done, json::object otherwise) {
  p.waiting[req] = std::move(done);
  auto timer = std::make_shared<boost::asio::steady_timer>(ex_, answer_within);
  timer->async_wait([this, id = p.id, req, timer, otherwise = std::move(otherwise)](boost::system::error_code) mutable {
    auto it = pages_.find(id);
    if (it == pages_.end()) return;
    auto w = it->second->waiting.find(req);
    if (w == it->second->waiting.end()) return;
    auto answer = std::move(w->second);
    it->second->waiting.erase(w);
    answer(std::move(otherwise));
  });
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
    if (q.link && q.link->restart()) {
      note(q, {"> _" + q.stem + " did not answer after job " + std::to_string(job) +
               " was cancelled, so it was restarted: a new process, its globals gone_"});
      commit(q, {}, q.stem, "page " + q.stem + " restarted: silent after job " + std::to_string(job) + " was cancelled",
             {{"Editgate-Kind", "page"}, {"Editgate-Job", std::to_string(job)}});
      return;  // the queue goes on when it is back
    }
    pump(q);
  });
}

void Repl::interrupt(const std::string& page, std::function<void(json::object)> done) {
  auto found = find(page);
  if (!found) return done(refusal(found.error()));
  Page* p = *found;
  if (!p->running || !p->link) return done({{"result", "idle"}, {"message", "no job is running in " + page}});
  const std::uint64_t job = p->running->id;
  // SIGINT stops synchronous Node code; the message ends an await.
  p->link->interrupt_hard();
  p->link->send(json::serialize(json::object{{"type", "interrupt"}, {"job", job}}));
  // No answer: the page is stuck in code nothing reaches (a tab's loop, or
  // Node code running after an await). A page that can be restarted is.
  auto answered = [this, id = p->id, job, done = std::move(done)](json::object answer) {
    auto it = pages_.find(id);
    if (answer.contains("unanswered")) {
      Page* q = it == pages_.end() ? nullptr : it->second.get();
      if (q && q->link && q->running && q->running->id == job && q->link->restart()) {
        note(*q, {"> _" + q->stem + " did not answer an interrupt of job " + std::to_string(job) +
                  ", so it was restarted: a new process, its globals gone_"});
        answer = {{"result", "interrupted"},
                  {"message", "the page did not answer within 2 s, so it was restarted: a new process, its "
                              "globals gone, the same log"}};
      } else {
        answer = {{"result", "not-interruptible"},
                  {"message", "the page did not answer within 2 s: it is running synchronous code, which a "
                              "browser tab cannot stop; the job ends at its timeout"}};
      }
    }
    done(std::move(answer));
  };
  await_answer(*p, job, std::move(answered), {{"unanswered", true}});
}

void Repl::complete(const std::string& page, std::string code, std::function<void(json::object)> done) {
  auto found = find(page);
  if (!found) return done(refusal(found.error()));
  Page* p = *found;
  if (!p->link) return done(refusal({Error::not_found, p->stem + " is not connected"}));
  const std::uint64_t req = next_job_++;
  p->link->send(json::serialize(json::object{{"type", "complete"}, {"job", req}, {"code", std::move(code)}}));
  await_answer(*p, req, std::move(done),
               {{"error", "timeout: the page did not answer within 2 s (busy with synchronous code?)"},
                {"reason", "timeout"}});
}

Result<void> Repl::input(const std::string& page, std::string text) {
  auto found = find(page);
  if (!found) return found.error();
  Page* p = *found;
  if (!p->link) return Failure{Error::not_found, p->stem + " is not connected"};
  if (!p->input_job) return Failure{Error::not_found, p->stem + " is not waiting for input"};
  p->link->send(json::serialize(json::object{{"type", "stdin"}, {"job", *p->input_job}, {"text", std::move(text)}}));
  p->input_job.reset();
  return {};
}

// ---- the edit path -------------------------------------------------------------

void Repl::written(const std::string& path, const std::string& agent) {
  if (Page* p = by_log(path)) changed(*p, agent, true);
}

void Repl::saved(const std::string& path) {
  if (Page* p = by_log(path)) changed(*p, "agent", false);
}

void Repl::changed(Page& p, const std::string& agent, bool door) {
  // A save the gateway's own write was applied on top of is read first,
  // then whatever changed since.
  for (int round = 0; round < 4; ++round) {
    std::string seen, found;
    bool saved = !door;
    if (auto u = p.log->take_unseen()) {
      seen = std::move(u->known);
      found = std::move(u->found);
      saved = true;  // someone else's change, under the gateway's own write
    } else {
      auto now = p.log->read();
      if (!now || !*now || **now == p.log->known()) return;
      seen = p.log->known();
      found = std::move(**now);
      p.log->set_known(found);  // seen now: the gateway's next write starts from it
    }
    auto jobs = take_requests(p, seen, found, agent, saved);
    check_jobs(p);
    for (auto& job : jobs) submit(p, std::move(job));
  }
}

// The requests in what was appended to `seen`, accepted (the footer goes,
// missing headers are written in) and numbered; the caller submits them.
std::vector<std::shared_ptr<Repl::Job>> Repl::take_requests(Page& p, const std::string& seen, const std::string& found,
                                                            const std::string& agent, bool saved) {
  const std::string& path = p.log->path();
  const Appended a = read_appended(seen, found, p.draft);
  p.draft.clear();
  if (a.edited_above) {
    std::cerr << "editgate: " + path + " was edited above its end; nothing there is run\n";
    return {};
  }
  auto rewrite = [&](Lines now) -> Result<FileChange> {
    while (!now.empty() && now.back().empty()) now.pop_back();
    if (a.old == now) return Failure{Error::log_conflict, "unchanged"};
    if (a.old.empty()) return Failure{Error::log_conflict, "nothing appended"};
    if (before_write) before_write(path);
    return p.log->replace(a.old, now);
  };
  if (a.tail.empty()) return {};

  if (a.scan.draft) {
    // A fence is still open: nothing runs, and the footer goes below the
    // draft, so the log's end is the anchor again. The draft may still be
    // finished in place.
    p.draft = a.tail;
    if (a.had_footer) {
      Lines now = a.before;
      now.insert(now.end(), a.tail.begin(), a.tail.end());
      now.insert(now.end(), {"", std::string(footer)});
      if (auto done = rewrite(now)) p.uncommitted.push_back(std::move(*done));
    }
    return {};
  }
  // Text that came with git never runs: how much of the log did is asked
  // once there is a request. When git cannot say, nothing runs.
  std::optional<Provenance> from_git;
  auto with_git = [&](std::size_t tail_line) {
    if (!from_git) {
      auto asked = provenance_.of(path, found, split_lines(found), saved);
      from_git = asked ? *asked
                       : Provenance{std::numeric_limits<std::size_t>::max(),
                                    "git could not tell whether it came with a commit (" + asked.error().message + ")"};
    }
    return a.origin[tail_line] < from_git->committed;
  };
  auto came_with_git = [&](const Request& r) -> std::optional<std::string> {
    if (with_git(r.blocks.front().first)) return not_run_note(p.stem, from_git->why);
    return std::nullopt;
  };
  Accepted accepted = accept_requests(
      a, agent, p.stem,
      [&](const std::string& who, const std::string& at) {
        return request_header(who, p.stem, at.empty() ? clock_text(wall::now()) : at);
      },
      came_with_git);
  // Headers that start nothing (a reply someone else wrote, a request with
  // no block) get a note under the appended text, unless git brought them
  // (history, like the requests it brings).
  std::vector<Unrun> unrun = unrun_headers(a);
  std::erase_if(unrun, [&](const Unrun& u) { return with_git(u.line); });
  Lines notes;
  for (std::string& n : unrun_notes(unrun)) notes.insert(notes.end(), {"", std::move(n)});
  std::vector<std::shared_ptr<Job>> jobs;
  for (AcceptedRequest& r : accepted.requests) {
    auto job = std::make_shared<Job>();
    job->agent = std::move(r.agent);
    job->from_log = true;
    job->timeout = opt_.timeout;
    job->segments = std::move(r.segments);
    job->codes = std::move(r.codes);
    jobs.push_back(std::move(job));
  }
  if (jobs.empty() && accepted.refused == 0) {
    // Nothing to run: the text stays as it is, with the notes under it, and
    // the footer goes below it (one footer, the last line; while a job runs
    // it comes back under the reply). What git brought is left as it came.
    if (with_git(a.tail.size() - 1)) return {};
    Lines now = a.before;
    now.insert(now.end(), a.tail.begin(), a.tail.end());
    now.insert(now.end(), notes.begin(), notes.end());
    if (!p.running) now.insert(now.end(), {"", std::string(footer)});
    auto done = rewrite(now);
    if (!done) return {};
    if (notes.empty()) {
      p.uncommitted.push_back(std::move(*done));  // committed with the next exchange
    } else {
      std::cerr << "editgate: " + path + ": appended headers that start nothing, noted in the log\n";
      commit(p, {std::move(*done)}, p.stem, "page " + p.stem + ": a note on text appended to its log",
             {{"Editgate-Kind", "page"}});
    }
    return {};
  }
  Lines& normal = accepted.normal;  // the tail with the headers the agent left out and the notes
  normal.insert(normal.end(), notes.begin(), notes.end());
  if (jobs.empty()) {
    // Nothing runs: the notes go in, and the footer back at the end.
    std::cerr << "editgate: " + path + ": " + std::to_string(accepted.refused) +
                     " request(s) that came with git not run (" + from_git->why + ")\n";
    if (!p.running) normal.insert(normal.end(), {"", std::string(footer)});
    if (auto done = rewrite(normal))
      commit(p, {std::move(*done)}, p.stem,
             "page " + p.stem + ": " + std::to_string(accepted.refused) + " request(s) that came with git not run",
             {{"Editgate-Kind", "page"}});
    return {};
  }
  // Numbered now, so the request's commit names its jobs as the eval op's does.
  std::string numbers;
  std::vector<std::pair<std::string, std::string>> trailers{{"Editgate-Kind", "request"},
                                                            {"Editgate-Agent", header_name(jobs.front()->agent)}};
  for (auto& job : jobs) {
    job->id = next_job_++;
    numbers += (numbers.empty() ? "" : ", ") + std::to_string(job->id);
    trailers.emplace_back("Editgate-Job", std::to_string(job->id));
  }
  // Accepted: the footer goes (it comes back under the last reply), and
  // missing headers are written in, in one edit of the agent's text. The
  // text as saved is committed first, as the repository user's (the git
  // layer's earlier state), when nobody committed it.
  std::vector<FileChange> files;
  Result<FileChange> done = rewrite(normal);
  if (done) {
    files.push_back(std::move(*done));
  } else if (done.error().message != "unchanged") {
    std::cerr << "editgate: the request in " + path + " could not be accepted: " + done.error().message + "\n";
    return {};
  } else {
    // Nothing to change: the text as saved is what is committed (an agent's
    // edit run commits its own first).
    if (before_write) before_write(path);
    files.push_back(FileChange{path, found, found});
  }
  commit(p, std::move(files), jobs.front()->agent,
         "request: " + header_name(jobs.front()->agent) + " to " + p.stem + (jobs.size() == 1 ? ", job " : ", jobs ") +
             numbers,
         std::move(trailers), [this, id = p.id, jobs](const std::string& c) { requested(id, jobs, c); });
  return jobs;
}

namespace {
bool contains_lines(const Lines& hay, const Lines& needle) {
  if (needle.empty()) return true;
  return std::search(hay.begin(), hay.end(), needle.begin(), needle.end()) != hay.end();
}
}  // namespace

// The chat-log recovery rules, against the log as it is now: a request edited
// after it was accepted is cancelled; a running job whose announcement was
// edited away gets it back under its request.
void Repl::check_jobs(Page& p) {
  auto now = p.log->read();
  if (!now || !*now) return;
  const Lines lines = split_lines(**now);
  const std::string edited = "the request was edited in " + p.log->path() +
                             " after the gateway accepted it, so it does not run; append it again to run it";
  std::vector<std::shared_ptr<Job>> queued(p.queue.begin(), p.queue.end());
  for (auto& job : queued) {
    if (!job->from_log) continue;
    for (const Lines& seg : job->segments)
      if (!contains_lines(lines, seg)) {
        fail(p, *job, Error::request_edited, edited);
        break;
      }
  }
  if (!p.running || p.running->silent || p.active.empty()) return;
  std::shared_ptr<Job> job = p.running;
  for (std::size_t k = job->from_log ? job->index : 0; k < job->segments.size(); ++k)
    if (!contains_lines(lines, job->segments[k])) return fail(p, *job, Error::request_edited, edited);
  if (contains_lines(lines, p.active)) return;
  const Lines& request = job->segments[job->from_log ? job->index : 0];
  // What is left of the announcement under the request goes with it.
  Lines old = request;
  {
    auto at = std::search(lines.begin(), lines.end(), request.begin(), request.end()) + static_cast<std::ptrdiff_t>(request.size());
    auto end = at;
    while (end != lines.end() && end->empty()) ++end;
    if (end != lines.end() && *end == p.active.front()) {
      while (end != lines.end() && (end->empty() || std::find(p.active.begin(), p.active.end(), *end) != p.active.end()))
        ++end;
      while (end != at && (end - 1)->empty()) --end;
      old.insert(old.end(), at, end);
    }
  }
  Lines with = request;
  with.push_back("");
  with.insert(with.end(), p.active.begin(), p.active.end());
  if (before_write) before_write(p.log->path());
  if (auto done = p.log->replace(old, with)) {
    std::cerr << "editgate: job " + std::to_string(job->id) + ": its announcement in " + p.log->path() +
                     " was edited; put back under its request\n";
    p.uncommitted.push_back(std::move(*done));
    return;
  }
  p.active.clear();
  note(p, {"> _job " + std::to_string(job->id) + "'s announcement was edited away and could not be put back under "
           "its request, so the job was cancelled_"});
  fail(p, *job, Error::log_conflict, "the executing announcement was edited away and could not be put back");
}

void Repl::mark_interrupted() {
  DIR* dir = ::opendir((ws_.root() + "/debug").c_str());
  if (!dir) return;
  std::vector<std::string> files;
  while (dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".md") == 0) files.push_back(name);
  }
  ::closedir(dir);
  std::sort(files.begin(), files.end());
  auto is_placeholder = [](const std::string& l) {
    if (l.rfind("executing (", 0) != 0 || l.size() < 14 || l.compare(l.size() - 2, 2, "s)") != 0) return false;
    return std::all_of(l.begin() + 11, l.end() - 2, [](char c) { return c >= '0' && c <= '9'; });
  };
  for (const std::string& file : files) {
    ChatLog log(ws_, "debug/" + file);
    auto text = log.read();
    if (!text || !*text) continue;
    const Lines lines = split_lines(**text);
    std::vector<FileChange> changes;
    std::vector<std::string> jobs;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (!is_placeholder(lines[i])) continue;
      // Its announcement: the nearest header above, with no duration yet.
      std::size_t j = i;
      std::optional<Header> h;
      while (j > 0 && !(h = parse_header(lines[--j]))) {}
      if (!h || !h->suffix.empty()) continue;
      Lines old(lines.begin() + static_cast<std::ptrdiff_t>(j), lines.begin() + static_cast<std::ptrdiff_t>(i + 1));
      Lines now{reply_header(h->from, h->to, h->clock, "**ERROR** interrupted")};
      for (std::string& l :
           fenced("Error", "interrupted: the gateway stopped while this job ran (found when it started again at " +
                               clock_text(wall::now()) + "); a result the page sent after that was not recorded"))
        now.push_back(std::move(l));
      if (auto done = log.replace(old, now, true)) {
        changes.push_back(std::move(*done));
        jobs.push_back(h->to + " at " + h->clock);
      }
    }
    if (changes.empty()) continue;
    if (!ends_with_footer(log.known()))
      if (auto done = log.append({"", std::string(footer)})) changes.push_back(std::move(*done));
    const std::string stem = file.substr(0, file.size() - 3);
    std::cerr << "editgate: " + log.path() + ": " + std::to_string(jobs.size()) +
                     " job(s) left executing by a stopped gateway, marked interrupted\n";
    CommitItem item;
    item.files = std::move(changes);
    item.author = page_identity(stem);
    item.summary = "page " + stem + ": " + std::to_string(jobs.size()) + " job(s) interrupted by a gateway restart";
    item.trailers = {{"Editgate-Kind", "page"}, {"Editgate-Page", stem}};
    committer_.submit(std::move(item));
  }
}

void Repl::shutdown() {
  stopping_ = true;
  registry_timer_->cancel();
  for (auto& [id, p] : pages_) {
    std::vector<std::shared_ptr<Job>> jobs(p->queue.begin(), p->queue.end());
    for (auto& j : jobs) fail(*p, *j, Error::shutting_down, "the gateway stopped before the job ran");
    if (p->running) fail(*p, *p->running, Error::shutting_down, "the gateway stopped while the job ran");
    p->ticker->cancel();
    p->background_timer->cancel();
    if (p->link) p->link->close();
    p->link.reset();
    report(*p);
  }
  write_registry();
}

}  // namespace repl
