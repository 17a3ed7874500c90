#include "services/owned_pages.hpp"

#include "services/base64.hpp"
#include "services/devtools.hpp"
#include "services/owned_shots.hpp"
#include "services/program_path.hpp"
#include "services/security.hpp"
#include "repl/assets.hpp"
#include "repl/log.hpp"
#include "repl/repl.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json.hpp>

#include <cstdlib>
#include <deque>
#include <filesystem>
#include <future>
#include <map>
#include <unistd.h>

namespace services {

namespace net = boost::asio;
namespace json = boost::json;
using steady = std::chrono::steady_clock;

std::string find_browser() { return find_on_path({"chromium", "chromium-browser"}); }

namespace {

// A page's name from its URL: its host, as a tab's is its title or path.
std::string name_of(const std::string& url) {
  const std::string origin = url_origin(url).value_or(url);
  std::string host = origin.substr(origin.find("://") == std::string::npos ? 0 : origin.find("://") + 3);
  const std::size_t colon = host.rfind(':');
  return colon == std::string::npos || host.back() == ']' ? host : host.substr(0, colon);
}

// Headless, driven on the pipe only, in a profile of its own; no back/forward
// cache (a page left is a page ended, as the adapter expects of a tab).
std::vector<std::string> browser_flags(const std::string& profile) {
  std::vector<std::string> flags{"--headless", "--remote-debugging-pipe", "--user-data-dir=" + profile,
                                 "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
                                 "--disable-component-update", "--disable-sync", "--disable-default-apps",
                                 "--disable-extensions", "--disable-features=BackForwardCache,Translate,MediaRouter",
                                 "--disable-gpu", "--mute-audio", "--hide-scrollbars", "--password-store=basic",
                                 "--window-size=1280,720"};
  // Chromium refuses to run as root with its sandbox.
  if (::geteuid() == 0) flags.push_back("--no-sandbox");
  flags.push_back("about:blank");
  return flags;
}

// A URL as a note shows it: a page's own can be megabytes long.
std::string shown(const std::string& url) { return url.size() > 300 ? url.substr(0, 300) + "..." : url; }

std::string text_of(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : "";
}

}  // namespace

class OwnedPages : public std::enable_shared_from_this<OwnedPages> {
 public:
  OwnedPages(Worker& worker, repl::Repl& repl, OwnedOptions options)
      : ex_(worker.executor()), repl_(repl), opt_(std::move(options)) {}

  struct Waiter {
    unsigned nav = 0;
    bool opened = false;
    OwnedDone done;
    std::unique_ptr<net::steady_timer> timer;
  };
  struct Page {
    std::string id, secret, stem, url;
    std::string target, session, context;
    // Navigations counted: the last begun, loaded and connected (its adapter's hello taken).
    unsigned nav = 0, loaded = 0, connected = 0;
    std::vector<std::shared_ptr<Waiter>> waiters;
    bool failed = false;  // its browser crashed past the restarts: ops fail by name
  };

  void hook() {
    repl_.page_connected = [weak = weak_from_this()](const std::string& id) {
      if (auto self = weak.lock()) self->on_connected(id);
    };
    repl_.restart_owned = [weak = weak_from_this()](const std::string& id) {
      auto self = weak.lock();
      return self && self->restart(id);
    };
  }

  // A page stuck in synchronous code, which no message reaches: its script
  // is stopped and its document loaded again (its globals go, its log stays).
  bool restart(const std::string& id) {
    auto it = pages_.find(id);
    if (it == pages_.end() || it->second.failed || !browser_ || !browser_->running()) return false;
    Page& p = it->second;
    auto ignore = [](Result<json::object>) {};
    browser_->send("Runtime.terminateExecution", {}, p.session, ignore);
    browser_->send("Page.reload", {}, p.session, ignore);
    return true;
  }

