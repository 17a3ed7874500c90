// The live pages' round trip, against the same page without the gateway and
// against Playwright, in one run; and evals per second with 100 tabs busy,
// through the gateway and through the bare adapter (the same floor server).
//
// Round trip: an agent's WebSocket `eval` op ("1 + 1") to the gateway, which
// writes the request into the page's log, runs it in the page, writes the
// reply under it and answers; timed at the agent from the op sent to the
// reply read. Floors, the same page with no gateway in between:
//  - Node: the page program the gateway runs (node-page.cjs in its state folder), driven
//    straight over its fd 3 socket pair by this program;
//  - Chromium: the same /adapter.js in a tab of the same browser, connected to
//    a WebSocket server in this program that speaks the page protocol itself.
// Playwright: page.evaluate("1 + 1") on a tab of the same browser, which
// playwright-core launched (bench/pages_playwright.cjs).
// The contenders take turns in rounds, so a slow moment of the machine
// falls on all of them. After each gateway part the bench checks that every
// exchange is in the log and committed (the log on the REPL's ref, or HEAD's
// for an editgate from before that ref, holds every reply and the work tree
// is clean).
#include "child.hpp"
#include "services/places.hpp"
#include "percentiles.hpp"
#include "process.hpp"
#include "workspace.hpp"
#include "repl/assets.hpp"
#include "thread_cpu.hpp"
#include "tests/client.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/json.hpp>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
namespace json = boost::json;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

struct Args {
  std::string editgate, workdir, chromium = "/usr/bin/chromium", node = "node", script;
  int samples = 300;   // per contender, in rounds
  int rounds = 6;
  int warmup = 30;
  int pages = 100;     // busy pages
  int busy_evals = 3000;
  int agents = 4;      // agent connections driving the busy pages
  int file_samples = 60;  // file appends (each waits for the debounce)
  std::string only;    // node, chromium, busy or files: that part alone
};

const std::string code = "1 + 1";

using bench::ms;
using bench::Child;

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("wrong result: " + what);
}

using bench::count;
using bench::git_out;
using bench::slurp;

// A repository with one commit, for a gateway to serve.
fs::path workspace(const Args& a, const std::string& name) { return bench::workspace(fs::path(a.workdir) / name); }

// Every exchange is in the log and committed: the committed copy of each
// page's log (on the REPL's ref, or HEAD before it) holds `replies` replies
// in all, and nothing is left uncommitted.
void check_committed(const fs::path& dir, const std::vector<std::string>& stems, std::size_t replies) {
  const std::string rev = bench::logs_rev(dir);
  std::size_t found = 0;
  for (const std::string& stem : stems)
    found += count(git_out(dir, {"show", bench::committed_log(rev, "debug/" + stem + ".md")}),
                   "\n> **" + stem + "** to bench at ");
  expect(found == replies, std::to_string(found) + " replies committed, " + std::to_string(replies) + " sent");
  const std::string status = git_out(dir, {"status", "--porcelain"});
  expect(status.empty(), "uncommitted after the run: " + status);
}

// ---- the floors ---------------------------------------------------------------

// The Node page program, driven over its socket pair as the gateway would.
class NodeFloor {
 public:
  NodeFloor(const Args& a, const fs::path& root) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) throw std::runtime_error("socketpair");
    child_ = std::make_unique<Child>(std::vector<std::string>{a.node, services::places_of(root.string())->state + "/node-page.cjs"},
                                     (root.parent_path() / "node-floor.log").string(), root, sv[1]);
    ::close(sv[1]);
    fd_ = sv[0];
    json::object hello = json::parse(Child::read_line(fd_, buffer_)).as_object();
    expect(hello.at("type") == "hello", "the Node page's hello");
    Child::write_all(fd_, R"({"type":"welcome","id":"floor","name":"node-floor","log":""})" "\n");
  }
  ~NodeFloor() { ::close(fd_); }

  double eval(std::uint64_t job) {
    const std::string msg =
        json::serialize(json::object{{"type", "eval"}, {"job", job}, {"code", code}, {"timeout_ms", 60000}}) + "\n";
    auto t0 = clock_type::now();
    Child::write_all(fd_, msg);
    for (;;) {
      json::object m = json::parse(Child::read_line(fd_, buffer_)).as_object();
      if (m.at("type") == "result" && m.at("job") == json::value(job)) {
        double took = ms(clock_type::now() - t0);
        expect(m.at("value") == json::value(2), "Node floor value");
        return took;
      }
    }
  }

 private:
  std::unique_ptr<Child> child_;
  int fd_ = -1;
  std::string buffer_;
};

