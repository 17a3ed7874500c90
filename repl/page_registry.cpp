#include "record/trailers.hpp"
#include "repl/log.hpp"
#include "repl/page_registry.hpp"

#include "editproto/unicode.hpp"
#include "repl/markdown.hpp"
#include "repl/names.hpp"
#include "repl/page_input.hpp"
#include "repl/page_state.hpp"
#include "repl/secrets.hpp"

#include <boost/json.hpp>

#include <dirent.h>
#include <iostream>
#include <span>

namespace repl {

namespace json = boost::json;

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
  h.user_agent = page_line(raw.user_agent, page_bounds::title);
  return h;
}

// The kinds of page only the gateway starts: the Node page and its realms.
// Their secrets stay with their transport, and no page door can claim them
// (it says browser, whatever the page says).
bool gateway_kind(std::string_view kind) { return kind == "node" || kind == "realm"; }

}  // namespace

std::string registry_text(std::vector<RegistryLine> pages, std::size_t max_live, std::size_t max_disconnected) {
  std::string text =
      "# Connected pages:\n\n> Master registry of connected pages and states. Do not edit it: the gateway rewrites it. "
      "Open a page's log under debug/ to run code in that page.\n\n";
  std::vector<const RegistryLine*> live, gone;
  for (const RegistryLine& p : pages) (p.live ? live : gone).push_back(&p);
  std::stable_sort(gone.begin(), gone.end(),
                   [](const RegistryLine* a, const RegistryLine* b) { return a->last_seen > b->last_seen; });
  auto line = [&](const RegistryLine& p) {
    text += "* " + p.stem + " (" + markdown_inline(p.url) + ") last " + clock_text(p.last_seen) + " state: " +
            p.state + " [log](" + p.log + ")\n";
  };
  for (std::size_t i = 0; i < live.size() && i < max_live; ++i) line(*live[i]);
  for (std::size_t i = 0; i < gone.size() && i < max_disconnected; ++i) line(*gone[i]);
  const std::size_t more_live = live.size() - std::min(live.size(), max_live);
  const std::size_t more_gone = gone.size() - std::min(gone.size(), max_disconnected);
  if (more_live || more_gone) {
    text += "\n(";
    if (more_live) text += std::to_string(more_live) + " more connected pages";
    if (more_live && more_gone) text += " and ";
    if (more_gone) text += std::to_string(more_gone) + " more disconnected pages";
    text += " not listed; their logs are under debug/)\n";
  }
  return text;
}

// ---- finding pages ------------------------------------------------------------------

Result<Repl::Page*> Repl::find(const std::string& name) {
  if (name.empty()) return default_page();
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

// The built-in Node page; without one, the only live page.
Result<Repl::Page*> Repl::default_page() {
  auto node = find("node");
  if (node || node.error().code != Error::not_found) return node;
  Page* only = nullptr;
  std::size_t live = 0;
  for (auto& [id, p] : pages_)
    if (p->link) {
      only = p.get();
      ++live;
    }
  if (live == 1) return only;
  return Failure{Error::not_found, live ? "no Node page runs and " + std::to_string(live) +
                                              " pages are live: name one (page, or the op use)"
                                        : "no page is connected"};
}

Result<std::string> Repl::page_name(const std::string& name) {
  auto p = find(name);
  if (!p) return p.error();
  return (*p)->stem;
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
      const bool idle = !p.link && p.kind != "node" && !p.owned && !p.running && p.queue.empty() && p.answers.empty() &&
                        p.progress.settled() && p.background.empty() && (!p.log || p.log->settled());
      if (idle && (oldest == pages_.end() || p.last_seen < oldest->second->last_seen)) oldest = it;
    }
    if (oldest == pages_.end()) return;
    log_line("page " + oldest->second->stem + " forgotten (disconnected; its log stays)");
    pages_.erase(oldest);
  }
}

// An instance taken back with the secret issued to it, by a page of its
// kind (the page door's are all browsers); nullptr for a new instance. An
// unknown id and a wrong secret are alike: the page is a new instance, so no
// answer tells which ids exist. Only the secret's holder hears in_use.
Result<Repl::Page*> Repl::returning_page(const Hello& hello) {
  if (hello.id.empty() || !valid_id(hello.id) || !keys_.check(hello.id, hello.kind, hello.secret))
    return static_cast<Page*>(nullptr);
  if (auto it = pages_.find(hello.id); it != pages_.end()) {
    Page* p = it->second.get();
    if (p->link)
      return Failure{Error::in_use, "page instance " + hello.id + " is connected on another socket (" + p->url +
                                        "); a second socket may not take it over"};
    return p;
  }
  if (Page* p = reserved_page(hello.id)) return p;
  DIR* dir = ::opendir((ws_.root() + "/debug").c_str());
  if (!dir) return static_cast<Page*>(nullptr);
  // The gateway restarted: the page comes back to its log.
  Page* p = nullptr;
  const std::string suffix = "-" + hello.id + ".md";
  while (dirent* e = ::readdir(dir)) {
    std::string file = e->d_name;
    if (file.size() > suffix.size() && file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0) {
      auto page = std::make_unique<Page>();
      page->id = hello.id;
      page->stem = file.substr(0, file.size() - 3);
      forget_pages();
      p = page.get();
      pages_[hello.id] = std::move(page);
      break;
    }
  }
  ::closedir(dir);
  return p;
}

