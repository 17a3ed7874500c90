// The helpers of the tests of live pages: a real gateway with its built-in
// Node page, an agent's WebSocket, a scripted page on the page door, and
// waits on the files and the git history they change.
#pragma once

#include "client.hpp"
#include "repl/format.hpp"
#include "support.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace pagetest {

namespace json = boost::json;
using namespace std::chrono_literals;

inline json::object obj(const std::string& text) { return json::parse(text).as_object(); }

// The first page whose name starts with `prefix`, waited for.
inline json::object wait_page(client::Ws& ws, const std::string& prefix) {
  for (int i = 0; i < 100; ++i) {
    ws.send(R"({"op":"pages"})");
    auto done = ws.until_done();
    const json::object reply = obj(done.back());
    for (const auto& p : reply.at("pages").as_array()) {
      const auto& o = p.as_object();
      if (std::string(o.at("page").as_string()).rfind(prefix, 0) == 0 && o.at("state") != "disconnected") return o;
    }
    std::this_thread::sleep_for(50ms);
  }
  FAIL("no page " << prefix << " connected");
  return {};
}

// An eval's messages; the last one is the final reply.
inline std::vector<json::object> eval(client::Ws& ws, const std::string& page, const std::string& code,
                               const std::string& extra = "") {
  ws.send(R"({"op":"eval","id":"e","page":")" + page + R"(","code":)" + json::serialize(json::string(code)) + extra +
          "}");
  std::vector<json::object> out;
  for (const auto& m : ws.until_done(20s)) out.push_back(obj(m));
  return out;
}

// The final replies (those with a status) of `n` operations in flight, by id.
inline std::map<std::string, json::object> finals(client::Ws& ws, std::size_t n) {
  std::map<std::string, json::object> out;
  for (int i = 0; i < 20 && out.size() < n; ++i) {
    auto m = ws.read(15s);
    REQUIRE(m);
    json::object o = obj(*m);
    if (o.contains("status")) out[std::string(o.at("id").as_string())] = o;
  }
  REQUIRE(out.size() == n);
  return out;
}

// Waits until `pred(text of file)` holds.
inline std::string wait_file(const test::fs::path& p, const std::function<bool(const std::string&)>& pred) {
  std::string text;
  for (int i = 0; i < 200; ++i) {
    if (test::fs::exists(p)) {
      text = test::read_file(p);
      if (pred(text)) return text;
    }
    std::this_thread::sleep_for(25ms);
  }
  FAIL("the file never got there: " << p << "\n" << text);
  return text;
}

// `git log` of the REPL's ref (refs/editgate/repl/<name>), where every
// chat-log commit goes: `args` then the ref.
inline std::string repl_log(const test::fs::path& dir, std::vector<std::string> args) {
  args.insert(args.begin(), "log");
  args.push_back("--glob=refs/editgate/repl/*");
  return test::git(dir, args).out;
}

// The log `rel` (debug/...) as the REPL's ref holds it; "" when it does not.
inline std::string repl_text(const test::fs::path& dir, const std::string& rel) {
  const std::string tip = test::git(dir, {"for-each-ref", "--format=%(objectname)", "refs/editgate/repl/"}).out;
  if (tip.size() < 40 || rel.rfind("debug/", 0) != 0) return {};
  return test::git(dir, {"show", tip.substr(0, 40) + ":" + rel.substr(6)}).out;
}

// The REPL's commit messages, newest first; "" while there is no commit yet.
inline std::string messages(const test::fs::path& dir) { return repl_log(dir, {"--format=%B"}); }

// Waits for the background committer: the REPL ref's newest commit holds
// the item whose line starts with `prefix` (its subject, or a "- " line of
// the body that names its items). Returns every message, newest first.
inline std::string wait_commit(const test::fs::path& dir, const std::string& prefix) {
  std::string s;
  for (int i = 0; i < 200; ++i) {
    const std::string newest = repl_log(dir, {"-1", "--format=%B"});
    s = messages(dir);
    if (newest.rfind(prefix, 0) == 0 || newest.find("\n- " + prefix) != std::string::npos) return s;
    std::this_thread::sleep_for(25ms);
  }
  FAIL("no commit '" << prefix << "...'; history:\n" << s);
  return s;
}

inline std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Lines outside fences that read as headers: what an LLM would take for turns.
inline std::vector<std::string> header_lines(const std::string& text) {
  std::vector<std::string> out;
  std::string fence;
  for (const std::string& l : repl::split_lines(text)) {
    if (fence.empty()) {
      if (l.rfind("```", 0) == 0) {
        fence = l.substr(0, l.find_first_not_of('`'));
        continue;
      }
      if (l.rfind("> **", 0) == 0) out.push_back(l);
    } else if (l == fence) {
      fence.clear();
    }
  }
  return out;
}

// A page on the page door, scripted by the test: it comes back to an
// instance with its id and secret, as /adapter.js does.
struct FakePage {
  client::Ws ws;
  std::string id, secret, name, log;
  FakePage(unsigned short port, const std::string& keep_id = "", const std::string& keep_secret = "",
           const std::string& origin = "http://localhost:9999", const std::string& kind = "browser")
      : ws(port, {{"Origin", origin}}, "/v1/page") {
    ws.send(json::serialize(json::object{{"type", "hello"},
                                         {"id", keep_id.empty() ? json::value(nullptr) : json::value(keep_id)},
                                         {"secret", keep_secret.empty() ? json::value(nullptr) : json::value(keep_secret)},
                                         {"name", "Fake Page"},
                                         {"url", "http://localhost:9999/fake.html"},
                                         {"title", "Fake"},
                                         {"kind", kind}}));
  }
  json::object next() {
    auto m = ws.read(10s);
    REQUIRE(m);
    return obj(*m);
  }
  void welcome() {
    json::object w = next();
    REQUIRE(w.at("type") == "welcome");
    id = w.at("id").as_string();
    if (const json::value* s = w.if_contains("secret")) secret = s->as_string();
    name = w.at("name").as_string();
    log = w.at("log").as_string();
  }
  void send(const json::object& o) { ws.send(json::serialize(o)); }
};

// A gateway with its built-in Node page and an agent logged in to it: the
// fixture of the tests of the Node page, its members named as they use them.
struct NodeGateway {
  test::TempDir dir;
  client::Gateway gw{dir.str(), {}, true};
  client::Ws ws{gw.port()};
  json::object page;
  std::string name, rel;  // the page's name and its log's path
  test::fs::path log;
  NodeGateway() {
    ws.login(gw.cookie());
    page = wait_page(ws, "node-");
    name = page.at("page").as_string();
    rel = page.at("log").as_string();
    log = dir / rel;
  }
};

}  // namespace pagetest
