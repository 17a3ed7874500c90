// `editgate page open|go|screenshot|close` against a running gateway and its
// own headless Chromium: what each prints for a script, the named code and
// exit 1 when the op failed, exit 2 when no gateway answers or --out cannot
// be written (the screenshot still in the workspace).
#include "client.hpp"
#include "support.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <csignal>
#include <unistd.h>

namespace {

namespace json = boost::json;

test::Proc editgate(std::vector<std::string> args) {
  args.insert(args.begin(), EDITGATE_BIN);
  return test::run(std::move(args));
}

// The CI example's app (fixtures/ci/app) served by Node on `port` until scope exit.
struct App {
  pid_t pid = -1;
  explicit App(unsigned short port) {
    const std::string server = (test::fs::path(FIXTURES) / "ci/app/server.js").string();
    const test::Proc started =
        test::run({"sh", "-c", "node \"$0\" \"$1\" >/dev/null 2>&1 & echo $!", server, std::to_string(port)});
    pid = std::stoi(started.out);
    for (int i = 0; i < 100 && test::run({"curl", "-sf", "-o", "/dev/null", url(port)}).exit_code != 0; ++i)
      ::usleep(50'000);
  }
  ~App() {
    ::kill(pid, SIGKILL);
  }
  static std::string url(unsigned short port, const std::string& path = "") {
    return "http://127.0.0.1:" + std::to_string(port) + "/" + path;
  }
};

}  // namespace

TEST_CASE("cli page: open, go, screenshot and close print what a script needs, a failed op is its code and exit 1", "[cli][owned]") {
  test::TempDir dir, out;
  client::Gateway gw(dir.str());
  const unsigned short port = test::free_port();
  App app(port);
  const std::string root = dir.str();

  test::Proc open = editgate({"page", "open", "--root", root, "--name", "shop", App::url(port)});
  INFO(open.err << gw.err());
  REQUIRE(open.exit_code == 0);
  const std::string page = open.out.substr(0, open.out.size() - 1);
  CHECK(open.out == page + "\n");  // the name alone, for page=$(…)
  CHECK(page.rfind("shop-", 0) == 0);

  // Navigated in place: the same page; back and forward print the URL then shown.
  test::Proc again = editgate({"page", "open", "--root", root, "--page", page, App::url(port, "index.html")});
  CHECK(again.exit_code == 0);
  CHECK(again.out == page + "\n");
  test::Proc back = editgate({"page", "go", "--root", root, page, "back"});
  CHECK(back.exit_code == 0);
  CHECK(back.out == App::url(port) + "\n");
  test::Proc forward = editgate({"page", "go", "--root", root, page, "forward", "--format", "json"});
  CHECK(forward.exit_code == 0);
  CHECK(json::parse(forward.out).at("url").as_string() == App::url(port, "index.html"));

  // The path in the workspace; --out writes the same bytes; json carries them as base64.
  test::Proc shot = editgate({"page", "screenshot", "--root", root, page, "--out", (out / "shot.png").string()});
  CHECK(shot.exit_code == 0);
  CHECK(shot.out == "debug/" + page + ".screenshots/1.png\n");
  const std::string png = test::read_file(dir / ("debug/" + page + ".screenshots/1.png"));
  CHECK(png.rfind("\x89PNG\r\n\x1a\n", 0) == 0);
  CHECK(test::read_file(out / "shot.png") == png);
  test::Proc element = editgate({"page", "screenshot", "--root", root, page, "--selector", "#greeting", "--format",
                                 "json", "--out", (out / "element.png").string()});
  CHECK(element.exit_code == 0);
  const json::object reply = json::parse(element.out).as_object();
  CHECK(reply.at("path").as_string() == "debug/" + page + ".screenshots/2.png");
  CHECK(test::read_file(out / "element.png") == test::read_file(dir / ("debug/" + page + ".screenshots/2.png")));
  CHECK(reply.at("png").as_string().size() > 0);

  // --out that cannot be written: exit 2 and why, the screenshot taken all the same.
  test::Proc nowhere =
      editgate({"page", "screenshot", "--root", root, page, "--out", (out / "missing/shot.png").string()});
  CHECK(nowhere.exit_code == 2);
  CHECK(nowhere.out == "debug/" + page + ".screenshots/3.png\n");
  CHECK(nowhere.err == "editgate page screenshot: io: cannot write " + (out / "missing/shot.png").string() +
                           " (No such file or directory)\n");
  CHECK(test::fs::exists(dir / ("debug/" + page + ".screenshots/3.png")));

  // Failed ops: the gateway's code and message, one line, exit 1.
  test::Proc ftp = editgate({"page", "open", "--root", root, "ftp://127.0.0.1/"});
  CHECK(ftp.exit_code == 1);
  CHECK(ftp.err.rfind("editgate page open: bad_request: ", 0) == 0);
  test::Proc unknown = editgate({"page", "screenshot", "--root", root, "nosuch"});
  CHECK(unknown.exit_code == 1);
  CHECK(unknown.err.rfind("editgate page screenshot: not_owned: ", 0) == 0);
  CHECK(unknown.out.empty());

  test::Proc close = editgate({"page", "close", "--root", root, page});
  CHECK(close.exit_code == 0);
  CHECK(close.out == "closed " + page + "\n");
  test::Proc twice = editgate({"page", "close", "--root", root, page});
  CHECK(twice.exit_code == 1);
  CHECK(twice.err.rfind("editgate page close: not_owned: ", 0) == 0);
  // Each command's agent and exchange are in the page's log.
  const std::string log = test::read_file(dir / ("debug/" + page + ".md"));
  CHECK(log.find("screenshot 1 by cli") != std::string::npos);
  CHECK(log.find("](" + page + ".screenshots/3.png)") != std::string::npos);
  CHECK(log.find("closed by cli") != std::string::npos);
}

TEST_CASE("cli page: no gateway is exit 2 and one line, a bad destination is a usage error", "[cli][owned]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"open", "http://127.0.0.1:1/"}, {"go", "p", "reload"}, {"screenshot", "p"},
        {"close", "p"}}) {
    std::vector<std::string> full{"page"};
    full.insert(full.end(), args.begin(), args.end());
    full.insert(full.end(), {"--root", dir.str()});
    test::Proc p = editgate(full);
    INFO(args[0]);
    CHECK(p.exit_code == 2);
    CHECK(p.err.rfind("editgate page " + args[0] + ": no gateway is running (none has served " + dir.str() + ")", 0) == 0);
    CHECK(p.err.find('\n') == p.err.size() - 1);  // one line
  }
  test::Proc sideways = editgate({"page", "go", "--root", dir.str(), "p", "sideways"});
  CHECK(sideways.exit_code == 2);
  CHECK(sideways.err.find("sideways not in {back,forward,reload}") != std::string::npos);
  CHECK(editgate({"page"}).exit_code == 2);  // a subcommand is required
}