  void open(OpenRequest r, OwnedDone done) {
    if (stopping_) return done(Failure{Error::shutting_down, "the gateway is stopping"});
    if (!r.page.empty()) {
      auto found = find(r.page);
      if (!found) return done(found.error());
      return navigate(**found, r.url, r.timeout, false, std::move(done));
    }
    std::size_t open = 0;
    for (const auto& [id, p] : pages_) open += p.failed ? 0 : 1;
    if (open >= opt_.max_pages)
      return done(Failure{Error::too_many_pages, "the gateway's browser has " + std::to_string(open) +
                                                     " pages open, the most serve --max-owned-pages allows; close "
                                                     "one (page_close)"});
    if (auto started = ensure_browser(); !started) return done(started.error());
    const repl::Repl::Reserved reserved = repl_.reserve_owned(r.name.empty() ? name_of(r.url) : r.name);
    Page& p = pages_[reserved.id];
    p.id = reserved.id;
    p.secret = reserved.secret;
    p.stem = reserved.stem;
    p.url = r.url;
    make_target(p, [self = shared_from_this(), id = p.id, r = std::move(r), done = std::move(done)](Result<void> made) mutable {
      auto it = self->pages_.find(id);
      if (it == self->pages_.end()) return done(Failure{Error::browser_crashed, "the page was closed while it opened"});
      if (!made) {
        self->drop(it->second, "");
        return done(made.error());
      }
      self->navigate(it->second, r.url, r.timeout, true, std::move(done));
    });
  }

  void go(const std::string& page, const std::string& to, std::chrono::milliseconds timeout, OwnedDone done) {
    auto found = find(page);
    if (!found) return done(found.error());
    Page& p = **found;
    if (to == "reload") {
      auto w = begin_wait(p, timeout, false, std::move(done));
      return browser_->send("Page.reload", {}, p.session, fail_on_error(p.id, w));
    }
    const int step = to == "back" ? -1 : 1;
    browser_->send("Page.getNavigationHistory", {}, p.session,
                   [self = shared_from_this(), id = p.id, step, to, timeout, done = std::move(done)](Result<json::object> h) mutable {
                     auto it = self->pages_.find(id);
                     if (it == self->pages_.end()) return done(Failure{Error::not_found, "the page was closed"});
                     if (!h) return done(h.error());
                     const json::value* entries = h->if_contains("entries");
                     const json::value* current = h->if_contains("currentIndex");
                     if (!entries || !entries->is_array() || !current || !current->is_number())
                       return done(Failure{Error::browser_error, "the browser gave no navigation history"});
                     const auto at = current->to_number<std::int64_t>() + step;
                     const auto& list = entries->get_array();
                     // The blank document a page starts as is not one to go back to.
                     const auto blank = [&](std::int64_t i) {
                       const json::value& e = list[static_cast<std::size_t>(i)];
                       return e.is_object() && text_of(e.get_object(), "url") == "about:blank";
                     };
                     if (at < 0 || at >= static_cast<std::int64_t>(list.size()) || blank(at))
                       return done(Failure{Error::bad_request, "page " + it->second.stem + " has no " +
                                                                   (step < 0 ? "earlier" : "later") +
                                                                   " page in its history to go " + to + " to"});
                     const json::object* chosen = list[static_cast<std::size_t>(at)].if_object();
                     const json::value* entry = chosen ? chosen->if_contains("id") : nullptr;
                     Page& p = it->second;
                     auto w = self->begin_wait(p, timeout, false, std::move(done));
                     self->browser_->send("Page.navigateToHistoryEntry",
                                          json::object{{"entryId", entry ? *entry : json::value(0)}}, p.session,
                                          self->fail_on_error(id, w));
                   });
  }