// A WebSocket server speaking the page protocol itself, and the pages the
// browser loads: /raw.html (adapter from here), /gw.html and /busy.html
// (adapter from the gateway), /blank.html (for Playwright), /adapter.js.
// It keeps the first `expect_pages` page sockets (1 unless told), each
// driven by one thread of this program.
class RawPages {
 public:
  RawPages() : shared_(std::make_shared<Shared>()), acceptor_(ioc_, {net::ip::make_address("127.0.0.1"), 0}) {
    shared_->adapter = repl::adapter_js();
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] { accept_loop(); });
  }
  ~RawPages() {
    stop_ = true;
    boost::system::error_code ec;
    tcp::socket wake(ioc_);
    wake.connect({net::ip::make_address("127.0.0.1"), port_}, ec);
    thread_.join();
    std::lock_guard lock(shared_->m);
    shared_->pages.clear();  // before the io_context they use
  }

  unsigned short port() const { return port_; }
  std::string url(const std::string& page) const { return "http://127.0.0.1:" + std::to_string(port_) + page; }
  void set_gateway(const client::Gateway& gw) {
    std::lock_guard lock(shared_->m);
    shared_->gateway = gw.port();
    shared_->workspace = gw.workspace();
  }

  // Forgets the pages kept so far and keeps the next `n`.
  void expect_pages(std::size_t n) {
    std::lock_guard lock(shared_->m);
    shared_->pages.clear();
    shared_->capacity = n;
  }
  // The raw pages' sockets, once `n` hellos are answered.
  void wait_page(std::size_t n = 1) {
    std::unique_lock lock(shared_->m);
    if (!shared_->cv.wait_for(lock, 60s, [&] { return shared_->pages.size() >= n; }))
      throw std::runtime_error(std::to_string(shared_->pages.size()) + " of " + std::to_string(n) +
                               " raw pages connected");
  }

  double eval(std::uint64_t job, std::size_t page = 0) {
    websocket::stream<tcp::socket>* socket = nullptr;
    {
      std::lock_guard lock(shared_->m);
      socket = shared_->pages.at(page).get();
    }
    auto& ws = *socket;
    const std::string msg =
        json::serialize(json::object{{"type", "eval"}, {"job", job}, {"code", code}, {"timeout_ms", 60000}});
    beast::flat_buffer buffer;
    auto t0 = clock_type::now();
    ws.write(net::buffer(msg));
    for (;;) {
      buffer.clear();
      ws.read(buffer);
      json::object m = json::parse(beast::buffers_to_string(buffer.data())).as_object();
      if (m.at("type") == "result" && m.at("job") == json::value(job)) {
        double took = ms(clock_type::now() - t0);
        expect(m.at("value") == json::value(2), "raw page value");
        return took;
      }
    }
  }

 private:
  struct Shared {
    std::mutex m;
    std::condition_variable cv;
    std::string adapter;
    unsigned short gateway = 0;
    std::string workspace;
    std::size_t capacity = 1;
    std::vector<std::unique_ptr<websocket::stream<tcp::socket>>> pages;
  };

  void accept_loop() {
    for (;;) {
      tcp::socket s(ioc_);
      boost::system::error_code ec;
      acceptor_.accept(s, ec);
      if (stop_) return;
      if (ec) continue;
      s.set_option(tcp::no_delay(true), ec);
      // A thread per connection: it holds only the socket and the shared state.
      std::thread([shared = shared_, s = std::move(s)]() mutable { serve(shared, std::move(s)); }).detach();
    }
  }

  static void serve(std::shared_ptr<Shared> shared, tcp::socket s) {
    try {
      beast::flat_buffer buffer;
      http::request<http::string_body> req;
      http::read(s, buffer, req);
      const std::string target(req.target());
      // The adapter's socket URL names its workspace (/v1/page?workspace=ID); only the path counts.
      if (websocket::is_upgrade(req) && target.substr(0, target.find('?')) == "/v1/page") {
        auto ws = std::make_unique<websocket::stream<tcp::socket>>(std::move(s));
        ws->accept(req);
        beast::flat_buffer hello;
        ws->read(hello);
        ws->text(true);
        ws->write(net::buffer(std::string(R"({"type":"welcome","id":"raw","name":"raw","log":""})")));
        std::lock_guard lock(shared->m);
        if (shared->pages.size() < shared->capacity) {
          shared->pages.push_back(std::move(ws));
          shared->cv.notify_all();
        }
        return;
      }
      http::response<http::string_body> res{http::status::ok, req.version()};
      std::string gateway;
      {
        std::lock_guard lock(shared->m);
        gateway = "http://127.0.0.1:" + std::to_string(shared->gateway) + "/adapter.js?workspace=" + shared->workspace;
      }
      auto page = [](const std::string& title, const std::string& adapter) {
        return "<!doctype html><title>" + title + "</title>" +
               (adapter.empty() ? "" : "<script src=\"" + adapter + "\" crossorigin></script>");
      };
      res.set(http::field::content_type, "text/html");
      // The raw server checks no workspace; the adapter wants one named.
      if (target == "/raw.html") res.body() = page("raw", "/adapter.js?workspace=raw");
      else if (target == "/gw.html") res.body() = page("gw", gateway);
      else if (target == "/busy.html") res.body() = page("busy", gateway);
      else if (target == "/blank.html") res.body() = page("blank", "");
      else if (target.starts_with("/adapter.js")) {
        res.set(http::field::content_type, "text/javascript");
        res.body() = shared->adapter;
      } else {
        res.result(http::status::not_found);
      }
      res.keep_alive(false);
      res.prepare_payload();
      http::write(s, res);
      s.shutdown(tcp::socket::shutdown_both);
    } catch (const std::exception&) {
      // A browser's speculative connection that closed: nothing to serve.
    }
  }

  std::shared_ptr<Shared> shared_;
  net::io_context ioc_;
  tcp::acceptor acceptor_;
  unsigned short port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// `count` new tabs on `url`, in the browser Playwright launched.