// A new instance, with the secret that takes it back later.
Result<Repl::Page*> Repl::new_page(const Hello& hello, std::string& secret) {
  // The origin is the page door's, normalized.
  if (const auto refused = admission_.admit(hello.origin))
    return Failure{*refused, *refused == Error::rate_limited
                                 ? "too many new pages from " + hello.origin + " lately; connect again in a few seconds"
                                 : "the pages from " + hello.origin + " made as many page instances as one origin " +
                                       "may in this gateway run; come back to one with its id and secret, or " +
                                       "restart the gateway"};
  forget_pages();
  std::string id;
  const std::string name = sanitize_name(hello.name.empty() ? hello.title : hello.name);
  for (int tries = 0; tries < 100; ++tries) {
    id = random_hex(id_digits);
    auto st = ws_.stat("debug/" + name + "-" + id + ".md");
    if (!pages_.count(id) && st && !st->exists) break;
  }
  secret = keys_.issue(id, gateway_kind(hello.kind) ? hello.kind : "browser");
  auto page = std::make_unique<Page>();
  page->id = id;
  page->stem = name + "-" + id;
  Page* p = page.get();
  pages_[id] = std::move(page);
  return p;
}

// The page's log: made for a new page (and committed), else read back:
// what is below its last footer was appended while no gateway watched.
void Repl::open_log(Page& p, bool returning) {
  if (!p.log) {
    p.log = std::make_unique<PageLog>(
        ws_, p.stem, journal_ ? &*journal_ : nullptr,
        [this](const std::string& path) {
          if (before_write) before_write(path);
        },
        opt_.inline_result_bytes);
    p.log->chat.on_written = [this, stem = p.stem, path = p.log->path()] {
      if (log_changed) log_changed(stem, path);
    };
    p.ticker = std::make_unique<boost::asio::steady_timer>(ex_);
    p.background_timer = std::make_unique<boost::asio::steady_timer>(ex_);
    p.answer_timer = std::make_unique<boost::asio::steady_timer>(ex_);
  }
  auto existing = p.log->chat.read();
  if (existing && *existing) {
    // New to this gateway: what is below the last footer was appended while
    // no gateway watched, and is read as a save once the page is in.
    if (p.log->chat.size() == 0) {
      const std::string& text = **existing;
      const std::string line = "\n" + std::string(footer) + "\n";
      const std::size_t at = text.rfind(line);
      p.log->chat.set_known(at == std::string::npos ? text : text.substr(0, at + line.size()));
    } else {
      p.log->chat.set_known(**existing);
    }
    if (returning)
      p.log->note({"> _" + p.stem + " reconnected at " + clock_text(wall::now()) + " (" + markdown_inline(p.url) +
                   "): a reload, a navigation or a lost connection_"},
                  "page " + p.stem + " reconnected (" + p.url + ")");
    p.log->place_footer(p.running != nullptr);
    return;
  }
  if (p.kind == "realm") {
    // Written with its first request: a realm that runs nothing leaves nothing.
    p.log->chat.create_later(new_log(p.stem, p.url, p.stem + ".events.log"));
    return;
  }
  p.log->will_write();
  auto made = p.log->chat.create(new_log(p.stem, p.url, p.stem + ".events.log"));
  if (!made)
    log_line("cannot create " + p.log->path() + ": " + made.error().message);
  else
    commit(p, {std::move(*made)}, p.stem, "page " + p.stem + " connected (" + p.url + ")", {{record::trailer::kind, "page"}});
}

