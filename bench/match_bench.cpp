// match_bench: the cost of a block that does not apply, for crafted blocks
// whose lines repeat (the exact search and the diagnosis once cost file x
// block line comparisons there) against a plain block of the same size on
// the same file. See README.md.
#include "percentiles.hpp"

#include "editproto/diagnose.hpp"
#include "editproto/document.hpp"
#include "editproto/parser.hpp"
#include "editproto/applier.hpp"
#include "editproto/workspace.hpp"

#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

struct Args {
  std::size_t lines = 300'000;
  std::size_t block = 3'000;
  int runs = 5;
};

[[noreturn]] void usage(int code) {
  std::cout << "usage: match_bench [--lines N] [--block N] [--runs N]\n"
               "  --lines N  lines of the file (default 300000)\n"
               "  --block N  lines of the repeated part of the block (default 3000)\n"
               "  --runs N   timed runs per case, median reported (default 5)\n";
  std::exit(code);
}

std::string repeated(const std::string& line, std::size_t n) {
  std::string out;
  out.reserve((line.size() + 1) * n);
  for (std::size_t i = 0; i < n; ++i) (out += line) += '\n';
  return out;
}

struct Case {
  std::string name;
  std::string file_line;            // the file is this line, repeated
  std::vector<std::string> edit;    // the block's EDIT section
};

struct Row {
  std::string name, reason;
  std::size_t file_lines = 0, block_lines = 0, comparisons = 0;
  double median_ms = 0;
};

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) throw std::runtime_error("cannot write " + p.string());
}

Row run_case(const Case& c, const Args& a, const fs::path& dir) {
  const std::string text = repeated(c.file_line, a.lines);
  write_file(dir / "big.txt", text);
  std::string response = "big.txt\n\xC2\xAB\xC2\xAB\xC2\xAB EDIT\n";
  for (const std::string& l : c.edit) response += l + "\n";
  response += "\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90 REPL\nchanged\n"
              "\xC2\xBB\xC2\xBB\xC2\xBB EDIT END\n";
  editproto::Parser parser;
  std::vector<editproto::Block> blocks;
  parser.feed(response, blocks);
  parser.finish(blocks);
  if (blocks.size() != 1 || !blocks[0].ok()) throw std::runtime_error(c.name + ": the block does not parse");

  Row row{c.name, "", a.lines, c.edit.size(), 0, 0};
  // The work, counted: one search as a streamed block makes it, then the
  // diagnosis when the section occurs nowhere.
  {
    editproto::Document doc{std::string(text)};
    std::vector<std::size_t> hits = doc.find(blocks[0].edit);
    row.comparisons = doc.comparisons();
    if (hits.empty())
      row.comparisons += editproto::diagnose_missing(doc.lines(), blocks[0].edit, 0, "big.txt").comparisons;
  }
  // The time, through the engine as the gateway runs it: a fresh applier
  // per run (check, nothing written).
  auto ws = editproto::Workspace::open(dir.string());
  if (!ws) throw std::runtime_error("cannot open the workspace");
  std::vector<double> ms;
  for (int r = 0; r < a.runs; ++r) {
    editproto::Applier applier(*ws, editproto::Options{});
    auto t0 = clock_type::now();
    applier.submit(blocks[0]);
    auto results = applier.flush();
    ms.push_back(bench::ms(clock_type::now() - t0));
    if (results.size() != 1) throw std::runtime_error(c.name + ": no result");
    row.reason = std::string(editproto::to_string(results[0].reason));
  }
  row.median_ms = bench::percentiles(ms).p50;
  return row;
}

}  // namespace

int main(int argc, char** argv) try {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::size_t {
      if (i + 1 >= argc) usage(2);
      return std::stoull(argv[++i]);
    };
    if (k == "--help" || k == "-h") usage(0);
    else if (k == "--lines") a.lines = value();
    else if (k == "--block") a.block = value();
    else if (k == "--runs") a.runs = static_cast<int>(std::max<std::size_t>(1, value()));
    else usage(2);
  }
  if (a.block == 0 || a.lines <= a.block) usage(2);

  char tmpl[] = "/tmp/match_bench.XXXXXX";
  if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  const fs::path dir = tmpl;

  std::vector<Case> cases;
  {
    Case plain{"plain block (baseline)", "x", {}};
    for (std::size_t i = 0; i <= a.block; ++i) plain.edit.push_back("y" + std::to_string(i));
    cases.push_back(plain);
    Case crafted{"x lines + z", "x", std::vector<std::string>(a.block, "x")};
    crafted.edit.push_back("z");
    cases.push_back(crafted);
    Case spaced = crafted;
    spaced.name = "x lines + z, file 'x '";
    spaced.file_line = "x ";
    cases.push_back(spaced);
    cases.push_back({"x lines (everywhere)", "x", std::vector<std::string>(a.block, "x")});
  }

  std::vector<Row> rows;
  for (const Case& c : cases) {
    std::cerr << "match_bench: " << c.name << "\n";
    rows.push_back(run_case(c, a, dir));
  }
  fs::remove_all(dir);

  std::printf("%-26s %10s %8s %-16s %10s %9s %14s %10s\n", "case", "lines", "block", "reason", "median ms",
              "t/plain", "comparisons", "/(f+b)");
  for (const Row& r : rows)
    std::printf("%-26s %10zu %8zu %-16s %10.1f %9.2f %14zu %10.2f\n", r.name.c_str(), r.file_lines, r.block_lines,
                r.reason.c_str(), r.median_ms, r.median_ms / rows[0].median_ms, r.comparisons,
                static_cast<double>(r.comparisons) / static_cast<double>(r.file_lines + r.block_lines));
  return 0;
} catch (const std::exception& e) {
  std::cerr << "match_bench: " << e.what() << "\n";
  return 1;
}
