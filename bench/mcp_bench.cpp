// What the MCP door adds to a tool call, against the same op over the
// agents' WebSocket, in one run on one gateway.
//
// Two operations: an eval of "1 + 1" in the built-in Node page (the request
// and reply written to the page's log, the reply committed after the
// answer) and a one-block edit (applied and committed before the answer;
// two blocks flip one line back and forth, so each applies). Each through:
//  - the WebSocket op (`eval`, `edit`): the baseline;
//  - MCP 2025-11-25 over Streamable HTTP: one `initialize`, then tools/call
//    (page_eval, edit_apply) with the session header on one kept-alive
//    connection, no progressToken (a JSON answer);
//  - MCP 2026-07-28, stateless: the version and capabilities in _meta and
//    the MCP-Protocol-Version / Mcp-Method / Mcp-Name headers, kept alive;
//  - MCP 2025-11-25 on a new connection per call (what a client that does
//    not keep connections, and the stdio bridge, pays);
//  - stdio through `editgate mcp`, when the binary has that command.
// Timed at the client from the request written to its answer read. The
// contenders take turns in rounds, so a slow moment of the machine falls on
// all of them. After the run the gateway is stopped and the bench checks
// that every exchange is committed: the page's log on the REPL's ref (HEAD's
// for an editgate from before it) holds every eval reply, every edit's
// commit is in HEAD's history, the file is as the last edit left it and the
// work tree is clean.
#include "child.hpp"
#include "percentiles.hpp"
#include "process.hpp"
#include "workspace.hpp"
#include "tests/client.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
namespace json = boost::json;
namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

struct Args {
  std::string editgate, workdir;
  int evals = 1000;  // samples per contender
  int edits = 300;
  int rounds = 10;   // the samples of each contender come in this many turns
  int warmup = 30;   // per contender, untimed
  std::string only;  // eval or edit: that operation alone
  bool stdio = true;
};

const std::string code = "1 + 1";
constexpr std::string_view legacy = "2025-11-25", modern = "2026-07-28";

using bench::ms;

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("wrong result: " + what);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The line the edits flip, and the block that flips it from `from` to the other.
std::string flip_line(bool b) { return b ? "flip: b" : "flip: a"; }
std::string flip_block(bool from) {
  return "f.txt\n\xC2\xAB\xC2\xAB\xC2\xAB EDIT\n" + flip_line(from) +
         "\n\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90 REPL\n" +
         flip_line(!from) + "\n\xC2\xBB\xC2\xBB\xC2\xBB EDIT END\n";
}

// git's answer, as text.
std::string git_out(const fs::path& dir, std::vector<std::string> args) {
  const fs::path out = dir.parent_path() / "git-out";
  args.insert(args.begin(), {bench::find_program("git"), "-C", dir.string()});
  if (bench::run_process(args, out.string()) != 0) throw std::runtime_error("git failed: " + bench::shell_line(args));
  return slurp(out);
}