  void screenshot(ShotRequest r, OwnedDone done) {
    auto found = find(r.page);
    if (!found) return done(found.error());
    Page& p = **found;
    ShotPlan plan{r.selector, r.full_page};
    take_screenshot(browser_, p.session, std::move(plan),
                    [self = shared_from_this(), id = p.id, agent = r.agent, done = std::move(done)](Result<Shot> shot) mutable {
                      auto it = self->pages_.find(id);
                      if (it == self->pages_.end()) return done(Failure{Error::not_found, "the page was closed"});
                      if (!shot) return done(shot.error());
                      Page& p = it->second;
                      auto png = base64_decode(shot->base64);
                      if (!png) return done(Failure{Error::browser_error, "the browser's screenshot is not base64"});
                      if (png->size() > max_screenshot_bytes)
                        return done(Failure{Error::screenshot_too_large,
                                            "the screenshot is " + std::to_string(png->size() >> 10) +
                                                " KiB of PNG, over the " + std::to_string(max_screenshot_bytes >> 20) +
                                                " MiB a screenshot may be: take an element (selector) or the viewport"});
                      const std::size_t bytes = png->size();
                      auto saved = self->repl_.add_screenshot(id, std::move(*png), agent, shot->what + ", " + shown(p.url));
                      if (!saved)
                        return done(Failure{saved.error().code == repl::Error::too_many_screenshots
                                                ? Error::too_many_screenshots
                                                : Error::io,
                                            saved.error().message});
                      done(json::object{{"page", p.stem},       {"path", *saved},        {"width", shot->width},
                                        {"height", shot->height}, {"bytes", bytes},        {"cut", shot->cut},
                                        {"png", std::move(shot->base64)}});
                    });
  }

  void close(const std::string& page, const std::string& agent, OwnedDone done) {
    auto found = find(page, true);
    if (!found) return done(found.error());
    Page& p = **found;
    const std::string stem = p.stem;
    drop(p, "closed by " + agent + " (page_close)");
    done(json::object{{"page", stem}, {"closed", true}});
  }

  void stop() {
    std::promise<void> stopped;
    net::post(ex_, [self = shared_from_this(), &stopped] {
      self->stopping_ = true;
      self->repl_.page_connected = nullptr;
      self->repl_.restart_owned = nullptr;
      for (auto& [id, p] : self->pages_) self->fail_waiters(p, Failure{Error::shutting_down, "the gateway is stopping"});
      self->pages_.clear();
      if (self->browser_) self->browser_->stop();
      self->remove_profile();
      stopped.set_value();
    });
    stopped.get_future().wait();
  }

 private:
  Result<Page*> find(const std::string& page, bool even_failed = false) {
    for (auto& [id, p] : pages_) {
      if (p.stem != page && p.id != page) continue;
      if (p.failed && !even_failed)
        return Failure{Error::browser_crashed, "page " + p.stem + "'s browser crashed " + std::to_string(crashes_.size()) +
                                                   " times within a minute, so it was not reopened; page_open it "
                                                   "again (a new page), or page_close it"};
      return &p;
    }
    return Failure{Error::not_owned, "page " + page + " is not one the gateway's browser opened (page_open's "
                                                       "pages: see pages, owned); a person's tab or the Node page "
                                                       "cannot be navigated, shot or closed"};
  }

  Result<void> ensure_browser() {
    if (browser_ && browser_->running()) return {};
    const std::string program = opt_.browser.empty() ? find_browser() : opt_.browser;
    if (program.empty())
      return Failure{Error::browser_unavailable, "no chromium on PATH: install it (apt-get install chromium) or "
                                                 "start serve with --browser PATH"};
    if (profile_.empty()) {
      // Outside the workspace, so no dev server hands out its cookies; mode 0700.
      std::string pattern = (std::filesystem::temp_directory_path() / "editgate-browser-XXXXXX").string();
      if (!::mkdtemp(pattern.data())) return Failure{Error::browser_unavailable, "cannot make the browser's profile folder"};
      profile_ = pattern;
    }
    BrowserLaunch launch{program, browser_flags(profile_), opt_.output_file};
    browser_ = std::make_shared<DevTools>(
        ex_,
        [weak = weak_from_this()](const std::string& method, const json::object& params, const std::string& session) {
          if (auto self = weak.lock()) self->on_event(method, params, session);
        },
        [weak = weak_from_this()] {
          if (auto self = weak.lock()) net::post(self->ex_, [self] { self->on_crash(); });
        });
    if (auto started = browser_->start(launch); !started) return started.error();
    repl::log_line("the gateway's browser started (" + program + ", pid " + std::to_string(browser_->pid()) + ")");
    return {};
  }

