#include "services/owned_shots.hpp"

#include "services/base64.hpp"
#include "services/owned_pages.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>

namespace services {

namespace json = boost::json;

namespace {

constexpr std::chrono::seconds shot_timeout{10};

double number_at(const json::object& o, std::string_view a, std::string_view b) {
  const json::value* v = o.if_contains(a);
  if (!v || !v->is_object()) return 0;
  const json::value* n = v->get_object().if_contains(b);
  return n && n->is_number() ? n->to_number<double>() : 0;
}

// A PNG's size, from its header (IHDR: width and height at bytes 16 and 20).
void read_size(Shot& shot) {
  auto head = base64_decode(std::string_view(shot.base64).substr(0, 32));
  if (!head || head->size() < 24) return;
  auto at = [&](std::size_t i) {
    const auto* b = reinterpret_cast<const unsigned char*>(head->data() + i);
    return static_cast<int>((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]);
  };
  shot.width = at(16);
  shot.height = at(20);
}

// The element's box in page coordinates, or why there is none. Run in the
// page, whose own code may have replaced anything it calls: what comes back
// is checked as numbers.
std::string element_box(const std::string& selector) {
  return "(function (s) { var e = document.querySelector(s); if (!e) return null; e.scrollIntoView({block: 'nearest'}); "
         "var r = e.getBoundingClientRect(); return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height]; })(" +
         json::serialize(json::value(selector)) + ")";
}

void capture(std::shared_ptr<DevTools> browser, const std::string& session, json::object params, Shot shot,
             std::function<void(Result<Shot>)> done) {
  params["format"] = "png";
  browser->send("Page.captureScreenshot", std::move(params), session,
                [shot = std::move(shot), done](Result<json::object> r) mutable {
                  if (!r) {
                    if (r.error().code == Error::page_timeout)
                      return done(Failure{Error::page_timeout, "the page drew no frame within " +
                                                                   std::to_string(shot_timeout.count()) +
                                                                   " s (busy with synchronous code?)"});
                    return done(r.error());
                  }
                  const json::value* data = r->if_contains("data");
                  if (!data || !data->is_string()) return done(Failure{Error::browser_error, "the browser sent no image"});
                  shot.base64 = std::string(data->get_string());
                  read_size(shot);
                  done(std::move(shot));
                },
                shot_timeout);
}

json::object clip(double x, double y, double w, double h) {
  return json::object{{"x", x}, {"y", y}, {"width", w}, {"height", h}, {"scale", 1}};
}

}  // namespace

void take_screenshot(std::shared_ptr<DevTools> browser, const std::string& session, ShotPlan plan,
                     std::function<void(Result<Shot>)> done) {
  if (!plan.selector.empty()) {
    const std::string selector = plan.selector;
    return browser->send(
        "Runtime.evaluate", json::object{{"expression", element_box(selector)}, {"returnByValue", true}}, session,
        [browser, session, selector, done](Result<json::object> r) {
          if (!r) return done(r.error());
          if (const json::value* ex = r->if_contains("exceptionDetails"); ex && ex->is_object()) {
            const json::value* thrown = ex->get_object().if_contains("exception");
            const json::value* described = thrown && thrown->is_object() ? thrown->get_object().if_contains("description") : nullptr;
            const std::string words = described && described->is_string() ? std::string(described->get_string()) : "it threw";
            return done(Failure{Error::bad_request, "selector " + selector + ": " + words.substr(0, words.find('\n'))});
          }
          const json::value* v = r->if_contains("result");
          const json::value* value = v && v->is_object() ? v->get_object().if_contains("value") : nullptr;
          if (!value || value->is_null()) return done(Failure{Error::not_found, "no element matches selector " + selector});
          const json::array* box = value->if_array();
          if (!box || box->size() != 4 || !std::all_of(box->begin(), box->end(), [](const json::value& n) { return n.is_number(); }))
            return done(Failure{Error::browser_error, "the page answered no box for selector " + selector});
          double b[4];
          for (int i = 0; i < 4; ++i) b[i] = (*box)[i].to_number<double>();
          if (b[2] < 1 || b[3] < 1) return done(Failure{Error::bad_request, "the element " + selector + " has no size"});
          Shot shot;
          shot.what = "element " + selector;
          shot.cut = b[2] > max_shot_width || b[3] > max_shot_height;
          capture(browser, session,
                  json::object{{"clip", clip(b[0], b[1], std::min<double>(b[2], max_shot_width),
                                             std::min<double>(b[3], max_shot_height))},
                               {"captureBeyondViewport", true}},
                  std::move(shot), done);
        },
        shot_timeout);
  }
  if (!plan.full_page) {
    Shot shot;
    shot.what = "viewport";
    return capture(browser, session, {}, std::move(shot), done);
  }
  browser->send("Page.getLayoutMetrics", {}, session,
                [browser, session, done](Result<json::object> r) {
                  if (!r) return done(r.error());
                  const double w = number_at(*r, "cssContentSize", "width");
                  const double h = number_at(*r, "cssContentSize", "height");
                  Shot shot;
                  shot.what = "full page";
                  shot.cut = w > max_shot_width || h > max_shot_height;
                  capture(browser, session,
                          json::object{{"clip", clip(0, 0, std::clamp<double>(w, 1, max_shot_width),
                                                     std::clamp<double>(h, 1, max_shot_height))},
                                       {"captureBeyondViewport", true}},
                          std::move(shot), done);
                },
                shot_timeout);
}

}  // namespace services