// A repository holding f.txt (the line the edits flip), committed.
fs::path workspace(const Args& a) {
  fs::path dir = fs::path(a.workdir) / "ws";
  fs::create_directories(dir);
  std::ofstream(dir / "f.txt") << "top\n" << flip_line(false) << "\nbottom\n";
  git_out(dir, {"init", "-q", "-b", "main"});
  git_out(dir, {"add", "f.txt"});
  git_out(dir, {"-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m", "start"});
  return dir;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// A tool result's structuredContent, checked for no error.
json::object structured(const json::value& rpc, const std::string& what) {
  const json::object& m = rpc.as_object();
  const json::value* result = m.if_contains("result");
  expect(result && result->is_object(), what + ": " + json::serialize(rpc));
  const json::object& r = result->get_object();
  expect(!r.contains("isError"), what + ": " + json::serialize(rpc));
  return r.at("structuredContent").as_object();
}

// ---- MCP over Streamable HTTP -------------------------------------------------

// A client of POST /mcp on Beast, driven as the tests' client drives its
// WebSocket (an io_context of its own run to completion per operation).
class McpHttp {
 public:
  McpHttp(unsigned short port, std::string cookie, bool modern_revision, bool fresh_connection)
      : port_(port), cookie_(std::move(cookie)), modern_(modern_revision), fresh_(fresh_connection) {
    if (!fresh_) connect();
    if (!modern_) initialize();
  }

  // One tools/call: its JSON-RPC answer, and the time from the request
  // written (a new connection made first, when fresh) to the answer read.
  json::value call(const std::string& tool, json::object arguments, double& took) {
    json::object params{{"name", tool}, {"arguments", std::move(arguments)}};
    if (modern_)
      params["_meta"] = json::object{{"io.modelcontextprotocol/protocolVersion", modern},
                                     {"io.modelcontextprotocol/clientCapabilities", json::object{}}};
    auto req = request(json::object{{"jsonrpc", "2.0"}, {"id", ++ids_}, {"method", "tools/call"}, {"params", params}});
    if (modern_) {
      req.set("MCP-Protocol-Version", modern);
      req.set("Mcp-Method", "tools/call");
      req.set("Mcp-Name", tool);
    }
    auto t0 = clock_type::now();
    auto res = exchange(req);
    took = ms(clock_type::now() - t0);
    expect(res.result() == http::status::ok, tool + ": HTTP " + std::to_string(res.result_int()) + " " + res.body());
    expect(res[http::field::content_type].starts_with("application/json"), tool + ": not a JSON answer");
    return json::parse(res.body());
  }

 private:
  using Request = http::request<http::string_body>;
  using Response = http::response<http::string_body>;

  void connect() {
    stream_.close();
    beast::error_code result;
    stream_.expires_after(10s);
    drive([&] {
      stream_.async_connect(tcp::endpoint{net::ip::make_address("127.0.0.1"), port_}, [&](beast::error_code ec) {
        result = ec;
      });
    });
    if (result) throw std::runtime_error("connect to the gateway: " + result.message());
    stream_.socket().set_option(tcp::no_delay(true));
  }

  void initialize() {
    json::object params{{"protocolVersion", legacy},
                        {"capabilities", json::object{}},
                        {"clientInfo", json::object{{"name", "mcp_bench"}, {"version", "1"}}}};
    auto res = exchange(request(json::object{{"jsonrpc", "2.0"}, {"id", ++ids_}, {"method", "initialize"},
                                             {"params", std::move(params)}}));
    expect(res.result() == http::status::ok && res.count("Mcp-Session-Id"), "initialize: " + res.body());
    session_ = std::string(res["Mcp-Session-Id"]);
    res = exchange(request(json::object{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}));
    expect(res.result() == http::status::accepted, "notifications/initialized: " + res.body());
  }

  Request request(const json::object& message) const {
    Request req{http::verb::post, "/mcp", 11};
    req.set(http::field::host, "127.0.0.1:" + std::to_string(port_));
    req.set(http::field::authorization, "Bearer " + cookie_);
    req.set(http::field::content_type, "application/json");
    req.set(http::field::accept, "application/json, text/event-stream");
    if (!session_.empty()) {
      req.set("Mcp-Session-Id", session_);
      req.set("MCP-Protocol-Version", legacy);
    }
    req.keep_alive(!fresh_);
    req.body() = json::serialize(message);
    req.prepare_payload();
    return req;
  }

  Response exchange(const Request& req) {
    if (fresh_) connect();
    beast::error_code result;
    Response res;
    stream_.expires_after(60s);
    drive([&] {
      http::async_write(stream_, req, [&](beast::error_code ec, std::size_t) {
        if (ec) return void(result = ec);
        http::async_read(stream_, buffer_, res, [&](beast::error_code ec, std::size_t) { result = ec; });
      });
    });
    if (result) throw std::runtime_error("POST /mcp: " + result.message());
    if (fresh_) stream_.close();
    return res;
  }

  template <class Start>
  void drive(Start start) {
    ioc_.restart();
    start();
    ioc_.run();
  }

  unsigned short port_;
  std::string cookie_;
  bool modern_, fresh_;
  std::string session_;
  std::uint64_t ids_ = 0;
  net::io_context ioc_;
  beast::tcp_stream stream_{ioc_};
  beast::flat_buffer buffer_;
};

// ---- MCP over stdio: `editgate mcp` -------------------------------------------

// Whether this editgate has the stdio bridge: `editgate mcp --help` is that
// command's help (an editgate without it answers with its own, or an error).
bool has_stdio_bridge(const Args& a) {
  const std::string out = (fs::path(a.workdir) / "mcp-help.txt").string();
  if (bench::run_process({a.editgate, "mcp", "--help"}, out) != 0) return false;
  return slurp(out).find("editgate mcp") != std::string::npos;
}

class McpStdio {
 public:
  McpStdio(const Args& a, const fs::path& root)
      : child_({a.editgate, "mcp", "--root", root.string()}, (fs::path(a.workdir) / "mcp-stdio.log").string(), root) {
    json::object params{{"protocolVersion", legacy},
                        {"capabilities", json::object{}},
                        {"clientInfo", json::object{{"name", "mcp_bench"}, {"version", "1"}}}};
    child_.send(json::serialize(
        json::object{{"jsonrpc", "2.0"}, {"id", ++ids_}, {"method", "initialize"}, {"params", std::move(params)}}));
    expect(answer(ids_).as_object().contains("result"), "stdio initialize");
    child_.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  }

  json::value call(const std::string& tool, json::object arguments, double& took) {
    const std::string line = json::serialize(json::object{
        {"jsonrpc", "2.0"}, {"id", ++ids_}, {"method", "tools/call"},
        {"params", json::object{{"name", tool}, {"arguments", std::move(arguments)}}}});
    auto t0 = clock_type::now();
    child_.send(line);
    json::value v = answer(ids_);
    took = ms(clock_type::now() - t0);
    return v;
  }

 private:
  // The response to request `id` (notifications before it are skipped).
  json::value answer(std::uint64_t id) {
    for (;;) {
      json::value v = json::parse(child_.line(30s));
      if (const json::value* got = v.as_object().if_contains("id"); got && *got == json::value(id)) return v;
    }
  }

  bench::Child child_;
  std::uint64_t ids_ = 0;
};

// ---- the run ------------------------------------------------------------------

struct Contender {
  std::string name;
  std::function<double()> sample;  // one timed call, checked
  std::vector<double> ms;
};

// The Node page's name once it is connected.
std::string node_page(client::Ws& ws) {
  for (int i = 0; i < 400; ++i) {
    ws.send(R"({"op":"pages"})");
    const json::value reply = json::parse(ws.until_done().back());
    for (const auto& p : reply.at("pages").as_array())
      if (p.at("kind") == "node" && p.at("state") != "disconnected") return std::string(p.at("page").as_string());
    std::this_thread::sleep_for(50ms);
  }
  throw std::runtime_error("the Node page did not connect");
}

// Warm-up, then `samples` each in `rounds` turns.
void measure(std::vector<Contender>& cs, const Args& a, int samples) {
  for (auto& c : cs)
    for (int i = 0; i < a.warmup; ++i) c.sample();
  const int per_round = std::max(1, samples / a.rounds);
  for (int r = 0; r < a.rounds; ++r)
    for (auto& c : cs)
      for (int i = 0; i < per_round; ++i) c.ms.push_back(c.sample());
}

void print_table(const char* title, const std::vector<Contender>& cs, std::string& verdict) {
  std::printf("%s, %zu samples each (ms)\n\n", title, cs.front().ms.size());
  std::printf("| path | p50 | p99 | added p50 | added p99 | p50 / WS |\n|---|---|---|---|---|---|\n");
  const bench::Percentiles base = bench::percentiles(cs.front().ms);
  for (const auto& c : cs) {
    const bench::Percentiles p = bench::percentiles(c.ms);
    std::printf("| %s | %.3f | %.3f | %+.3f | %+.3f | %.2f |\n", c.name.c_str(), p.p50, p.p99, p.p50 - base.p50,
                p.p99 - base.p99, p.p50 / base.p50);
    if (&c != &cs.front())
      verdict += std::string(title) + ", " + c.name + ": adds " + std::to_string(p.p50 - base.p50).substr(0, 6) +
                 " ms p50, goal <= 0.2 ms " + (p.p50 - base.p50 <= 0.2 ? "met" : "MISSED") + "\n";
  }
  std::printf("\n");
}

struct Doors {
  client::Ws& ws;
  std::vector<std::pair<std::string, std::function<json::value(const std::string&, json::object, double&)>>> mcp;
};

std::vector<Contender> eval_contenders(Doors& d, const std::string& page) {
  std::vector<Contender> cs;
  cs.push_back({"WebSocket eval op (baseline)", [&d, page] {
                  const std::string msg = json::serialize(json::object{
                      {"op", "eval"}, {"id", "e"}, {"agent", "bench"}, {"page", page}, {"code", code}});
                  auto t0 = clock_type::now();
                  d.ws.send(msg);
                  const std::vector<std::string> replies = d.ws.until_done(30s);
                  const double took = ms(clock_type::now() - t0);
                  const json::object done = json::parse(replies.back()).as_object();
                  expect(done.contains("value") && done.at("value") == json::value(2), "WS eval: " + replies.back());
                  return took;
                }, {}});
  for (auto& [name, call] : d.mcp)
    cs.push_back({name + ", page_eval", [&call = call, page] {
                    double took = 0;
                    json::value v = call("page_eval", {{"code", code}, {"page", page}, {"agent", "bench"}}, took);
                    expect(structured(v, "page_eval").at("value") == json::value(2), "page_eval: " + json::serialize(v));
                    return took;
                  }, {}});
  return cs;
}

// Each edit flips the line from where the last one left it, whoever made it.
struct Flip {
  bool at_b = false;
  std::vector<std::string> commits;
  void applied(const json::object& done, const std::string& what) {
    const json::value* commit = done.if_contains("commit");
    expect(commit && commit->is_string() && !commit->get_string().empty(), what + ": " + json::serialize(done));
    const json::value* counts = done.if_contains("counts");
    expect(counts && counts->at("applied") == json::value(1), what + ": " + json::serialize(done));
    commits.emplace_back(commit->get_string());
    at_b = !at_b;
  }
};

std::vector<Contender> edit_contenders(Doors& d, Flip& flip) {
  std::vector<Contender> cs;
  cs.push_back({"WebSocket edit op (baseline)", [&d, &flip] {
                  const std::string msg = json::serialize(
                      json::object{{"op", "edit"}, {"id", "x"}, {"agent", "bench"}, {"text", flip_block(flip.at_b)}});
                  auto t0 = clock_type::now();
                  d.ws.send(msg);
                  const std::vector<std::string> replies = d.ws.until_done(30s);
                  const double took = ms(clock_type::now() - t0);
                  flip.applied(json::parse(replies.back()).as_object(), "WS edit");
                  return took;
                }, {}});
  for (auto& [name, call] : d.mcp)
    cs.push_back({name + ", edit_apply", [&call = call, &flip] {
                    double took = 0;
                    json::value v = call("edit_apply", {{"text", flip_block(flip.at_b)}, {"agent", "bench"}}, took);
                    flip.applied(structured(v, "edit_apply"), "edit_apply");
                    return took;
                  }, {}});
  return cs;
}

// Every exchange is committed: the page's log on the REPL's ref (HEAD
// before it) holds `replies` replies, every edit's commit is in HEAD's
// history, f.txt is as the last edit left it, and nothing is left
// uncommitted. Returns what held the log.
std::string check_committed(const fs::path& dir, const std::string& page, std::size_t replies, const Flip& flip) {
  const std::string rev = bench::logs_rev(dir);
  if (replies > 0) {
    const std::string log = bench::committed_log(rev, "debug/" + page + ".md");
    const std::size_t found = count(git_out(dir, {"show", log}), "\n> **" + page + "** to bench at ");
    expect(found == replies, std::to_string(found) + " eval replies committed, " + std::to_string(replies) + " made");
  }
  std::istringstream history(git_out(dir, {"rev-list", "HEAD"}));
  std::set<std::string> in_head;
  for (std::string line; std::getline(history, line);) in_head.insert(line);
  for (const std::string& c : flip.commits) expect(in_head.count(c) == 1, "edit commit " + c + " not in HEAD's history");
  expect(git_out(dir, {"show", "HEAD:f.txt"}) == "top\n" + flip_line(flip.at_b) + "\nbottom\n", "f.txt at HEAD");
  const std::string status = git_out(dir, {"status", "--porcelain"});
  expect(status.empty(), "uncommitted after the run: " + status);
  return rev;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) throw std::runtime_error(k + " needs a value");
      return std::string(argv[++i]);
    };
    if (k == "--editgate") a.editgate = value();
    else if (k == "--workdir") a.workdir = value();
    else if (k == "--evals") a.evals = std::stoi(value());
    else if (k == "--edits") a.edits = std::stoi(value());
    else if (k == "--rounds") a.rounds = std::stoi(value());
    else if (k == "--warmup") a.warmup = std::stoi(value());
    else if (k == "--only") a.only = value();
    else if (k == "--no-stdio") a.stdio = false;
    else throw std::runtime_error("unknown option " + k);
  }
  if (a.editgate.empty() || a.workdir.empty()) throw std::runtime_error("--editgate and --workdir are required");
  if (!a.only.empty() && a.only != "eval" && a.only != "edit") throw std::runtime_error("--only takes eval or edit");
  if (a.rounds < 1) throw std::runtime_error("--rounds must be at least 1");
  return a;
}

}  // namespace