void open_tabs(Child& browser, const std::string& url, int count) {
  browser.send(json::serialize(json::object{{"cmd", "open"}, {"url", url}, {"count", count}}));
  const std::string answer = browser.line();
  expect(json::parse(answer).as_object().contains("opened"), "Playwright's answer: " + answer);
}

// ---- the agent's side -------------------------------------------------------

json::array pages(client::Ws& ws) {
  ws.send(R"({"op":"pages"})");
  return json::parse(ws.until_done().back()).as_object().at("pages").as_array();
}

// The connected pages' names once `n` of `kind` are there.
std::vector<std::string> wait_pages(client::Ws& ws, const std::string& kind, std::size_t n,
                                    std::chrono::seconds within = 60s) {
  for (auto until = clock_type::now() + within; clock_type::now() < until;) {
    std::vector<std::string> names;
    for (const auto& p : pages(ws))
      if (p.at("kind") == json::string_view(kind) && p.at("state") != "disconnected") names.emplace_back(p.at("page").as_string());
    if (names.size() >= n) return names;
    std::this_thread::sleep_for(50ms);
  }
  throw std::runtime_error("fewer than " + std::to_string(n) + " " + kind + " pages connected to the gateway");
}

double gateway_eval(client::Ws& ws, const std::string& page) {
  const std::string msg =
      json::serialize(json::object{{"op", "eval"}, {"id", "e"}, {"agent", "bench"}, {"page", page}, {"code", code}});
  auto t0 = clock_type::now();
  ws.send(msg);
  std::vector<std::string> replies = ws.until_done(30s);
  double took = ms(clock_type::now() - t0);
  json::object done = json::parse(replies.back()).as_object();
  expect(done.contains("value") && done.at("value") == json::value(2), "gateway eval: " + replies.back());
  return took;
}

