// Pages the gateway opens itself, for agents with no person and no tab: a
// headless Chromium the gateway starts at the first page_open and owns
// (services/devtools.hpp: the DevTools protocol on a pipe, no port), each
// page in a browser context of its own (no cookies or storage shared with
// another page, none of a person's), with the adapter injected before the
// page's own scripts and the page's CSP bypassed, so the page connects
// like a tab and is one to the REPL: its log, its jobs, its commits. A
// crashed browser is started again and its pages reopened at their URLs,
// up to 3 times a minute; past that their ops fail browser_crashed.
// Lives on the worker thread, with the REPL.
#pragma once

#include "services/error.hpp"
#include "services/worker.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace repl {
class Repl;
}

namespace services {

class OwnedPages;

struct OwnedOptions {
  std::string browser;          // the program: serve --browser, else chromium found on PATH
  std::size_t max_pages = 8;    // owned pages open at once (too_many_pages past it)
  std::string output_file;      // where the browser's own output goes (the state folder's browser.log)
  std::string adapter_src;      // http://127.0.0.1:PORT/adapter.js?workspace=ID, as a tag would load it
};

struct OpenRequest {
  std::string url;
  std::string page;  // an owned page to navigate, "" for a new one
  std::string name;  // the new page's name, "" for the URL's host
  std::string agent = "agent";
  std::chrono::milliseconds timeout{30'000};
};

struct ShotRequest {
  std::string page;
  std::string selector;  // "" for the viewport (or the page)
  bool full_page = false;
  std::string agent = "agent";
};

// The browser on PATH: chromium, then chromium-browser; "" when neither is.
std::string find_browser();

// The replies are {page, url, title, log, owned} (open, go), {page, path,
// width, height, bytes, png, cut} (screenshot) and {page, closed} (close).
using OwnedDone = std::function<void(Result<boost::json::object>)>;

// Made on any thread before the worker runs an op; every call but stop on the worker thread.
std::shared_ptr<OwnedPages> make_owned_pages(Worker& worker, repl::Repl& repl, OwnedOptions options);
void owned_open(OwnedPages& pages, OpenRequest request, OwnedDone done);
// `to`: back, forward or reload.
void owned_go(OwnedPages& pages, const std::string& page, const std::string& to, std::chrono::milliseconds timeout,
              OwnedDone done);
void owned_screenshot(OwnedPages& pages, ShotRequest request, OwnedDone done);
void owned_close(OwnedPages& pages, const std::string& page, const std::string& agent, OwnedDone done);
// Ends the browser and removes its profile; from another thread, waited for.
void stop_owned_pages(OwnedPages& pages);

// The bound of one screenshot, and of a full page's size in CSS pixels.
inline constexpr std::size_t max_screenshot_bytes = 8u << 20;
inline constexpr int max_shot_width = 4096, max_shot_height = 16384;

}  // namespace services
