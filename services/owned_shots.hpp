// A screenshot of an owned page, over the DevTools protocol: the viewport,
// the whole page (cut at max_shot_width x max_shot_height CSS pixels), or
// one element found by a CSS selector. The PNG's bytes are the caller's
// to bound and keep (services/owned_pages.cpp).
#pragma once

#include "services/devtools.hpp"
#include "services/error.hpp"

#include <functional>
#include <memory>
#include <string>

namespace services {

struct ShotPlan {
  std::string selector;  // "" for the viewport or the page
  bool full_page = false;
};

struct Shot {
  std::string base64;  // the PNG, as the browser sent it
  int width = 0, height = 0;  // in pixels, from the PNG's header
  bool cut = false;           // the page was larger than a screenshot may be
  std::string what;           // "viewport", "full page", "element #app"
};

void take_screenshot(std::shared_ptr<DevTools> browser, const std::string& session, ShotPlan plan,
                     std::function<void(Result<Shot>)> done);

}  // namespace services