Result<Repl::Welcome> Repl::connect(const Hello& raw_hello, std::shared_ptr<PageLink> link) {
  const Hello hello = clean_hello(raw_hello);
  auto refuse = [&](Error code, const std::string& message) -> Result<Welcome> {
    link->send(json::serialize(json::object{{"type", "refused"}, {"error", to_string(code)}, {"message", message}}));
    link->close();
    return Failure{code, message};
  };
  if (stopping_) return refuse(Error::shutting_down, "the gateway is stopping");
  auto back = returning_page(hello);
  if (!back) return refuse(back.error().code, back.error().message);
  const bool returning = *back != nullptr;
  std::string secret;  // issued to a new instance, sent once in its welcome
  auto found = returning ? back : new_page(hello, secret);
  if (!found) return refuse(found.error().code, found.error().message);
  Page* p = *found;
  p->link = std::move(link);
  p->modules.clear();  // a new context: nothing loaded into the old one is there
  p->url = hello.url;
  p->title = hello.title;
  p->kind = gateway_kind(hello.kind) ? hello.kind : "browser";
  p->origin = hello.origin;
  p->user_agent = hello.user_agent;
  p->last_seen = p->connected_at = wall::now();
  open_log(*p, returning);
  json::object welcome{{"type", "welcome"}, {"id", p->id}, {"name", p->stem}, {"log", p->log->path()}};
  // The Node page's secret stays with its transport, out of reach of the code it runs.
  if (!secret.empty() && !gateway_kind(p->kind)) welcome["secret"] = secret;
  p->link->send(json::serialize(welcome));
  log_line("page " + p->stem + " connected (" + p->kind + ", " + p->url + ")");
  registry_.write();
  changed(*p, "agent", false);
  pump(*p);
  write_status(*p);
  if (page_connected) page_connected(p->id);
  return Welcome{p->id, secret};
}

void Repl::disconnect(const std::string& id, const PageLink* link) {
  auto it = pages_.find(id);
  if (it == pages_.end() || it->second->link.get() != link) return;
  Page& p = *it->second;
  p.link.reset();
  p.dialog.reset();  // a closed tab's dialog went with it; a reload's is the new document's to tell
  p.last_seen = wall::now();
  p.unanswered.reset();  // the queue waits for the page to come back anyway
  p.answer_timer->cancel();
  p.answers.fail_all(refusal({Error::context_destroyed, "the page went away before it answered"}));
  if (p.running)
    fail(p, *p.running, Error::context_destroyed,
         "the page went away (a reload, a navigation or a closed tab) while the job ran");
  log_line("page " + p.stem + " disconnected");
  registry_.write();
  write_status(p);
}

// A job's start and end change a page's state many times a second under
// load: debug.md follows within its delay (RegistryFile), the dashboard at once.
void Repl::registry_changed() {
  if (pages_changed) pages_changed();
  registry_.changed();
}

// debug.md's lines: each says how the page's last job ended.
std::vector<RegistryLine> Repl::registry_lines() const {
  std::vector<RegistryLine> lines;
  for (const auto& [id, p] : pages_) {
    std::string state = !p->link     ? "disconnected"
                        : p->dialog  ? "held by its own " + p->dialog->kind + " dialog"
                        : p->running ? "executing job " + std::to_string(p->running->id)
                                     : "idle";
    if (!p->outcome.empty() && !(p->link && p->running)) state += ", " + p->outcome;
    lines.push_back({p->stem, p->url, p->log->path(), std::move(state), p->last_seen, p->link != nullptr});
  }
  return lines;
}

namespace {

// The job a page runs, as `pages` shows it: since when (wall clock, ms
// since the epoch) and its running block's first line, cut short.
json::value running_json(const Repl::Page& p) {
  if (!p.link || !p.running) return nullptr;
  const Repl::Job& j = *p.running;
  const auto ran = std::chrono::steady_clock::now() - j.started;
  const auto since = std::chrono::system_clock::now() - std::chrono::duration_cast<std::chrono::system_clock::duration>(ran);
  std::string code = j.index < j.codes.size() ? j.codes[j.index] : std::string();
  code = code.substr(0, code.find('\n'));
  if (code.size() > 120) code = editproto::unicode::to_valid_utf8(code.substr(0, 120)) + "…";
  return json::object{{"job", j.id},
                      {"agent", j.agent},
                      {"since_ms", std::chrono::duration_cast<std::chrono::milliseconds>(since.time_since_epoch()).count()},
                      {"code", editproto::unicode::to_valid_utf8(code)}};
}

}  // namespace

boost::json::array Repl::pages() const {
  json::array out;
  for (const auto& [id, p] : pages_) {
    out.push_back(json::object{
        {"page", p->stem},
        {"id", p->id},
        {"kind", p->kind},
        {"url", p->url},
        {"title", p->title},
        {"origin", p->origin},
        {"state", state_of(*p)},
        {"dialog", dialog_json(*p)},
        {"running", running_json(*p)},
        {"log", p->log->path()},
        {"queued", p->queue.size()},
        {"last_seen", clock_text(p->last_seen)},
        {"user_agent", p->user_agent},
        {"owned", p->owned},
        {"screenshots", json::array(p->screenshots.begin(), p->screenshots.end())},
    });
  }
  return out;
}

}  // namespace repl
