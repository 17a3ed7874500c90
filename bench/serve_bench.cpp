// The gateway's latency and throughput, against its own floor in the same run.
//
// Latency: a streamed POST /v1/edits sends one block per chunk and times each
// block from the moment its "»»» EDIT END" line is on the wire to the moment
// its NDJSON line is read; the same over a WebSocket (edit-chunk -> block
// message). Floor: the same blocks fed to the edit engine in-process (parse,
// match, atomic write), with no gateway.
// Throughput: small edits, one commit each, through `editgate apply` (a
// process per edit), POST /v1/edits (a connection per edit) and the WS edit op.
#include "editproto/parser.hpp"
#include "editproto/applier.hpp"
#include "editproto/workspace.hpp"
#include "percentiles.hpp"
#include "process.hpp"
#include "tests/client.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

struct Args {
  std::string editgate;
  std::string workdir;
  int blocks = 1000;  // latency samples per door
  int edits = 200;    // throughput edits per door
};

using bench::ms;

std::string block(const std::string& path, const std::string& old_line, const std::string& new_line) {
  return path + "\n\xC2\xAB\xC2\xAB\xC2\xAB EDIT\n" + old_line + "\n\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90"
         "\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90 REPL\n" + new_line + "\n\xC2\xBB\xC2\xBB\xC2\xBB EDIT END\n";
}

void write(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary);
  out << s;
}

