// A real browser page: Debian's headless Chromium opens a page served on
// localhost (by a small Node static server) that includes /adapter.js, and
// an agent runs code in it through the gateway.
#include "client.hpp"
#include "places.hpp"
#include "pages.hpp"
#include "support.hpp"
#include "services/places.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <csignal>
#include <memory>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

// A background process, killed (with its group) when the test ends.
struct Child {
  pid_t pid = -1;
  explicit Child(std::vector<std::string> args, const std::string& log) {
    pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, 0);
      std::FILE* f = std::fopen(log.c_str(), "w");
      if (f) {
        ::dup2(fileno(f), 1);
        ::dup2(fileno(f), 2);
      }
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execvp(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~Child() {
    if (pid <= 0) return;
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
};

std::string chromium() {
  for (const char* name : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (::access(name, X_OK) == 0) return name;
  return "";
}

// Serves `site` on 127.0.0.1:`port` (logging each request): /name.html when
// the site has it, index.html for any other path. Opens `url` in headless
// Chromium with the flags of the issue (the back/forward cache on, as by
// default). Both until scope exit.
struct BrowsedSite {
  std::unique_ptr<Child> server, browser;
  BrowsedSite(const test::TempDir& site, const test::TempDir& profile, unsigned short port, const std::string& url,
              std::vector<std::string> extra_flags = {}) {
    if (chromium().empty()) FAIL("chromium is not installed (scripts/deps.sh installs it)");
    const std::string program =
        "const http=require('http'),fs=require('fs');http.createServer((q,r)=>{console.log('GET '+q.url);"
        "const p=new URL(q.url,'http://x').pathname,f=process.argv[1]+p;"
        "r.setHeader('content-type','text/html');"
        "r.end(fs.readFileSync(/^\\/[\\w-]+\\.html$/.test(p)&&fs.existsSync(f)?f:process.argv[1]+'/index.html'))})"
        ".listen(+process.argv[2],'127.0.0.1')";
    server = std::make_unique<Child>(std::vector<std::string>{"node", "-e", program, site.str(), std::to_string(port)},
                                     (site / "server.log").string());
    std::this_thread::sleep_for(300ms);
    std::vector<std::string> args{chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                                  "--no-first-run", "--disable-background-networking", "--disable-component-update",
                                  "--disable-sync", "--user-data-dir=" + profile.str()};
    args.insert(args.end(), extra_flags.begin(), extra_flags.end());
    args.push_back(url);
    browser = std::make_unique<Child>(args, (site / "chromium.log").string());
  }
};

// A page that loads the gateway's adapter after `body`, with the tag
// docs/guide/pages.md documents (`crossorigin`, so the browser does not mute
// the errors of evaluated code), or with the older tag without it.
std::string adapter_page(const std::string& title, const client::Gateway& gw, const std::string& body = "",
                         bool crossorigin = true) {
  return "<!doctype html><title>" + title + "</title><body>" + body + "<script src=\"http://127.0.0.1:" +
         std::to_string(gw.port()) + "/adapter.js?workspace=" + gw.workspace() + "\"" +
         (crossorigin ? " crossorigin" : "") + "></script></body>";
}

json::object obj(const std::string& text) { return json::parse(text).as_object(); }

json::array pages(client::Ws& ws) {
  ws.send(R"({"op":"pages"})");
  const json::object reply = obj(ws.until_done().back());
  return reply.at("pages").as_array();
}

// Up to 60 s: Chromium's first start under ctest -j2 beside a compiler.
std::string wait_browser_page(client::Ws& ws) {
  for (int i = 0; i < 600; ++i) {
    for (const auto& p : pages(ws))
      if (p.at("kind") == "browser" && p.at("state") != "disconnected") return std::string(p.at("page").as_string());
    std::this_thread::sleep_for(100ms);
  }
  return "";
}

json::object eval(client::Ws& ws, const std::string& page, const std::string& code) {
  ws.send(json::serialize(json::object{{"op", "eval"}, {"id", "b"}, {"page", page}, {"code", code}}));
  return obj(ws.until_done(30s).back());
}

}  // namespace

TEST_CASE("a headless Chromium page with /adapter.js runs code for an agent, and a reload keeps its log", "[browser]") {
  test::TempDir dir, site, profile;
  client::Gateway gw(dir.str());
  const unsigned short web = test::free_port();
  test::write_file(site / "index.html",
                   adapter_page("Test Page", gw, "<div id=app class=\"x y\"><p>a</p><p>b</p></div>"));
  BrowsedSite browsing(site, profile, web, "http://127.0.0.1:" + std::to_string(web) + "/");

  client::Ws ws(gw.port());
  ws.login(gw.cookie());
  const std::string page = wait_browser_page(ws);
  REQUIRE(page.rfind("test-page-", 0) == 0);

  CHECK(eval(ws, page, "document.title").at("value") == "Test Page");
  CHECK(eval(ws, page, "document.getElementById('app')").at("value") ==
        json::parse(R"x({"$node":"<div id=app class=\"x y\"> (2 children)"})x"));
  CHECK(eval(ws, page, "await new Promise(r => setTimeout(() => r(6 * 7), 10))").at("value") == 42);
  json::object thrown = eval(ws, page, "undefinedFunction()");
  CHECK(thrown.at("reason") == "page_error");
  CHECK(std::string(thrown.at("error").as_string()).rfind("ReferenceError", 0) == 0);
  json::object tagged = eval(ws, page, "[undefined, NaN, 5n, new Set([1]), () => 1]");
  CHECK(tagged.at("value").as_array()[2] == json::parse(R"({"$bigint":"5"})"));

  ws.send(json::serialize(json::object{{"op", "eval"}, {"id", "c"}, {"page", page}, {"code", "console.warn('careful'); 1"}}));
  auto msgs = ws.until_done(30s);
  CHECK(obj(msgs.front()).at("out") == "careful\n");
  CHECK(obj(msgs.front()).at("source") == "console.warn");
  CHECK(obj(msgs.back()).at("output") == "careful\n");

  // stdin by the eval's id alone, then eof: the tab's prompt resolves to null.
  ws.send(json::serialize(json::object{{"op", "eval"}, {"id", "ask"}, {"page", page},
                                       {"code", "[await editgate.prompt('Name?'), await editgate.prompt('More?')]"}}));
  for (const std::string value : {"Ann", "eof"}) {
    auto need = ws.read(30s);
    REQUIRE(need);
    CHECK(obj(*need).at("status") == json::array{"need-input"});
    ws.send(json::serialize(json::object{{"op", "stdin"}, {"id", "ask"}, {"value", value}}));
  }
  CHECK(obj(ws.until_done(30s).back()).at("value") == json::parse(R"(["Ann",null])"));

  // complete at a cursor, info and docs in a tab: the DOM's getters are
  // read (document.title), a function of the page's is described.
  ws.send(json::serialize(json::object{{"op", "complete"}, {"id", "c"}, {"page", page}, {"code", "document.tit + 1"}, {"cursor_pos", 12}}));
  const json::object c = obj(ws.until_done(30s).back());
  CHECK(c.at("completions") == json::array{"title"});
  CHECK(c.at("cursor_start") == 9);
  CHECK(c.at("cursor_end") == 12);
  eval(ws, page, "function greet(name) {\n  return 'hi ' + name;\n}");
  auto ask = [&](const std::string& op, const std::string& symbol) {
    ws.send(json::serialize(json::object{{"op", op}, {"id", "q"}, {"page", page}, {"symbol", symbol}}));
    return obj(ws.until_done(30s).back());
  };
  CHECK(ask("info", "document.title").at("info").at("kind") == "string");
  CHECK(ask("info", "greet").at("info").at("signature") == "greet(name)");
  CHECK(ask("docs", "greet").at("docs").at("source_head") == "function greet(name) {");
  const json::object native = ask("docs", "document.createElement");
  CHECK(native.at("docs").at("kind") == "function");
  CHECK(native.at("docs").at("native") == true);

  const test::fs::path log = dir / ("debug/" + page + ".md");
  std::string text = test::read_file(log);
  CHECK(text.find("```JSON\n\"Test Page\"\n```") != std::string::npos);
  CHECK(text.find("```Text console.warn\ncareful\n```") != std::string::npos);

  // A reload: the page comes back to the same log (sessionStorage keeps its id).
  eval(ws, page, "setTimeout(() => location.reload(), 50); 'reloading'");
  bool back = false;
  for (int i = 0; i < 200 && !back; ++i) {
    std::this_thread::sleep_for(50ms);
    back = test::read_file(log).find("reconnected at") != std::string::npos;
  }
  CHECK(back);
  CHECK(eval(ws, page, "1 + 1").at("value") == 2);
  // What took the instance back: its id and secret, kept in sessionStorage.
  CHECK(eval(ws, page, "JSON.parse(sessionStorage.getItem('editgate.instance')).secret.length").at("value") == 32);
  int browser_pages = 0;
  for (const auto& p : pages(ws)) browser_pages += p.at("kind") == "browser" ? 1 : 0;
  CHECK(browser_pages == 1);
}

namespace {

// A workspace with a commit, and its id and its own port.
struct Project {
  test::TempDir dir;
  std::string id;
  unsigned short port = 0;
  Project() {
    test::git_ok(dir.path(), {"init", "-q"});
    test::write_file(dir / "app.js", "// the app\n");
    test::git_ok(dir.path(), {"add", "app.js"});
    test::git_ok(dir.path(), {"commit", "-qm", "app"});
    id = services::places_of(dir.str())->id;
    port = services::default_port(id);
  }
  // Every ref's commits, and what debug/ holds: what a tab could have written.
  std::string written() const {
    std::string refs = test::git_ok(dir.path(), {"log", "--all", "--format=%s"});
    return refs + (test::fs::exists(dir / "debug") ? "debug/ exists\n" : "");
  }
};

// The browser pages of the gateway on `port`: their names.
std::vector<std::string> browser_pages(const client::Gateway& gw) {
  client::Ws ws(gw.port());
  ws.login(gw.cookie());
  std::vector<std::string> names;
  for (const auto& p : pages(ws))
    if (p.at("kind") == "browser" && p.at("state") != "disconnected") names.emplace_back(p.at("page").as_string());
  return names;
}

// Waits up to `seconds` for the gateway to have a connected browser page.
bool joins(const client::Gateway& gw, int seconds) {
  for (int i = 0; i < seconds * 10; ++i) {
    if (!browser_pages(gw).empty()) return true;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

// Whether the tab's console (Chromium run with --enable-logging=stderr) has
// said `text` within `seconds`.
bool console_says(const test::TempDir& site, const std::string& text, int seconds) {
  for (int i = 0; i < seconds * 10; ++i) {
    const auto log = site / "chromium.log";  // made by the browser's process, once it runs
    if (test::fs::exists(log) && test::read_file(log).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

}  // namespace

TEST_CASE("two projects on one machine: a tab joins its own project's gateway whichever starts first, even opened "
          "before it, and another project's gateway on its port refuses it and writes nothing",
          "[browser][security]") {
  Project a;
  auto other = std::make_unique<Project>();
  while (other->port == a.port) other = std::make_unique<Project>();  // 1 in 400: two folders, one port
  Project& b = *other;
  test::TempDir site, profile;
  const unsigned short web = test::free_port();
  // The tag B's gateway prints, pasted into B's app; the tab opens before any gateway runs.
  test::write_file(site / "index.html", "<!doctype html><title>B app</title><body>" +
                                            services::page_tag("http://127.0.0.1:" + std::to_string(b.port) + "/", b.id) +
                                            "</body>");
  BrowsedSite browsing(site, profile, web, "http://127.0.0.1:" + std::to_string(web) + "/",
                       {"--enable-logging=stderr", "--v=0"});
  std::this_thread::sleep_for(3s);  // the tag has tried, and failed, to load the adapter

  {
    // B first, on its own port: the waiting tab connects, with no reload.
    client::Gateway gb(b.dir.str(), {"--port", std::to_string(b.port)});
    REQUIRE(joins(gb, 60));
    // Then A, on its own port: the tab stays B's.
    client::Gateway ga(a.dir.str(), {"--port", std::to_string(a.port)});
    std::this_thread::sleep_for(1s);
    CHECK(browser_pages(ga).empty());
    CHECK(browser_pages(gb).size() == 1);
  }
  const std::string b_log = b.written();
  CHECK(b_log.find("connected") != std::string::npos);
  CHECK(a.written() == "app\n");

  {
    // A holds B's port (B is not running): the tab, reconnecting, is refused
    // with a message in its console, and nothing of it lands in A.
    client::Gateway ga(a.dir.str(), {"--port", std::to_string(b.port)});
    CHECK(console_says(site, "wrong_workspace", 15));
    CHECK(browser_pages(ga).empty());
  }
  CHECK(a.written() == "app\n");

  {
    // A first this time, then B: the tab finds B again.
    client::Gateway ga(a.dir.str(), {"--port", std::to_string(a.port)});
    client::Gateway gb(b.dir.str(), {"--port", std::to_string(b.port)});
    CHECK(joins(gb, 30));
    CHECK(browser_pages(ga).empty());
  }
  CHECK(a.written() == "app\n");
}

TEST_CASE("a tag that names no workspace does not connect, and says why in the console", "[browser]") {
  test::TempDir dir, site, profile;
  client::Gateway gw(dir.str());
  const unsigned short web = test::free_port();
  test::write_file(site / "index.html", "<!doctype html><title>Old</title><body><script src=\"http://127.0.0.1:" +
                                            std::to_string(gw.port()) + "/adapter.js\" crossorigin></script></body>");
  BrowsedSite browsing(site, profile, web, "http://127.0.0.1:" + std::to_string(web) + "/",
                       {"--enable-logging=stderr", "--v=0"});
  CHECK(console_says(site, "this tag names no workspace", 60));
  CHECK(browser_pages(gw).empty());
  CHECK_FALSE(test::fs::exists(dir / "debug"));
}

TEST_CASE("a page from a foreign origin cannot connect", "[browser]") {
  test::TempDir dir, site, profile;
  client::Gateway gw(dir.str());
  const unsigned short web = test::free_port();
  test::write_file(site / "index.html", adapter_page("Evil", gw));
  // evil.test resolves to 127.0.0.1 inside this browser only.
  BrowsedSite browsing(site, profile, web, "http://evil.test:" + std::to_string(web) + "/",
                       {"--host-resolver-rules=MAP evil.test 127.0.0.1"});
  client::Ws ws(gw.port());
  ws.login(gw.cookie());
  // The browser did load the page (and the adapter, which holds no
  // secret); the page door refuses its socket, however often it retries.
  // A first Chromium start on a loaded machine can take many seconds: 60 s,
  // as the other browser tests wait.
  bool loaded = false;
  for (int i = 0; i < 1200 && !loaded; ++i) {
    std::this_thread::sleep_for(50ms);
    loaded = test::read_file(site / "server.log").find("GET /") != std::string::npos;
  }
  REQUIRE(loaded);
  std::this_thread::sleep_for(3s);
  CHECK(pages(ws).empty());
  CHECK_FALSE(test::fs::exists(dir / "debug"));
}

TEST_CASE("a duplicated tab gets a log of its own, and a busy tab answers interrupt with not-interruptible", "[browser]") {
  test::TempDir dir, site, profile;
  client::Gateway gw(dir.str());
  const unsigned short web = test::free_port();
  test::write_file(site / "index.html", adapter_page("Twin", gw));
  BrowsedSite browsing(site, profile, web, "http://127.0.0.1:" + std::to_string(web) + "/", {"--disable-popup-blocking"});
  client::Ws ws(gw.port());
  ws.login(gw.cookie());
  const std::string first = wait_browser_page(ws);
  REQUIRE(!first.empty());

  // window.open copies sessionStorage, so the new tab first asks for the
  // first tab's instance: refused (no takeover), it then takes a new one.
  CHECK(eval(ws, first, "window.open(location.href) ? 'opened' : 'blocked'").at("value") == "opened");
  std::string second;
  for (int i = 0; i < 300 && second.empty(); ++i) {
    for (const auto& p : pages(ws))
      if (p.at("kind") == "browser" && p.at("state") != "disconnected" && p.at("page") != first.c_str())
        second = p.at("page").as_string();
    std::this_thread::sleep_for(50ms);
  }
  REQUIRE(!second.empty());
  CHECK(pages(ws).size() == 2);
  CHECK(eval(ws, second, "JSON.parse(sessionStorage.getItem('editgate.instance')).id").at("value") ==
        second.substr(second.rfind('-') + 1).c_str());
  CHECK(eval(ws, first, "1 + 1").at("value") == 2);
  const std::string first_log = test::read_file(dir / ("debug/" + first + ".md"));
  CHECK(first_log.find("reconnected") == std::string::npos);
  CHECK(first_log.find("sessionStorage") == std::string::npos);
  CHECK(test::fs::exists(dir / ("debug/" + second + ".md")));

  // A tab spinning in synchronous code cannot read the interrupt: the
  // gateway says so after its wait, and the job ends by its timeout.
  ws.send(json::serialize(json::object{{"op", "eval"}, {"id", "spin"}, {"page", second}, {"code", "while (true) {}"},
                                       {"timeout", 3000}}));
  std::this_thread::sleep_for(300ms);
  ws.send(json::serialize(json::object{{"op", "interrupt"}, {"id", "stop"}, {"page", second}}));
  std::map<std::string, json::object> finals;
  for (int i = 0; i < 20 && finals.size() < 2; ++i) {
    auto m = ws.read(15s);
    REQUIRE(m);
    json::object o = obj(*m);
    if (o.contains("status")) finals[std::string(o.at("id").as_string())] = o;
  }
  REQUIRE(finals.size() == 2);
  CHECK(finals["stop"].at("result") == "not-interruptible");
  CHECK(finals["spin"].at("reason") == "timeout");
  CHECK(test::read_file(dir / ("debug/" + second + ".md")).find("timeout") != std::string::npos);
  // (The first tab shares the spinning tab's renderer, its opener, so it
  // is stuck too: that is Chromium's doing, not the gateway's.)
}

TEST_CASE("a shell agent runs code in a Chromium tab through its log file and editgate wait", "[browser][files]") {
  test::TempDir dir, site, profile;
  client::Gateway gw(dir.str());
  const unsigned short web = test::free_port();
  test::write_file(site / "index.html", adapter_page("Files", gw, "<p id=a>from the tab</p>"));
  BrowsedSite browsing(site, profile, web, "http://localhost:" + std::to_string(web) + "/");
  client::Ws ws(gw.port());
  ws.login(gw.cookie());
  const std::string page = wait_browser_page(ws);
  REQUIRE_FALSE(page.empty());
  const std::string script = std::string(AGENTS) + "/append_and_wait.sh";
  auto w = test::run({"sh", script, EDITGATE_BIN, dir.str(), page, "document.getElementById('a').textContent"});
  CHECK(w.exit_code == 0);
  CHECK(w.out == "\"from the tab\"\n");
  w = test::run({"sh", script, EDITGATE_BIN, dir.str(), page, "location.port", "poll"});
  CHECK(w.exit_code == 0);
  CHECK(w.out.find(R"("result":")" + std::to_string(web) + "\"") != std::string::npos);
  const std::string log = test::read_file(dir / ("debug/" + page + ".md"));
  CHECK(log.find("```JSON\n\"from the tab\"\n```") != std::string::npos);
  CHECK(test::read_file(test::agents_of(dir.path()) / "pages" / page / "status.json").find(R"("state":"completed")") !=
        std::string::npos);
}

namespace {

// An agent's code throws later and leaves a promise rejected, in a tab whose
// app is served from another origin (port) than the gateway, as
// docs/guide/pages.md sets it up; the page's own handler throws too. All three
// reach the log in full: the browser mutes the errors of a cross-origin script
// loaded without CORS, and of all code it evaluates.
void errors_in_full(bool crossorigin) {
  test::TempDir dir, site, profile;
  client::Gateway gw(dir.str());
  const unsigned short web = test::free_port();
  REQUIRE(web != gw.port());
  test::write_file(site / "index.html",
                   adapter_page("Errors", gw,
                                "<button id=own onclick=\"setTimeout(() => { throw new Error('the page threw') })\">"
                                "</button>",
                                crossorigin));
  BrowsedSite browsing(site, profile, web, "http://127.0.0.1:" + std::to_string(web) + "/");
  client::Ws ws(gw.port());
  ws.login(gw.cookie());
  const std::string page = wait_browser_page(ws);
  REQUIRE_FALSE(page.empty());
  CHECK(eval(ws, page,
             "setTimeout(() => { throw new TypeError('thrown later') });\n"
             "Promise.reject(new RangeError('left rejected'));\n"
             "document.getElementById('own').click();\n"
             "'scheduled'")
            .at("value") == "scheduled");
  const std::string text = pagetest::wait_file(dir / ("debug/" + page + ".md"), [](const std::string& t) {
    return t.find("TypeError: thrown later\n    at ") != std::string::npos &&
           t.find("RangeError: left rejected\n    at ") != std::string::npos &&
           t.find("Error: the page threw\n    at ") != std::string::npos;
  });
  CHECK(text.find("Script error.") == std::string::npos);
  CHECK(text.find("```Error window.onerror\nTypeError: thrown later") != std::string::npos);
  CHECK(text.find("```Error unhandledrejection\nRangeError: left rejected") != std::string::npos);
  CHECK(text.find("at ws.onmessage") == std::string::npos);  // the adapter's frames under the agent's code are cut
}

}  // namespace

TEST_CASE("errors of an agent's code in a tab of another origin are reported in full (the documented tag)",
          "[browser]") {
  errors_in_full(true);
}

TEST_CASE("errors of an agent's code in a tab of another origin are reported in full (a tag without crossorigin)",
          "[browser]") {
  errors_in_full(false);
}

namespace {

// The first browser page whose url ends with `path`, connected; "" if none comes.
json::object wait_browser_url(client::Ws& ws, const std::string& path) {
  for (int i = 0; i < 150; ++i) {
    for (const auto& p : pages(ws)) {
      const std::string url(p.at("url").as_string());
      if (p.at("kind") == "browser" && p.at("state") != "disconnected" && url.size() >= path.size() &&
          url.compare(url.size() - path.size(), path.size(), path) == 0)
        return p.as_object();
    }
    std::this_thread::sleep_for(100ms);
  }
  return {};
}

}  // namespace

TEST_CASE("a tab is one instance across navigations: by location.href, by a link, and back from the back/forward cache",
          "[browser]") {
  test::TempDir dir, site, profile;
  client::Gateway gw(dir.str());
  const unsigned short web = test::free_port();
  test::write_file(site / "index.html", adapter_page("Nav", gw));
  test::write_file(site / "second.html", adapter_page("Second", gw, "<a id=next href=\"/third.html\">on</a>"));
  test::write_file(site / "third.html", adapter_page("Third", gw));
  // No flag touches the back/forward cache: it is on, as in a user's browser.
  BrowsedSite browsing(site, profile, web, "http://127.0.0.1:" + std::to_string(web) + "/");
  client::Ws ws(gw.port());
  ws.login(gw.cookie());
  const std::string page = wait_browser_page(ws);
  REQUIRE(page.rfind("nav-", 0) == 0);
  const test::fs::path log = dir / ("debug/" + page + ".md");
  auto one_instance = [&](const std::string& path) {
    const json::object p = wait_browser_url(ws, path);
    REQUIRE_FALSE(p.empty());
    CHECK(p.at("page") == page.c_str());  // the same instance, so the same log
    CHECK(eval(ws, page, "location.pathname").at("value") == path.c_str());
    CHECK(pages(ws).size() == 1);  // the document left is not a second, idle page
  };

  CHECK(eval(ws, page, "setTimeout(() => { location.href = '/second.html' }, 50); 'going'").at("value") == "going");
  one_instance("/second.html");
  CHECK(eval(ws, page, "window.left = 'second'; setTimeout(() => document.getElementById('next').click(), 50); 1")
            .at("value") == 1);
  one_instance("/third.html");
  // Back: the second document comes out of the cache as it was left (its
  // globals kept: not loaded again), and connects again.
  CHECK(eval(ws, page, "setTimeout(() => history.back(), 50); 1").at("value") == 1);
  one_instance("/second.html");
  CHECK(eval(ws, page, "window.left").at("value") == "second");

  const std::string text = test::read_file(log);
  CHECK(pagetest::count(text, "reconnected at") == 3);
  std::size_t logs = 0;
  for (const auto& e : test::fs::directory_iterator(dir / "debug"))
    logs += e.path().extension() == ".md" && e.path().filename() != "debug.md" ? 1 : 0;
  CHECK(logs == 1);
}

namespace {

// The DevTools protocol of the browser's first tab, spoken as a browser
// driver does (Chromium started with --remote-debugging-port): it sees a
// native dialog open, and closes it as only a person or a driver can.
struct Devtools {
  std::unique_ptr<client::Ws> ws;
  std::vector<json::object> events;  // read while waiting for answers, oldest first
  int next = 1;

  explicit Devtools(unsigned short port) {
    for (int i = 0; i < 300 && !ws; ++i) {
      client::Response r;
      try {
        r = client::request(port, "GET", "/json/list");
      } catch (const std::exception&) {
      }
      const json::value targets = r.status == 200 ? json::parse(r.body) : json::value(json::array{});
      for (const auto& t : targets.as_array())
          if (t.at("type") == "page" && t.as_object().contains("webSocketDebuggerUrl")) {
            const std::string url(t.at("webSocketDebuggerUrl").as_string());
            ws = std::make_unique<client::Ws>(port, std::map<std::string, std::string>{},
                                              url.substr(url.find("/devtools/")));
            break;
          }
      if (!ws) std::this_thread::sleep_for(100ms);
    }
    REQUIRE(ws);
    call("Page.enable");  // dialogs are reported to, and closed by, a client that enabled the domain
  }

  json::object call(const std::string& method, json::object params = {}) {
    const int id = next++;
    ws->send(json::serialize(json::object{{"id", id}, {"method", method}, {"params", std::move(params)}}));
    for (;;) {
      auto m = ws->read(30s);
      REQUIRE(m);
      json::object o = json::parse(*m).as_object();
      if (o.contains("id") && o.at("id") == id) return o;
      events.push_back(std::move(o));
    }
  }

  // The first event `method` read so far, or that comes (within 30 s).
  std::optional<json::object> event(const std::string& method) {
    for (;;) {
      for (const json::object& e : events)
        if (e.at("method") == method.c_str()) return e;
      auto m = ws->read(30s);
      if (!m) return std::nullopt;
      events.push_back(json::parse(*m).as_object());
    }
  }

  // Whether event `method` came before now: the browser answers a call
  // after the events it sent before it.
  bool seen(const std::string& method) {
    call("Runtime.evaluate", {{"expression", "1"}});
    for (const json::object& e : events)
      if (e.at("method") == method.c_str()) return true;
    return false;
  }
};

json::object page_named(client::Ws& ws, const std::string& page) {
  for (const auto& p : pages(ws))
    if (p.at("page") == page.c_str()) return p.as_object();
  return {};
}

// The page's state once it is `state` (up to 30 s); its last one otherwise.
json::object wait_state(client::Ws& ws, const std::string& page, const std::string& state) {
  json::object p;
  for (int i = 0; i < 300; ++i) {
    p = page_named(ws, page);
    if (p.contains("state") && p.at("state") == state.c_str()) break;
    std::this_thread::sleep_for(100ms);
  }
  return p;
}

json::object eval_with(client::Ws& ws, const std::string& page, const std::string& code, json::object more,
                       std::vector<json::object>* parts = nullptr) {
  json::object msg{{"op", "eval"}, {"id", "d"}, {"page", page}, {"code", code}};
  for (auto& kv : more) msg[kv.key()] = kv.value();
  ws.send(json::serialize(msg));
  auto all = ws.until_done(30s);
  if (parts)
    for (std::size_t i = 0; i + 1 < all.size(); ++i) parts->push_back(obj(all[i]));
  return obj(all.back());
}

// A gateway and a tab of `title` connected to it, in a Chromium that a
// driver's DevTools client is attached to.
struct DriverTab {
  test::TempDir dir, site, profile;
  client::Gateway gw{dir.str()};
  const unsigned short web = test::free_port(), devtools_port = test::free_port();
  std::unique_ptr<BrowsedSite> browsing;
  std::unique_ptr<Devtools> devtools;
  client::Ws ws{gw.port()};
  std::string page;

  explicit DriverTab(const std::string& title) {
    test::write_file(site / "index.html", adapter_page(title, gw));
    browsing = std::make_unique<BrowsedSite>(site, profile, web, "http://127.0.0.1:" + std::to_string(web) + "/",
                                             std::vector<std::string>{"--remote-debugging-port=" +
                                                                      std::to_string(devtools_port)});
    devtools = std::make_unique<Devtools>(devtools_port);
    ws.login(gw.cookie());
    page = wait_browser_page(ws);
  }
};

}  // namespace

TEST_CASE("a tab's alert, confirm and prompt in an agent's code are answered as the eval asks, never shown",
          "[browser][dialogs]") {
  DriverTab tab("Dialogs");
  REQUIRE(tab.page.rfind("dialogs-", 0) == 0);
  client::Ws& ws = tab.ws;
  const std::string& page = tab.page;

  // By default each is dismissed: confirm false, prompt null.
  std::vector<json::object> parts;
  const json::object dismissed =
      eval_with(ws, page, "[confirm('Delete all?'), alert('Done'), prompt('Name?', 'Ann')]", {}, &parts);
  CHECK(dismissed.at("value") == json::parse(R"([false, {"$undefined": true}, null])"));
  CHECK(dismissed.at("dialogs") == json::parse(R"([
      {"kind": "confirm", "message": "Delete all?", "answer": "dismiss", "value": false},
      {"kind": "alert", "message": "Done", "answer": "dismiss"},
      {"kind": "prompt", "message": "Name?", "answer": "dismiss", "default": "Ann", "value": null}])"));
  REQUIRE(parts.size() == 3);  // each as it was answered
  CHECK(parts[0].at("dialog").at("kind") == "confirm");
  // Accepted, a prompt with the eval's text or else its own default.
  const json::object accepted =
      eval_with(ws, page, "[confirm('Sure?'), prompt('Name?', 'Ann')]", {{"dialog", "accept"}, {"prompt_text", "Bob"}});
  CHECK(accepted.at("value") == json::parse(R"([true, "Bob"])"));
  CHECK(accepted.at("dialogs").at(1).at("answer") == "accept");
  CHECK(eval_with(ws, page, "prompt('Name?', 'Ann')", {{"dialog", "accept"}}).at("value") == "Ann");
  // Opened by the page's own code that the agent's ran (a click), after an
  // await: still the eval's to answer.
  CHECK(eval_with(ws, page,
                  "const b = document.createElement('button'); b.onclick = () => { b.said = confirm('From a click'); };\n"
                  "await new Promise(r => setTimeout(r, 10)); b.click(); b.said",
                  {{"dialog", "accept"}})
            .at("value") == true);
  // The page was never held: the next eval runs at once, and no native dialog opened.
  CHECK(eval(ws, page, "1 + 1").at("value") == 2);
  CHECK_FALSE(tab.devtools->seen("Page.javascriptDialogOpening"));
  CHECK(page_named(ws, page).at("state") == "idle");

  // Each is an event of the page, in its log and its events.
  const std::string log = test::read_file(tab.dir / ("debug/" + page + ".md"));
  CHECK(log.find("```Text dialog\nconfirm(\"Delete all?\") answered dismiss (false)\n```") != std::string::npos);
  CHECK(log.find("prompt(\"Name?\", \"Ann\") answered accept (\"Bob\")") != std::string::npos);
  ws.send(json::serialize(json::object{{"op", "events"}, {"id", "e"}, {"page", page}}));
  const std::string events = ws.until_done(30s).back();
  CHECK(events.find(R"(alert(\"Done\") answered dismiss)") != std::string::npos);
}

TEST_CASE("a tab's own dialog outside agent code holds the page: its state says so until it is closed",
          "[browser][dialogs]") {
  DriverTab tab("Held");
  client::Ws& ws = tab.ws;
  Devtools& devtools = *tab.devtools;
  const std::string& page = tab.page;
  REQUIRE(page.rfind("held-", 0) == 0);

  // The page's own code (here a driver's, outside any job) opens an alert:
  // a native one, which blocks the tab's thread until it is closed. What
  // the adapter sent just before it blocked reached the gateway.
  devtools.call("Runtime.evaluate", {{"expression", "setTimeout(() => alert('Saved!'), 0); 1"}});
  const auto opening = devtools.event("Page.javascriptDialogOpening");
  REQUIRE(opening);
  CHECK(opening->at("params").at("message") == "Saved!");
  const json::object held = wait_state(ws, page, "dialog");
  REQUIRE(held.at("state") == "dialog");
  CHECK(held.at("dialog").at("kind") == "alert");
  CHECK(held.at("dialog").at("message") == "Saved!");

  // Meanwhile an eval is refused at once, and an interrupt says why.
  const auto asked = std::chrono::steady_clock::now();
  const json::object refused = eval(ws, page, "1 + 1");
  CHECK(refused.at("reason") == "dialog_open");
  CHECK(std::string(refused.at("error").as_string()).find("alert(\"Saved!\")") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - asked < 5s);
  ws.send(json::serialize(json::object{{"op", "interrupt"}, {"id", "i"}, {"page", page}}));
  const json::object interrupted = obj(ws.until_done(30s).back());
  CHECK(interrupted.at("result") == "not-interruptible");
  CHECK(interrupted.at("dialog").at("kind") == "alert");
  CHECK(std::string(interrupted.at("message").as_string()).find("held by its own dialog") != std::string::npos);

  // Closed (as a driver, or the person, does): idle again, and evals run.
  devtools.call("Page.handleJavaScriptDialog", {{"accept", true}});
  CHECK(wait_state(ws, page, "idle").at("state") == "idle");
  CHECK(eval(ws, page, "1 + 1").at("value") == 2);
  ws.send(json::serialize(json::object{{"op", "events"}, {"id", "e"}, {"page", page}}));
  const std::string events = ws.until_done(30s).back();
  INFO(events);
  CHECK(events.find(R"(alert(\"Saved!\") opened by the page)") != std::string::npos);
  CHECK(events.find(R"(alert(\"Saved!\") closed: accept)") != std::string::npos);
}