  // A context of its own, a target in it, attached, the adapter injected,
  // the CSP bypassed; `done` once the page can be navigated.
  void make_target(Page& p, std::function<void(Result<void>)> done) {
    auto self = shared_from_this();
    // Each step's answer, for the page still there, or `done`'s failure.
    auto step = [self, id = p.id, done](std::function<void(Page&, const json::object&)> next) {
      return [self, id, done, next = std::move(next)](Result<json::object> r) {
        auto it = self->pages_.find(id);
        if (it == self->pages_.end()) return done(Failure{Error::browser_crashed, "the page was closed while it opened"});
        if (!r) return done(r.error());
        next(it->second, *r);
      };
    };
    auto attached = [self, step, done](Page& p, const json::object& r) {
      p.session = text_of(r, "sessionId");
      auto ignore = [](Result<json::object>) {};
      self->browser_->send("Page.enable", {}, p.session, ignore);
      self->browser_->send("Page.setBypassCSP", json::object{{"enabled", true}}, p.session, ignore);
      const std::string config =
          json::serialize(json::object{{"src", self->opt_.adapter_src}, {"id", p.id}, {"secret", p.secret}});
      self->browser_->send("Page.addScriptToEvaluateOnNewDocument",
                           json::object{{"source", repl::owned_adapter_js(config, self->opt_.adapter_src)}}, p.session,
                           step([done](Page&, const json::object&) { done(Result<void>{}); }));
    };
    auto created = [self, step, attached](Page& p, const json::object& r) {
      p.target = text_of(r, "targetId");
      self->browser_->send("Target.attachToTarget", json::object{{"targetId", p.target}, {"flatten", true}}, "",
                           step(attached));
    };
    auto context = [self, step, created](Page& p, const json::object& r) {
      p.context = text_of(r, "browserContextId");
      // A page's downloads would land in the home folder: none.
      self->browser_->send("Browser.setDownloadBehavior", json::object{{"behavior", "deny"}, {"browserContextId", p.context}},
                           "", [](Result<json::object>) {});
      self->browser_->send("Target.createTarget",
                           json::object{{"url", "about:blank"}, {"browserContextId", p.context}, {"width", 1280}, {"height", 720}},
                           "", step(created));
    };
    browser_->send("Target.createBrowserContext", json::object{{"disposeOnDetach", true}}, "", step(context));
  }

  void navigate(Page& p, const std::string& url, std::chrono::milliseconds timeout, bool opened, OwnedDone done) {
    p.url = url;
    auto w = begin_wait(p, timeout, opened, std::move(done));
    const std::string id = p.id;
    browser_->send("Page.navigate", json::object{{"url", url}}, p.session,
                   [self = shared_from_this(), id, w, url](Result<json::object> r) {
                     auto it = self->pages_.find(id);
                     if (it == self->pages_.end() || !w->done) return;
                     Page& p = it->second;
                     if (!r) return self->finish(p, w, r.error());
                     if (const std::string error = text_of(*r, "errorText"); !error.empty())
                       return self->finish(p, w, Failure{Error::navigation_failed, "the browser could not load " + url + ": " + error});
                     // A navigation within the document: no new document, no new hello.
                     if (text_of(*r, "loaderId").empty()) p.loaded = p.connected = p.nav;
                     self->check(p);
                   });
  }

  std::shared_ptr<Waiter> begin_wait(Page& p, std::chrono::milliseconds timeout, bool opened, OwnedDone done) {
    auto w = std::make_shared<Waiter>();
    w->nav = ++p.nav;
    w->opened = opened;
    w->done = std::move(done);
    w->timer = std::make_unique<net::steady_timer>(ex_, timeout);
    w->timer->async_wait([self = shared_from_this(), id = p.id, w, timeout](boost::system::error_code ec) {
      auto it = self->pages_.find(id);
      if (ec || it == self->pages_.end() || !w->done) return;
      Page& p = it->second;
      const std::string what = p.loaded < w->nav && p.connected < w->nav ? "neither loaded nor connected"
                               : p.loaded < w->nav ? "did not fire its load event (its adapter connected)"
                                                   : "loaded, but its adapter did not connect";
      self->finish(p, w, Failure{Error::page_timeout, "page " + p.stem + " " + what + " within " +
                                                          std::to_string(timeout.count()) + " ms of going to " + shown(p.url)});
    });
    p.waiters.push_back(w);
    return w;
  }