// A repository with f.txt of `lines` lines, committed.
fs::path workspace(const Args& a, const std::string& name, int lines) {
  fs::path dir = fs::path(a.workdir) / name;
  fs::create_directories(dir);
  std::string text;
  for (int i = 0; i < lines; ++i) text += "line " + std::to_string(i) + "\n";
  write(dir / "f.txt", text);
  const std::string git = bench::find_program("git");
  auto ok = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {git, "-C", dir.string()});
    if (bench::run_process(args) != 0) throw std::runtime_error("git failed: " + bench::shell_line(args));
  };
  ok({"init", "-q", "-b", "main"});
  ok({"add", "f.txt"});
  ok({"-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m", "start"});
  return dir;
}

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("wrong result: " + what);
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) throw std::runtime_error(k + " needs a value");
      return std::string(argv[++i]);
    };
    if (k == "--editgate") a.editgate = value();
    else if (k == "--workdir") a.workdir = value();
    else if (k == "--blocks") a.blocks = std::stoi(value());
    else if (k == "--edits") a.edits = std::stoi(value());
    else throw std::runtime_error("unknown option " + k);
  }
  if (a.editgate.empty() || a.workdir.empty()) throw std::runtime_error("--editgate and --workdir are required");
  bench::set_child_tmpdir(a.workdir);

  // ---- latency ----
  std::vector<double> engine_ms, http_ms, ws_ms;
  {
    fs::path dir = workspace(a, "engine", a.blocks);
    auto ws = editproto::Workspace::open(dir.string());
    editproto::Options opt;
    opt.dry_run = false;
    editproto::Applier applier(*ws, opt);
    editproto::Parser parser;
    for (int i = 0; i < a.blocks; ++i) {
      std::string b = block("f.txt", "line " + std::to_string(i), "line " + std::to_string(i) + " edited");
      auto t0 = clock_type::now();
      std::vector<editproto::Block> blocks;
      parser.feed(b, blocks);
      for (auto& blk : blocks) applier.submit(blk);
      auto results = applier.flush();
      engine_ms.push_back(ms(clock_type::now() - t0));
      expect(results.size() == 1 && results[0].status == editproto::Status::applied, "engine block");
    }
  }
  {
    fs::path dir = workspace(a, "http", a.blocks);
    client::Gateway gw(dir.string());
    client::EditStream s(gw.port(), gw.cookie(), "?agent=bench");
    for (int i = 0; i < a.blocks; ++i) {
      std::string b = block("f.txt", "line " + std::to_string(i), "line " + std::to_string(i) + " edited");
      s.send(b);
      auto t0 = clock_type::now();
      auto line = s.line();
      http_ms.push_back(ms(clock_type::now() - t0));
      expect(line && line->find("\"status\":\"applied\"") != std::string::npos, "HTTP block " + std::to_string(i));
    }
    s.end();
    auto rest = s.rest();
    expect(rest.size() == 1 && rest[0].find("\"commit\":\"") != std::string::npos, "HTTP summary");
  }
  {
    fs::path dir = workspace(a, "ws", a.blocks);
    client::Gateway gw(dir.string());
    client::Ws c(gw.port());
    c.login(gw.cookie());
    c.send(R"({"op":"edit-begin","id":"b","agent":"bench"})");
    for (int i = 0; i < a.blocks; ++i) {
      std::string b = block("f.txt", "line " + std::to_string(i), "line " + std::to_string(i) + " edited");
      std::string msg = boost::json::serialize(boost::json::object{{"op", "edit-chunk"}, {"id", "b"}, {"text", b}});
      c.send(msg);
      auto t0 = clock_type::now();
      auto reply = c.read();
      ws_ms.push_back(ms(clock_type::now() - t0));
      expect(reply && reply->find("\"status\":\"applied\"") != std::string::npos, "WS block " + std::to_string(i));
    }
    c.send(R"({"op":"edit-end","id":"b"})");
    auto done = c.until_done();
    expect(!done.empty() && done.back().find("\"commit\":\"") != std::string::npos, "WS summary");
  }

  // ---- throughput: one small edit, one commit, each ----
  // Each contender times its own loop of edits (a gateway's start and stop
  // are not part of it).
  auto rate = [&](const std::string& name, auto&& loop) {
    fs::path dir = workspace(a, "rate-" + name, a.edits);
    clock_type::duration took = loop(dir);
    return a.edits / std::chrono::duration<double>(took).count();
  };
  double cli_rate = rate("cli", [&](const fs::path& dir) {
    auto t0 = clock_type::now();
    for (int i = 0; i < a.edits; ++i) {
      fs::path in = dir.parent_path() / "edit.md";
      write(in, block("f.txt", "line " + std::to_string(i), "line " + std::to_string(i) + " x"));
      int rc = bench::run_process({a.editgate, "apply", "--root", dir.string(), "--agent", "bench", in.string()});
      expect(rc == 0, "editgate apply");
    }
    return clock_type::now() - t0;
  });
  double http_rate = rate("http", [&](const fs::path& dir) {
    client::Gateway gw(dir.string());
    const std::map<std::string, std::string> auth = {{"Authorization", "Bearer " + gw.cookie()}};
    auto t0 = clock_type::now();
    for (int i = 0; i < a.edits; ++i) {
      auto r = client::request(gw.port(), "POST", "/v1/edits?agent=bench",
                               block("f.txt", "line " + std::to_string(i), "line " + std::to_string(i) + " x"), auth);
      expect(r.status == 200 && r.body.find("\"commit\":\"") != std::string::npos, "HTTP edit");
    }
    return clock_type::now() - t0;
  });
  double ws_rate = rate("ws", [&](const fs::path& dir) {
    client::Gateway gw(dir.string());
    client::Ws c(gw.port());
    c.login(gw.cookie());
    auto t0 = clock_type::now();
    for (int i = 0; i < a.edits; ++i) {
      c.send(boost::json::serialize(boost::json::object{
          {"op", "edit"}, {"agent", "bench"},
          {"text", block("f.txt", "line " + std::to_string(i), "line " + std::to_string(i) + " x")}}));
      auto replies = c.until_done();
      expect(!replies.empty() && replies.back().find("\"commit\":\"") != std::string::npos, "WS edit");
    }
    return clock_type::now() - t0;
  });

  bench::Percentiles e = bench::percentiles(engine_ms), h = bench::percentiles(http_ms), w = bench::percentiles(ws_ms);
  std::printf("Block latency, %d blocks each: from the END line sent to the block's result read (ms)\n\n", a.blocks);
  std::printf("| path | p50 | p99 | p50 / engine floor |\n|---|---|---|---|\n");
  std::printf("| edit engine in-process (floor) | %.3f | %.3f | 1.0 |\n", e.p50, e.p99);
  std::printf("| POST /v1/edits, NDJSON line | %.3f | %.3f | %.1f |\n", h.p50, h.p99, h.p50 / e.p50);
  std::printf("| WebSocket edit-chunk, block message | %.3f | %.3f | %.1f |\n\n", w.p50, w.p99, w.p50 / e.p50);
  std::printf("Small edits per second, %d edits each, one commit per edit\n\n", a.edits);
  std::printf("| path | edits/s | vs CLI |\n|---|---|---|\n");
  std::printf("| editgate apply (a process each) | %.0f | 1.0 |\n", cli_rate);
  std::printf("| POST /v1/edits (a connection each) | %.0f | %.1f |\n", http_rate, http_rate / cli_rate);
  std::printf("| WebSocket edit op (one connection) | %.0f | %.1f |\n\n", ws_rate, ws_rate / cli_rate);
  std::printf("goal p50 <= 1 ms: HTTP %s, WebSocket %s\n", h.p50 <= 1.0 ? "met" : "MISSED", w.p50 <= 1.0 ? "met" : "MISSED");
  return 0;
}
