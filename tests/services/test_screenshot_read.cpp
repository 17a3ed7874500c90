// The screenshots the dashboard is sent (services/screenshot_read.hpp),
// against real files: only debug/<page>.screenshots/<n>.png, never
// through a symlink (one that stays inside included), nothing outside the
// workspace, a missing file and one over the bound refused by name.
#include "services/screenshot_read.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

using services::Error;
using test::TempDir;
using test::write_file;

namespace {

const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + "pixels";

editproto::Workspace open_ws(const TempDir& d) { return editproto::Workspace::open(d.str()).value(); }

Error refusal(const editproto::Workspace& ws, std::string_view path) {
  auto r = services::read_screenshot(ws, path);
  INFO(path);
  REQUIRE_FALSE(r.has_value());
  return r.error().code;
}

}  // namespace

TEST_CASE("screenshot_path takes debug/<page>.screenshots/<n>.png and nothing else", "[screenshots][unit]") {
  for (std::string_view ok : {"debug/x-1a2b.screenshots/3.png", "debug/node-0123456789ab.screenshots/1.png",
                              "debug/App_v2.0-1a2b.screenshots/123456789.png"})
    CHECK(services::screenshot_path(ok));
  for (std::string_view bad :
       {"", "debug/x.screenshots/.png", "debug/x.screenshots/1.PNG", "debug/x.screenshots/1.png/", "debug/.screenshots/1.png",
        "debug/..screenshots/1.png", "debug/.x.screenshots/1.png", "debug/-x.screenshots/1.png",
        "debug/../x.screenshots/1.png", "debug/x.screenshots/../1.png", "debug/x.screenshots/a/1.png",
        "./debug/x.screenshots/1.png", "/debug/x.screenshots/1.png", "debug//x.screenshots/1.png",
        "debug\\x.screenshots\\1.png", "debug/x.screenshots/1234567890.png", "debug/x.screenshots/-1.png",
"debug/x y.screenshots/1.png", "debug/x.md", "notes.txt", ".git/config",
        "debug/x.screenshot/1.png", "Debug/x.screenshots/1.png"})
    CHECK_FALSE(services::screenshot_path(bad));
  CHECK_FALSE(services::screenshot_path(std::string_view("debug/x.screenshots/1.png\0", 26)));
  CHECK_FALSE(services::screenshot_path("debug/" + std::string(65, 'a') + ".screenshots/1.png"));
  CHECK(services::screenshot_path("debug/" + std::string(64, 'a') + ".screenshots/1.png"));
}

TEST_CASE("read_screenshot reads the file's bytes, exactly", "[screenshots][unit]") {
  TempDir d;
  write_file(d / "debug/x-1a2b.screenshots/3.png", png);
  auto r = services::read_screenshot(open_ws(d), "debug/x-1a2b.screenshots/3.png");
  REQUIRE(r.has_value());
  CHECK(*r == png);
}

TEST_CASE("read_screenshot refuses other paths, symlinks and what is missing or too large, by name",
          "[screenshots][unit]") {
  TempDir outside, d;
  write_file(outside / "secret.png", png);
  write_file(d / "debug/x-1a2b.screenshots/1.png", png);
  write_file(d / "notes.txt", "notes\n");
  const auto ws = open_ws(d);

  CHECK(refusal(ws, "notes.txt") == Error::path_refused);
  CHECK(refusal(ws, "debug/../debug/x-1a2b.screenshots/1.png") == Error::path_refused);
  CHECK(refusal(ws, "debug/x-1a2b.screenshots/../x-1a2b.screenshots/1.png") == Error::path_refused);

  // A link to a file outside, to another file inside, a linked folder, a
  // linked debug/: each is refused, whatever it points at.
  REQUIRE(::symlink((outside / "secret.png").c_str(), (d / "debug/x-1a2b.screenshots/2.png").c_str()) == 0);
  REQUIRE(::symlink("1.png", (d / "debug/x-1a2b.screenshots/3.png").c_str()) == 0);
  REQUIRE(::symlink("x-1a2b.screenshots", (d / "debug/y-1a2b.screenshots").c_str()) == 0);
  for (auto path : {"debug/x-1a2b.screenshots/2.png", "debug/x-1a2b.screenshots/3.png", "debug/y-1a2b.screenshots/1.png"})
    CHECK(refusal(ws, path) == Error::path_refused);
  TempDir linked;
  write_file(linked / "real/x-1a2b.screenshots/1.png", png);
  REQUIRE(::symlink("real", (linked / "debug").c_str()) == 0);
  CHECK(refusal(open_ws(linked), "debug/x-1a2b.screenshots/1.png") == Error::path_refused);

  CHECK(refusal(ws, "debug/x-1a2b.screenshots/9.png") == Error::not_found);
  CHECK(refusal(ws, "debug/none-1a2b.screenshots/1.png") == Error::not_found);
  test::fs::create_directories(d / "debug/x-1a2b.screenshots/4.png");
  CHECK(refusal(ws, "debug/x-1a2b.screenshots/4.png") == Error::not_found);

  write_file(d / "debug/x-1a2b.screenshots/5.png", std::string(services::max_screenshot_bytes + 1, 'p'));
  CHECK(refusal(ws, "debug/x-1a2b.screenshots/5.png") == Error::file_too_large);
  write_file(d / "debug/x-1a2b.screenshots/6.png", std::string(services::max_screenshot_bytes, 'p'));
  CHECK(services::read_screenshot(ws, "debug/x-1a2b.screenshots/6.png").value().size() == services::max_screenshot_bytes);
}