  DevTools::Answer fail_on_error(const std::string& id, std::shared_ptr<Waiter> w) {
    return [self = shared_from_this(), id, w](Result<json::object> r) {
      auto it = self->pages_.find(id);
      if (!r && it != self->pages_.end() && w->done) self->finish(it->second, w, r.error());
    };
  }

  void finish(Page& p, const std::shared_ptr<Waiter>& w, Result<json::object> outcome) {
    if (!w->done) return;
    OwnedDone done = std::move(w->done);
    w->done = nullptr;
    w->timer->cancel();
    std::erase(p.waiters, w);
    if (!outcome && w->opened) {
      // A new page that did not come up is not kept half open.
      const std::string stem = p.stem;
      drop(p, "");
      outcome = Failure{outcome.error().code, outcome.error().message + "; the page (" + stem + ") was closed"};
    }
    done(std::move(outcome));
  }

  void check(Page& p) {
    auto waiters = p.waiters;
    for (auto& w : waiters) {
      if (!w->done || p.loaded < w->nav || p.connected < w->nav) continue;
      // The title and the URL as the browser has them now (a redirect, a script's title).
      browser_->send("Target.getTargetInfo", json::object{{"targetId", p.target}}, "",
                     [self = shared_from_this(), id = p.id, w](Result<json::object> r) {
                       auto it = self->pages_.find(id);
                       if (it == self->pages_.end()) return;
                       Page& p = it->second;
                       const json::value* got = r ? r->if_contains("targetInfo") : nullptr;
                       const json::object info = got && got->is_object() ? got->get_object() : json::object{};
                       if (const std::string url = text_of(info, "url"); !url.empty()) p.url = url;
                       self->finish(p, w, json::object{{"page", p.stem},
                                                       {"url", p.url},
                                                       {"title", text_of(info, "title")},
                                                       {"log", "debug/" + p.stem + ".md"},
                                                       {"owned", true},
                                                       {"opened", w->opened}});
                     });
      w->nav = ~0u;  // asked once
    }
  }

  void on_connected(const std::string& id) {
    auto it = pages_.find(id);
    if (it == pages_.end()) return;
    it->second.connected = it->second.nav;
    check(it->second);
  }

  void on_event(const std::string& method, const json::object& params, const std::string& session) {
    Page* p = nullptr;
    for (auto& [id, page] : pages_)
      if (!session.empty() && page.session == session) p = &page;
    if (method == "Target.detachedFromTarget") {
      for (auto& [id, page] : pages_)
        if (page.session == text_of(params, "sessionId") && !page.failed) return drop(page, "the page closed itself");
      return;
    }
    if (!p) return;
    if (method == "Page.loadEventFired") {
      p->loaded = p->nav;
      check(*p);
    } else if (method == "Page.frameNavigated") {
      const json::value* frame = params.if_contains("frame");
      if (frame && frame->is_object() && !frame->get_object().contains("parentId")) p->url = text_of(frame->get_object(), "url");
    } else if (method == "Page.javascriptDialogOpening") {
      // No person sees this browser: the page's own dialog is answered at once
      // (an alert's OK, a leave-page's yes; a confirm or prompt dismissed), and
      // the adapter has reported it to the log.
      const std::string type = text_of(params, "type");
      browser_->send("Page.handleJavaScriptDialog", json::object{{"accept", type == "alert" || type == "beforeunload"}},
                     p->session, [](Result<json::object>) {});
    } else if (method == "Inspector.targetCrashed") {
      repl_.note_owned(p->id, "the page's renderer crashed; it is loaded again from " + shown(p->url),
                       "page " + p->stem + "'s renderer crashed");
      browser_->send("Page.navigate", json::object{{"url", p->url}}, p->session, [](Result<json::object>) {});
    }
  }

