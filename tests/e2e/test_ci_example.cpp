// The CI example of docs/guide/ci.md, run as the page writes it: its shell
// script against a small static app served by Node (fixtures/ci/app), with
// the gateway's own headless Chromium. It passes when the edits apply and
// the check holds, and fails when a block fails or the check throws; the
// workflow's commands are the script's.
#include "places.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace {

const test::fs::path guide = test::fs::path(FIXTURES) / "../docs/guide/ci.md";

// The fenced block of docs/guide/ci.md that starts with `opening` (its
// fence line and first line), without its fences.
std::string fenced(const std::string& opening) {
  const std::string md = test::read_file(guide);
  const std::size_t at = md.find(opening);
  REQUIRE(at != std::string::npos);
  const std::size_t from = md.find('\n', at) + 1;
  const std::size_t end = md.find("\n```\n", from);
  REQUIRE(end != std::string::npos);
  return md.substr(from, end + 1 - from);
}

std::string script() { return fenced("```sh\n#!/bin/sh\n"); }

// The app's greeting, checked in the page as the guide's CHECK does.
std::string check_greeting(const std::string& expected) {
  return "const h = document.querySelector('#greeting').textContent;\n"
         "if (h !== '" + expected + "') throw new Error('the greeting is ' + JSON.stringify(h));";
}

struct Example {
  test::TempDir app, scripts;
  unsigned short port = test::free_port();
  test::Proc proc;
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port) + "/"; }
  test::fs::path artifacts() const { return app / "editgate-artifacts"; }
  std::string log(const std::string& name) const {
    return test::fs::exists(artifacts() / name) ? test::read_file(artifacts() / name) : "";
  }

  // The script, from the app's checkout, with the build's editgate first on the PATH.
  Example(const std::string& edits, const std::string& check) {
    test::fs::copy(test::fs::path(FIXTURES) / "ci/app", app.path(), test::fs::copy_options::recursive);
    test::git_ok(app.path(), {"init", "-q"});
    test::git_ok(app.path(), {"add", "."});
    test::git_ok(app.path(), {"commit", "-q", "-m", "the app"});
    test::write_file(scripts / "editgate-check.sh", script());
    const std::string bin = test::fs::path(EDITGATE_BIN).parent_path().string();
    proc = test::run({"sh", "-c", "cd \"$1\" && exec sh \"$2\"", "sh", app.str(), (scripts / "editgate-check.sh").string()},
                     "",
                     {"PATH=" + bin + ":" + std::getenv("PATH"), "EDITS=" + (test::fs::path(FIXTURES) / "ci" / edits).string(),
                      "APP_URL=" + url(), "APP_START=node server.js " + std::to_string(port), "CHECK=" + check});
  }

  // What every run leaves, passed or failed: the screenshot in the
  // workspace and its copy, no gateway serving the checkout, no app.
  void check_left(const std::string& stdout_page_line) {
    INFO(proc.out << "\n---\n" << proc.err << "\n--- serve.log\n" << log("serve.log"));
    const std::string png = test::read_file(artifacts() / "page.png");
    CHECK(png.rfind("\x89PNG\r\n\x1a\n", 0) == 0);
    test::fs::path shot;
    for (const auto& e : test::fs::recursive_directory_iterator(app / "debug"))
      if (e.path().extension() == ".png") shot = e.path();
    REQUIRE_FALSE(shot.empty());
    CHECK(shot.filename() == "1.png");
    CHECK(shot.parent_path().filename().string().rfind("app", 0) == 0);
    CHECK(test::read_file(shot) == png);
    CHECK(proc.out.find(stdout_page_line) != std::string::npos);
    CHECK(proc.out.find("stopped the gateway serving") != std::string::npos);
    const test::Proc pages = test::run({EDITGATE_BIN, "pages", "--root", app.str()});
    CHECK(pages.exit_code == 2);
    CHECK(pages.err.find("no gateway is running") != std::string::npos);
    // The app was sent SIGTERM as the script ended: gone a moment later.
    bool app_gone = false;
    for (int i = 0; i < 50 && !app_gone; ++i) {
      app_gone = test::run({"curl", "-s", "-o", "/dev/null", url()}).exit_code != 0;
      if (!app_gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    CHECK(app_gone);
  }
};

}  // namespace

TEST_CASE("ci example: edits that apply and a check that holds - the script exits 0 with the screenshot", "[ci]") {
  Example ex("edits-apply.md", check_greeting("Hello, CI"));
  INFO(ex.proc.out << "\n---\n" << ex.proc.err << "\n--- serve.log\n" << ex.log("serve.log"));
  CHECK(ex.proc.exit_code == 0);
  CHECK(ex.proc.out.find("1 applied") != std::string::npos);
  ex.check_left(ex.url() + "\n");  // what `page go … reload` printed
  CHECK(test::read_file(ex.app / "index.html").find("Hello, CI") != std::string::npos);
  CHECK(test::git_ok(ex.app.path(), {"log", "-1", "--format=%an %s"}) == "agent edit index.html (1 applied)\n");
}

TEST_CASE("ci example: a failed block fails the script, and the page is still checked and pictured", "[ci]") {
  Example ex("edits-failed-block.md", check_greeting("Hello, CI"));
  INFO(ex.proc.out << "\n---\n" << ex.proc.err << "\n--- serve.log\n" << ex.log("serve.log"));
  CHECK(ex.proc.exit_code == 1);
  CHECK(ex.proc.out.find("1 applied, 1 failed") != std::string::npos);
  CHECK(ex.proc.err.find("the greeting is") == std::string::npos);  // the check held
  ex.check_left(ex.url() + "\n");
}

TEST_CASE("ci example: a check that throws fails the script, with the error on standard error", "[ci]") {
  Example ex("edits-apply.md", check_greeting("Hello, world"));
  INFO(ex.proc.out << "\n---\n" << ex.proc.err << "\n--- serve.log\n" << ex.log("serve.log"));
  CHECK(ex.proc.exit_code == 1);
  CHECK(ex.proc.out.find("1 applied") != std::string::npos);
  CHECK(ex.proc.err.find("Error: the greeting is \"Hello, CI\"") != std::string::npos);
  ex.check_left(ex.url() + "\n");
}

TEST_CASE("ci example: every editgate command of the workflow is the script's, word for word", "[ci]") {
  const std::string yaml = fenced("```yaml\nname: page check\n");
  const std::string sh = script();
  std::size_t commands = 0;
  std::size_t start = 0;
  while (start < yaml.size()) {
    std::size_t end = yaml.find('\n', start);
    if (end == std::string::npos) end = yaml.size();
    const std::string line = yaml.substr(start, end - start);
    start = end + 1;
    std::size_t at = line.find("editgate ");
    if (at == std::string::npos) at = line.find("timeout ");
    if (at == std::string::npos) continue;
    ++commands;
    INFO(line);
    CHECK(sh.find(line.substr(at)) != std::string::npos);
  }
  CHECK(commands == 10);
}