int run(int argc, char** argv) {
  const Args a = parse(argc, argv);
  bench::set_child_tmpdir(a.workdir);
  client::use_editgate(a.editgate);  // the gateway measured is the one named
  const bool stdio = a.stdio && has_stdio_bridge(a);
  const fs::path dir = workspace(a);
  auto t_start = clock_type::now();

  client::Gateway gw(dir.string(), {}, true);
  client::Ws ws(gw.port());
  ws.login(gw.cookie());
  const std::string page = node_page(ws);
  McpHttp legacy_http(gw.port(), gw.cookie(), false, false), modern_http(gw.port(), gw.cookie(), true, false),
      fresh_http(gw.port(), gw.cookie(), false, true);
  std::unique_ptr<McpStdio> bridge;
  if (stdio) bridge = std::make_unique<McpStdio>(a, dir);

  Doors doors{ws, {}};
  auto via = [](auto& door) {
    return [&door](const std::string& tool, json::object args, double& took) {
      return door.call(tool, std::move(args), took);
    };
  };
  doors.mcp.emplace_back("MCP 2025-11-25, HTTP kept alive", via(legacy_http));
  doors.mcp.emplace_back("MCP 2026-07-28 stateless, HTTP kept alive", via(modern_http));
  doors.mcp.emplace_back("MCP 2025-11-25, HTTP new connection per call", via(fresh_http));
  if (bridge) doors.mcp.emplace_back("MCP 2025-11-25, stdio (editgate mcp)", via(*bridge));

  std::vector<Contender> evals, edits;
  Flip flip;
  if (a.only.empty() || a.only == "eval") {
    evals = eval_contenders(doors, page);
    measure(evals, a, a.evals);
  }
  if (a.only.empty() || a.only == "edit") {
    edits = edit_contenders(doors, flip);
    measure(edits, a, a.edits);
  }
  bridge.reset();
  ws.close();
  expect(gw.stop() == 0, "the gateway's exit");
  std::size_t replies = 0;
  for (const auto& c : evals) replies += c.ms.size() + static_cast<std::size_t>(a.warmup);
  const std::string logs_at = check_committed(dir, page, replies, flip);

  std::string verdict;
  if (!evals.empty()) print_table("Eval \"1 + 1\" in the Node page", evals, verdict);
  if (!edits.empty()) print_table("One-block edit, applied and committed", edits, verdict);
  if (!stdio)
    std::printf("stdio: not available (%s)\n\n",
                a.stdio ? "this editgate has no `editgate mcp` command" : "--no-stdio");
  std::printf("%s", verdict.c_str());
  std::printf("checked: %zu eval replies in the page's log on %s, %zu edit commits in HEAD's history, work tree "
              "clean\ntotal: %.1f s\n",
              replies, logs_at.c_str(), flip.commits.size(),
              std::chrono::duration<double>(clock_type::now() - t_start).count());
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mcp_bench: %s\n", e.what());
    return 1;
  }
}