  // The browser's pipe ended without a stop: started again and the pages
  // reopened at their URLs, each with its own instance (one log), unless it
  // crashed 3 times within a minute.
  void on_crash() {
    if (stopping_) return;
    const std::string how = browser_ ? browser_->how_ended() : "";
    const auto now = steady::now();
    crashes_.push_back(now);
    while (!crashes_.empty() && now - crashes_.front() > std::chrono::minutes(1)) crashes_.pop_front();
    const bool again = crashes_.size() <= 3;
    repl::log_line("the gateway's browser ended (" + how + ")" + (again ? "; starting it again" : "; not again"));
    for (auto& [id, p] : pages_) {
      if (p.failed) continue;
      fail_waiters(p, Failure{Error::browser_crashed, "the gateway's browser ended (" + how + ") while page " + p.stem +
                                                          " loaded"});
      p.failed = !again;
      repl_.note_owned(id, "the gateway's browser ended (" + how + ")" +
                               (again ? "; the page is reopened at " + shown(p.url) : "; it crashed 3 times within a minute, so "
                                                                               "the page is not reopened"),
                       "page " + p.stem + "'s browser ended");
    }
    if (!again || pages_.empty()) return;
    if (auto started = ensure_browser(); !started) {
      for (auto& [id, p] : pages_) p.failed = true;
      return;
    }
    for (auto& [id, p] : pages_) {
      if (p.failed) continue;
      p.loaded = p.connected = p.nav;
      make_target(p, [self = shared_from_this(), id = id](Result<void> made) {
        auto it = self->pages_.find(id);
        if (it == self->pages_.end()) return;
        if (!made) {
          it->second.failed = true;
          return;
        }
        self->browser_->send("Page.navigate", json::object{{"url", it->second.url}}, it->second.session,
                             [](Result<json::object>) {});
      });
    }
  }

  void fail_waiters(Page& p, const Failure& f) {
    auto waiters = std::move(p.waiters);
    p.waiters.clear();
    for (auto& w : waiters) {
      if (!w->done) continue;
      OwnedDone done = std::move(w->done);
      w->done = nullptr;
      w->timer->cancel();
      done(f);
    }
  }

  // The page ends: its target and context go, its log stays (`why` noted there).
  void drop(Page& p, const std::string& why) {
    fail_waiters(p, Failure{Error::not_found, "page " + p.stem + " was closed"});
    if (browser_ && browser_->running()) {
      if (!p.target.empty()) browser_->send("Target.closeTarget", json::object{{"targetId", p.target}}, "", [](Result<json::object>) {});
      if (!p.context.empty())
        browser_->send("Target.disposeBrowserContext", json::object{{"browserContextId", p.context}}, "", [](Result<json::object>) {});
    }
    repl_.release_owned(p.id, why.empty() ? "the page did not come up" : why);
    const std::string id = p.id;
    pages_.erase(id);
  }

  void remove_profile() {
    if (profile_.empty()) return;
    std::error_code ignored;
    std::filesystem::remove_all(profile_, ignored);
    profile_.clear();
  }

  net::any_io_executor ex_;
  repl::Repl& repl_;
  OwnedOptions opt_;
  std::shared_ptr<DevTools> browser_;
  std::string profile_;
  std::map<std::string, Page> pages_;  // by instance id
  std::deque<steady::time_point> crashes_;
  bool stopping_ = false;
};

std::shared_ptr<OwnedPages> make_owned_pages(Worker& worker, repl::Repl& repl, OwnedOptions options) {
  auto pages = std::make_shared<OwnedPages>(worker, repl, std::move(options));
  worker.post([pages] { pages->hook(); });
  return pages;
}

void owned_open(OwnedPages& pages, OpenRequest request, OwnedDone done) { pages.open(std::move(request), std::move(done)); }
void owned_go(OwnedPages& pages, const std::string& page, const std::string& to, std::chrono::milliseconds timeout,
              OwnedDone done) {
  pages.go(page, to, timeout, std::move(done));
}
void owned_screenshot(OwnedPages& pages, ShotRequest request, OwnedDone done) {
  pages.screenshot(std::move(request), std::move(done));
}
void owned_close(OwnedPages& pages, const std::string& page, const std::string& agent, OwnedDone done) {
  pages.close(page, agent, std::move(done));
}
void stop_owned_pages(OwnedPages& pages) { pages.stop(); }

}  // namespace services