// A file-driven agent: appends a request to the log, and is done when
// completed.marker holds the job's number (seen through inotify, as a
// careful agent would; polling would only add its own interval).
class FileAgent {
 public:
  FileAgent(const fs::path& root, const std::string& page)
      : page_(page), log_(root / "debug" / (page + ".md")), dir_(fs::path(services::places_of(root.string())->agents) / "pages" / page),
        fd_(::inotify_init1(IN_CLOEXEC)) {
    // The page's folder appears with its first status file, on the status
    // files' thread, maybe after the page is listed as connected.
    for (int i = 0; i < 500 && !fs::exists(dir_); ++i) std::this_thread::sleep_for(10ms);
    if (fd_ < 0 || ::inotify_add_watch(fd_, dir_.c_str(), IN_MOVED_TO | IN_CLOSE_WRITE) < 0)
      throw std::runtime_error("inotify on " + dir_.string());
  }
  ~FileAgent() { ::close(fd_); }
  std::vector<double> accepted;  // append -> ack.marker, per run

  double run() {
    const std::uint64_t before = number("ack.marker");
    const std::string request = "> **bench** to " + page_ + " at 12:00:00\n```js\n" + code + "\n```\n";
    auto t0 = clock_type::now();
    const int fd = ::open(log_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0 || ::write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size()))
      throw std::runtime_error("cannot append to " + log_.string());
    ::close(fd);
    // Accepted once ack.marker passes `before`; answered once completed.marker reaches it.
    bool acked = false;
    for (;;) {
      const std::uint64_t ack = number("ack.marker");
      if (ack > before && !acked) {
        acked = true;
        accepted.push_back(ms(clock_type::now() - t0));
      }
      if (ack > before && number("completed.marker") >= ack) break;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 10'000) <= 0) throw std::runtime_error("no completed.marker within 10 s");
      char buf[4096];
      if (::read(fd_, buf, sizeof buf) < 0) throw std::runtime_error("inotify read");
    }
    return ms(clock_type::now() - t0);
  }

 private:
  std::uint64_t number(const char* marker) const {
    std::ifstream f(dir_ / marker);
    std::uint64_t n = 0;
    f >> n;
    return n;
  }
  std::string page_;
  fs::path log_, dir_;
  int fd_;
};

void print_row(const char* name, const bench::Percentiles& s, const bench::Percentiles& floor,
               const bench::Percentiles* pw) {
  std::printf("| %s | %.3f | %.3f | %.2f |", name, s.p50, s.p99, s.p50 / floor.p50);
  if (pw) std::printf(" %.2f |", s.p50 / pw->p50);
  std::printf("\n");
}

}  // namespace

