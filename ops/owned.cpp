// The ops of the gateway's own browser's pages: page-open, page-go,
// page-screenshot, page-close. The URL's origin is checked here, on the
// network thread, by the page door's own rule; the browser and the REPL
// answer on the worker thread, and the answer is carried back.
#include "ops/handlers.hpp"
#include "services/gateway.hpp"
#include "services/owned_pages.hpp"
#include "services/security.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <optional>

namespace ops {

namespace json = boost::json;

namespace {

constexpr std::size_t max_url_bytes = 8192;

const services::Failure no_browser{services::Error::browser_unavailable,
                                   "this gateway runs no browser of its own (serve --no-browser)"};

std::string text(const OpCall& call, std::string_view name, std::string otherwise = "") {
  const json::value* v = call.params.if_contains(name);
  return v && v->is_string() ? std::string(v->get_string()) : otherwise;
}

std::chrono::milliseconds timeout_of(const OpCall& call) {
  const json::value* v = call.params.if_contains("timeout");
  return std::chrono::milliseconds(v ? v->get_int64() : 30'000);
}


// Runs `work` on the worker thread with the gateway's browser, and answers
// on the request's executor.
template <class Work>
void on_browser(OpCall& call, Work work) {
  services::Gateway& gw = call.gw;
  auto out = call.out;
  gw.worker().post([&gw, out, work = std::move(work)]() mutable {
    auto back = [out](services::Result<json::object> r) {
      auto ex = out->executor();
      boost::asio::post(ex, [out, r = std::move(r)]() mutable {
        if (!r) return out->fail(r.error());
        out->done(std::move(*r));
      });
    };
    services::OwnedPages* pages = gw.owned();
    if (!pages) return back(no_browser);
    work(*pages, std::move(back));
  });
}

}  // namespace

void op_page_open(OpCall call) {
  services::OpenRequest r;
  r.url = text(call, "url");
  r.page = text(call, "page");
  r.name = text(call, "name");
  r.agent = text(call, "agent", "agent");
  r.timeout = timeout_of(call);
  if (r.url.size() > max_url_bytes)
    return call.out->fail({services::Error::bad_request, "url is " + std::to_string(r.url.size()) + " bytes, over the " +
                                                             std::to_string(max_url_bytes) + " a page-open takes"});
  const auto origin = services::url_origin(r.url);
  if (!origin)
    return call.out->fail({services::Error::bad_request,
                           "url must be an http:// or https:// URL with a host (not " + r.url.substr(0, 200) + ")"});
  // A page that could not connect from its origin would be no page: the
  // page door's rule, asked before anything opens.
  if (auto refused = services::page_origin_refused(call.gw, *origin, call.gw.workspace_id()))
    return call.out->fail(std::move(*refused));
  on_browser(call, [r = std::move(r)](services::OwnedPages& pages, services::OwnedDone done) mutable {
    services::owned_open(pages, std::move(r), std::move(done));
  });
}

void op_page_go(OpCall call) {
  on_browser(call, [page = text(call, "page"), to = text(call, "to"), timeout = timeout_of(call)](
                       services::OwnedPages& pages, services::OwnedDone done) mutable {
    services::owned_go(pages, page, to, timeout, std::move(done));
  });
}

void op_page_screenshot(OpCall call) {
  services::ShotRequest r;
  r.page = text(call, "page");
  r.selector = text(call, "selector");
  r.agent = text(call, "agent", "agent");
  if (const json::value* v = call.params.if_contains("full_page")) r.full_page = v->get_bool();
  on_browser(call, [r = std::move(r)](services::OwnedPages& pages, services::OwnedDone done) mutable {
    services::owned_screenshot(pages, std::move(r), std::move(done));
  });
}

void op_page_close(OpCall call) {
  on_browser(call, [page = text(call, "page"), agent = text(call, "agent", "agent")](
                       services::OwnedPages& pages, services::OwnedDone done) mutable {
    services::owned_close(pages, page, agent, std::move(done));
  });
}

}  // namespace ops