int run(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) throw std::runtime_error(k + " needs a value");
      return std::string(argv[++i]);
    };
    auto number = [&] { return std::stoi(value()); };
    if (k == "--editgate") a.editgate = value();
    else if (k == "--workdir") a.workdir = value();
    else if (k == "--chromium") a.chromium = value();
    else if (k == "--node") a.node = value();
    else if (k == "--script") a.script = value();
    else if (k == "--samples") a.samples = number();
    else if (k == "--rounds") a.rounds = number();
    else if (k == "--warmup") a.warmup = number();
    else if (k == "--pages") a.pages = number();
    else if (k == "--busy-evals") a.busy_evals = number();
    else if (k == "--agents") a.agents = number();
    else if (k == "--only") a.only = value();
    else if (k == "--file-samples") a.file_samples = number();
    else throw std::runtime_error("unknown option " + k);
  }
  if (a.editgate.empty() || a.workdir.empty() || a.script.empty())
    throw std::runtime_error("--editgate, --workdir and --script are required");
  bench::set_child_tmpdir(a.workdir);
  client::use_editgate(a.editgate);  // the gateway measured is the one named
  const int per_round = std::max(1, a.samples / a.rounds);

  // ---- Node: the built-in page through the gateway, and the same program alone ----
  auto part = [&](const char* name) { return a.only.empty() || a.only == name; };
  std::vector<double> node_gw, node_floor;
  std::string node_cpu, chrome_cpu;
  if (part("node")) {
    fs::path dir = workspace(a, "node");
    client::Gateway gw(dir.string(), {}, true);
    client::Ws agent(gw.port());
    agent.login(gw.cookie());
    const std::string page = wait_pages(agent, "node", 1).front();
    NodeFloor floor(a, dir);
    std::uint64_t job = 1;
    for (int i = 0; i < a.warmup; ++i) {
      floor.eval(job++);
      gateway_eval(agent, page);
    }
    const auto cpu_before = bench::thread_cpu_ns(gw.pid());
    for (int r = 0; r < a.rounds; ++r) {
      for (int i = 0; i < per_round; ++i) node_floor.push_back(floor.eval(job++));
      for (int i = 0; i < per_round; ++i) node_gw.push_back(gateway_eval(agent, page));
    }
    // The commits of the last exchanges come at most a second later.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    node_cpu = bench::cpu_line("Node page", bench::cpu_spent(cpu_before, bench::thread_cpu_ns(gw.pid())), node_gw.size());
    agent.close();
    expect(gw.stop() == 0, "the gateway's exit");
    check_committed(dir, {page}, static_cast<std::size_t>(a.warmup + per_round * a.rounds));
  }

  // ---- Chromium: a tab through the gateway, a tab on the raw server, Playwright ----
  std::vector<double> chrome_gw, chrome_floor, playwright;
  RawPages raw;
  if (part("chromium")) {
    fs::path dir = workspace(a, "chromium");
    client::Gateway gw(dir.string());
    raw.set_gateway(gw);
    Child browser({a.node, a.script, a.chromium}, (fs::path(a.workdir) / "playwright.log").string(), a.workdir);
    open_tabs(browser, raw.url("/raw.html"), 1);
    open_tabs(browser, raw.url("/gw.html"), 1);
    raw.wait_page();
    client::Ws agent(gw.port());
    agent.login(gw.cookie());
    const std::string page = wait_pages(agent, "browser", 1).front();
    std::uint64_t job = 1;
    for (int i = 0; i < a.warmup; ++i) {
      raw.eval(job++);
      gateway_eval(agent, page);
    }
    std::map<std::string, double> chrome_spent;
    for (int r = 0; r < a.rounds; ++r) {
      for (int i = 0; i < per_round; ++i) chrome_floor.push_back(raw.eval(job++));
      const auto cpu_before = bench::thread_cpu_ns(gw.pid());
      for (int i = 0; i < per_round; ++i) chrome_gw.push_back(gateway_eval(agent, page));
      // Playwright's turn comes next: the commits of these land meanwhile.
      std::this_thread::sleep_for(std::chrono::milliseconds(1200));
      for (const auto& [name, ns] : bench::cpu_spent(cpu_before, bench::thread_cpu_ns(gw.pid())))
        chrome_spent[name] += ns;
      browser.send(json::serialize(json::object{{"cmd", "evaluate"},
                                                {"url", raw.url("/blank.html")},
                                                {"samples", per_round},
                                                {"warmup", r == 0 ? a.warmup : 3},
                                                {"code", code}}));
      const std::string answer = browser.line();
      const json::value parsed = json::parse(answer);
      const json::value* got = parsed.as_object().if_contains("samples");
      expect(got && got->is_array(), "Playwright's answer: " + answer);
      for (const auto& v : got->as_array()) {
        expect(v.is_number(), "Playwright's answer: " + answer);
        playwright.push_back(v.to_number<double>());
      }
    }
    chrome_cpu = bench::cpu_line("Chromium tab", chrome_spent, chrome_gw.size());
    agent.close();
    expect(gw.stop() == 0, "the gateway's exit");
    check_committed(dir, {page}, static_cast<std::size_t>(a.warmup + per_round * a.rounds));
  }

  // ---- 100 pages busy: every page has an eval in flight all the time ----
  double busy_rate = 0, busy_floor_rate = 0;
  if (part("busy")) {
    // The floor first: as many tabs with the adapter on this program's own
    // server, in a browser of their own, each driven by a thread, one eval
    // in flight on each, the same number of evals.
    {
      raw.expect_pages(static_cast<std::size_t>(a.pages));
      Child browser({a.node, a.script, a.chromium}, (fs::path(a.workdir) / "playwright-busy-floor.log").string(),
                    a.workdir);
      open_tabs(browser, raw.url("/raw.html"), a.pages);
      raw.wait_page(static_cast<std::size_t>(a.pages));
      std::atomic<int> failures{0};
      std::vector<std::thread> tabs;
      const int each = a.busy_evals / a.pages;
      auto t0 = clock_type::now();
      for (int p = 0; p < a.pages; ++p)
        tabs.emplace_back([&, p] {
          try {
            for (int i = 1; i <= each; ++i) raw.eval(static_cast<std::uint64_t>(i), static_cast<std::size_t>(p));
          } catch (const std::exception& e) {
            std::fprintf(stderr, "bare tab %d: %s\n", p, e.what());
            ++failures;
          }
        });
      for (auto& t : tabs) t.join();
      busy_floor_rate = each * a.pages / std::chrono::duration<double>(clock_type::now() - t0).count();
      expect(failures == 0, "every bare tab answered");
      raw.expect_pages(0);  // their browser closes next
    }
    fs::path dir = workspace(a, "busy");
    // One origin's tabs: past 64 instances (32 connected) the gateway refuses
    // new ones by default; half of --pages-per-origin may be connected. It
    // lets in 10 at once, then one every 2 s (so 100 take about 3 minutes).
    client::Gateway gw(dir.string(), {"--pages-per-origin", std::to_string(2 * a.pages + 16)});
    raw.set_gateway(gw);
    Child browser({a.node, a.script, a.chromium}, (fs::path(a.workdir) / "playwright-busy.log").string(), a.workdir);
    open_tabs(browser, raw.url("/busy.html"), a.pages);
    std::vector<std::string> names;
    {
      client::Ws agent(gw.port());
      agent.login(gw.cookie());
      names = wait_pages(agent, "browser", static_cast<std::size_t>(a.pages),
                         std::chrono::seconds(60 + 2 * a.pages));
    }
    // Agent k drives pages k, k + agents, ...; each page gets its share of
    // the evals, one in flight at a time.
    std::atomic<int> failures{0};
    std::vector<std::thread> agents;
    auto t0 = clock_type::now();
    for (int k = 0; k < a.agents; ++k) {
      agents.emplace_back([&, k] {
        try {
          client::Ws ws(gw.port());
          ws.login(gw.cookie());
          std::map<std::string, int> left;  // page -> evals still to send
          auto send = [&](const std::string& p) {
            ws.send(json::serialize(
                json::object{{"op", "eval"}, {"id", p}, {"agent", "bench"}, {"page", p}, {"code", code}}));
            --left[p];
          };
          int in_flight = 0;
          for (std::size_t i = static_cast<std::size_t>(k); i < names.size(); i += static_cast<std::size_t>(a.agents)) {
            left[names[i]] = a.busy_evals / a.pages;
            send(names[i]);
            ++in_flight;
          }
          while (in_flight > 0) {
            auto m = ws.read(60s);
            if (!m) throw std::runtime_error("the gateway closed an agent's connection");
            json::object o = json::parse(*m).as_object();
            if (!o.contains("status")) continue;
            const std::string p(o.at("id").as_string());
            if (!o.contains("value") || o.at("value") != json::value(2)) throw std::runtime_error("busy eval: " + *m);
            if (left[p] > 0) send(p);
            else --in_flight;
          }
        } catch (const std::exception& e) {
          std::fprintf(stderr, "agent %d: %s\n", k, e.what());
          ++failures;
        }
      });
    }
    for (auto& t : agents) t.join();
    const double took = std::chrono::duration<double>(clock_type::now() - t0).count();
    expect(failures == 0, "every busy agent finished");
    const int evals = a.busy_evals / a.pages * a.pages;
    busy_rate = evals / took;
    expect(gw.stop(SIGTERM, 60s) == 0, "the gateway's exit");
    check_committed(dir, names, static_cast<std::size_t>(evals));
  }

  // ---- Files: an append to the Node page's log until completed.marker, and the eval op ----
  std::vector<double> file_append, file_eval, file_accepted;
  if (part("files")) {
    fs::path dir = workspace(a, "files");
    client::Gateway gw(dir.string(), {}, true);
    client::Ws agent(gw.port());
    agent.login(gw.cookie());
    const std::string page = wait_pages(agent, "node", 1).front();
    FileAgent files(dir, page);
    const int rounds = 3, each = std::max(1, a.file_samples / rounds);
    for (int i = 0; i < 3; ++i) {
      files.run();
      gateway_eval(agent, page);
    }
    for (int r = 0; r < rounds; ++r) {
      for (int i = 0; i < each; ++i) file_append.push_back(files.run());
      for (int i = 0; i < each; ++i) file_eval.push_back(gateway_eval(agent, page));
    }
    file_accepted.assign(files.accepted.begin() + 3, files.accepted.end());
    agent.close();
    expect(gw.stop() == 0, "the gateway's exit");
    check_committed(dir, {page}, static_cast<std::size_t>(2 * (3 + each * rounds)));
  }

  if (part("node") || part("chromium")) {
    std::printf("Agent round trip, eval \"%s\", %d samples each after %d warm-up, %d rounds taken in turns (ms)\n\n",
                code.c_str(), per_round * a.rounds, a.warmup, a.rounds);
    std::printf("| path | p50 | p99 | p50 / floor | p50 / Playwright |\n|---|---|---|---|---|\n");
  }
  std::string verdict;
  if (part("node")) {
    const bench::Percentiles nf = bench::percentiles(node_floor), ng = bench::percentiles(node_gw);
    print_row("Node page alone, over its socket pair (floor)", nf, nf, nullptr);
    print_row("Node page through editgate (WS eval, logged)", ng, nf, nullptr);
    verdict += std::string("goal p50 <= 1.5x floor, Node: ") + (ng.p50 <= 1.5 * nf.p50 ? "met" : "MISSED") + "\n";
    verdict += node_cpu;
  }
  if (part("chromium")) {
    const bench::Percentiles cf = bench::percentiles(chrome_floor), cg = bench::percentiles(chrome_gw),
                             pw = bench::percentiles(playwright);
    print_row("Chromium tab, adapter on a bare WebSocket (floor)", cf, cf, &pw);
    print_row("Chromium tab through editgate (WS eval, logged)", cg, cf, &pw);
    print_row("Playwright page.evaluate, same browser", pw, cf, &pw);
    verdict += std::string("goal p50 <= 1.3x floor, Chromium: ") + (cg.p50 <= 1.3 * cf.p50 ? "met" : "MISSED") + "\n";
    verdict += chrome_cpu;
    verdict += std::string("goal p50 below Playwright's, Chromium: ") + (cg.p50 < pw.p50 ? "met" : "MISSED") + "\n";
  }
  if (part("files")) {
    const bench::Percentiles fa = bench::percentiles(file_append), fe = bench::percentiles(file_eval);
    constexpr double debounce = 150;
    std::printf("\nFile-driven agent, Node page, %zu samples each in 3 rounds taken in turns (ms)\n\n"
                "| path | p50 | p99 | p50 - debounce |\n|---|---|---|---|\n",
                file_append.size());
    std::printf("| append to the log -> completed.marker (reply written and committed) | %.3f | %.3f | %.3f |\n",
                fa.p50, fa.p99, fa.p50 - debounce);
    std::printf("| WS eval op, same page, same run (reply in the log) | %.3f | %.3f | |\n", fe.p50, fe.p99);
    const bench::Percentiles ack = bench::percentiles(file_accepted);
    std::printf("| of which append -> ack.marker (request read and accepted) | %.3f | %.3f | %.3f |\n", ack.p50,
                ack.p99, ack.p50 - debounce);
    verdict += std::string("goal append -> completed.marker p50 <= debounce + 2 ms: ") +
               (fa.p50 - debounce <= 2 ? "met" : "MISSED") + "\n";
  }
  if (part("busy")) {
    std::printf("\nEvals per second with %d Chromium tabs busy, one eval in flight on each, %d evals (same run)\n\n"
                "| path | evals/s | / bare |\n|---|---|---|\n",
                a.pages, a.busy_evals / a.pages * a.pages);
    std::printf("| bare adapter, tabs on this program's WebSocket server (floor) | %.0f | 1.00 |\n", busy_floor_rate);
    std::printf("| through editgate, %d agent connections, every eval logged and committed | %.0f | %.2f |\n", a.agents,
                busy_rate, busy_rate / busy_floor_rate);
    verdict += std::string("goal busy tabs through editgate >= 80% of the bare adapter's evals/s: ") +
               (busy_rate >= 0.8 * busy_floor_rate ? "met" : "MISSED") + "\n";
  }
  std::printf("\n%s", verdict.c_str());
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pages_bench: %s\n", e.what());
    return 1;
  }
}
