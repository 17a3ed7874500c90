// edit_bench: editgate against git apply and GNU patch on a large real-text
// file, plus the edit-block parser against a plain line scan. See README.md.
#include "corpus.hpp"
#include "process.hpp"

#include "editproto/parser.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// A problem that stops the run; the work folder is kept for a look.
struct Abort : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::string editgate;                      // empty: next to this binary's build folder
  std::string workdir;                       // empty: a fresh temp folder, removed at the end
  std::string source = "/usr/include/boost";
  std::vector<std::size_t> sizes = {10000, 100000, 1000000};
  std::vector<std::size_t> edits = {1, 100, 1000};
  std::uint64_t seed = 20240611;
  int runs = 5;                 // runs per command
  int slow_runs = 3;            // runs for a command whose first run is slow
  double min_seconds = 0.3;     // fast commands run until this much is measured...
  int max_runs = 30;            // ...but at most this many times
  double slow_seconds = 1.0;    // what "slow" means
  double budget_seconds = 480;  // for the process timings; each command still runs once
  double parser_mb = 64;        // minimum size of the repeated-responses parser corpus
  double parser_seconds = 0.2;  // minimum measuring time per parser row
  bool keep = false;
  bool sync = true;             // syncfs the work folder before each timed run
};

[[noreturn]] void usage(int code) {
  std::cout <<
      "usage: edit_bench [options]\n"
      "  --editgate PATH     the editgate binary (default: ../gateway/editgate from this binary)\n"
      "  --workdir DIR       where to write the corpus (default: a new folder under $TMPDIR or /tmp)\n"
      "  --keep              keep the work folder (always kept after an abort)\n"
      "  --no-sync           do not flush the work folder's file system before each timed run\n"
      "  --source DIR        header tree for the corpus (default /usr/include/boost)\n"
      "  --sizes N,N,...     file sizes in lines (default 10000,100000,1000000)\n"
      "  --edits N,N,...     edit counts (default 1,100,1000)\n"
      "  --seed N            seed for the edit sites (default 20240611)\n"
      "  --runs N            runs per command, median reported (default 5)\n"
      "  --slow-runs N       runs for a command whose first run takes over --slow-seconds (default 3)\n"
      "  --slow-seconds S    (default 1.0)\n"
      "  --min-seconds S     a fast command runs until S seconds are measured, up to --max-runs (default 0.3)\n"
      "  --max-runs N        (default 30)\n"
      "  --budget S          seconds for all process timings; past it each command runs once (default 480)\n"
      "  --parser-mb MB      size of the repeated-responses parser corpus (default 64)\n"
      "  --parser-seconds S  minimum measuring time per parser row (default 0.2)\n";
  std::exit(code);
}

std::vector<std::size_t> parse_list(const std::string& s) {
  std::vector<std::size_t> out;
  std::size_t at = 0;
  while (at <= s.size()) {
    std::size_t comma = s.find(',', at);
    std::string item = s.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos)
      throw std::runtime_error("not a list of numbers: " + s);
    out.push_back(std::stoull(item));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "edit_bench: " << a << " needs a value\n";
        usage(2);
      }
      return argv[++i];
    };
    if (a == "--help" || a == "-h") usage(0);
    else if (a == "--editgate") o.editgate = value();
    else if (a == "--workdir") o.workdir = value();
    else if (a == "--keep") o.keep = true;
    else if (a == "--no-sync") o.sync = false;
    else if (a == "--source") o.source = value();
    else if (a == "--sizes") o.sizes = parse_list(value());
    else if (a == "--edits") o.edits = parse_list(value());
    else if (a == "--seed") o.seed = std::stoull(value());
    else if (a == "--runs") o.runs = std::max(1, std::stoi(value()));
    else if (a == "--slow-runs") o.slow_runs = std::max(1, std::stoi(value()));
    else if (a == "--slow-seconds") o.slow_seconds = std::stod(value());
    else if (a == "--min-seconds") o.min_seconds = std::stod(value());
    else if (a == "--max-runs") o.max_runs = std::max(1, std::stoi(value()));
    else if (a == "--budget") o.budget_seconds = std::stod(value());
    else if (a == "--parser-mb") o.parser_mb = std::stod(value());
    else if (a == "--parser-seconds") o.parser_seconds = std::stod(value());
    else {
      std::cerr << "edit_bench: unknown argument " << a << "\n";
      usage(2);
    }
  }
  if (o.sizes.empty() || o.edits.empty()) usage(2);
  return o;
}

// ---- files -----------------------------------------------------------------

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary | std::ios::ate);
  if (!in) throw Abort("cannot read " + p.string());
  std::string out(static_cast<std::size_t>(in.tellg()), '\0');
  in.seekg(0);
  if (!in.read(out.data(), static_cast<std::streamsize>(out.size()))) throw Abort("cannot read " + p.string());
  return out;
}

void write_file(const fs::path& p, std::string_view bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) throw Abort("cannot write " + p.string());
}

// Flushes dirty pages of the work folder's file system, so that writeback
// from one run does not land inside the next one's timing.
bool g_settle = true;
void settle(const fs::path& dir) {
  if (!g_settle) return;
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::syncfs(fd);
    ::close(fd);
  }
}

// Where two texts first differ: their sizes, the line number, and that line
// in each.
std::string first_difference(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  std::size_t line = 1 + static_cast<std::size_t>(std::count(a.begin(), a.begin() + static_cast<long>(i), '\n'));
  auto line_at = [i](std::string_view s) {
    std::size_t start = s.rfind('\n', i == 0 ? 0 : i - 1);
    start = (start == std::string_view::npos || i == 0) ? 0 : start + 1;
    std::size_t end = s.find('\n', start);
    return std::string(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
  };
  return "sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size()) + " bytes; first difference at line " +
         std::to_string(line) + ":\n    [" + line_at(a) + "]\n    [" + line_at(b) + "]";
}

// ---- timing ----------------------------------------------------------------

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Timing {
  double median = 0;  // seconds
  double min = 0;
  int runs = 0;
};

enum class Kind { floor, check, apply };

struct Tool {
  std::string name;
  Kind kind;
  std::vector<std::string> argv;
};

struct Row {
  std::size_t lines = 0;
  std::size_t bytes = 0;
  std::size_t edits = 0;
  std::size_t hunks = 0;
  std::string tool;
  Kind kind = Kind::floor;
  Timing t;
};

class ProcessBench {
 public:
  ProcessBench(const Options& o, Clock::time_point deadline) : opt_(o), deadline_(deadline) {}

  // Times argv; `prepare` runs before each run, outside the timed region.
  // The first run is a warm-up and is dropped, unless it took longer than
  // --slow-seconds: then it counts, and the command runs --slow-runs times.
  // Otherwise it runs --runs times, and more (up to --max-runs) until
  // --min-seconds of runs are measured, so that millisecond-scale commands
  // get enough samples.
  Timing time(const Tool& tool, const fs::path& settle_dir, const std::function<void()>& prepare,
              const std::string& fail_log) {
    auto one_run = [&] {
      prepare();
      settle(settle_dir);
      Clock::time_point t0 = Clock::now();
      int rc = bench::run_process(tool.argv);
      double dt = seconds_since(t0);
      if (rc != 0) {
        // Run it again with its output kept, for the message.
        prepare();
        int rc2 = bench::run_process(tool.argv, fail_log);
        throw Abort(tool.name + " exited with status " + std::to_string(rc) + " (again: " + std::to_string(rc2) +
                    ")\n  command: " + bench::shell_line(tool.argv) + "\n  output: " + fail_log + "\n" +
                    read_file(fail_log).substr(0, 4000));
      }
      return dt;
    };

    std::vector<double> times;
    const double first = one_run();
    const bool slow = first > opt_.slow_seconds;
    if (slow) times.push_back(first);  // else it was the warm-up
    double measured = slow ? first : 0;
    auto more = [&] {
      if (slow) return static_cast<int>(times.size()) < opt_.slow_runs;
      if (static_cast<int>(times.size()) < opt_.runs) return true;
      return measured < opt_.min_seconds && static_cast<int>(times.size()) < opt_.max_runs;
    };
    while (more()) {
      // Out of budget: keep what has been measured (at least one run).
      double last = times.empty() ? first : times.back();
      if (!times.empty() && Clock::now() + std::chrono::duration<double>(last) > deadline_) {
        if (!budget_hit_) {
          std::cerr << "edit_bench: time budget reached; further commands run once each\n";
          budget_hit_ = true;
        }
        break;
      }
      double dt = one_run();
      times.push_back(dt);
      measured += dt;
    }
    Timing t;
    t.median = median(times);
    t.min = *std::min_element(times.begin(), times.end());
    t.runs = static_cast<int>(times.size());
    return t;
  }

  bool budget_hit() const { return budget_hit_; }

 private:
  const Options& opt_;
  Clock::time_point deadline_;
  bool budget_hit_ = false;
};

// ---- output ----------------------------------------------------------------

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

void print_table_head() {
  std::printf("%9s %7s %6s %6s  %-20s %4s %11s %11s %9s %8s %8s\n", "lines", "MB", "edits", "hunks", "tool", "runs",
              "median ms", "min ms", "MB/s", "t/best", "t/copy");
}

void print_rows(const std::vector<Row>& rows) {
  // The baselines of this case: the copy, and the faster of git apply and
  // patch for each kind of run.
  double copy = 0, best_check = 0, best_apply = 0;
  for (const Row& r : rows) {
    if (r.kind == Kind::floor) copy = r.t.median;
    bool rival = r.tool.starts_with("git") || r.tool.starts_with("patch");
    if (rival && r.kind == Kind::check && (best_check == 0 || r.t.median < best_check)) best_check = r.t.median;
    if (rival && r.kind == Kind::apply && (best_apply == 0 || r.t.median < best_apply)) best_apply = r.t.median;
  }
  for (const Row& r : rows) {
    double best = r.kind == Kind::check ? best_check : r.kind == Kind::apply ? best_apply : 0;
    std::printf("%9zu %7.2f %6zu %6zu  %-20s %4d %11.2f %11.2f %9.1f %8s %8s\n", r.lines, r.bytes / 1e6, r.edits,
                r.hunks, r.tool.c_str(), r.t.runs, r.t.median * 1e3, r.t.min * 1e3, r.bytes / 1e6 / r.t.median,
                best > 0 ? fmt("%.2f", r.t.median / best).c_str() : "-",
                copy > 0 ? fmt("%.2f", r.t.median / copy).c_str() : "-");
  }
  std::printf("\n");
  std::fflush(stdout);
}

// ---- one case --------------------------------------------------------------

struct CaseResult {
  std::vector<Row> rows;
};

struct Tools {
  std::string editgate, git, patch, cp;
};

CaseResult run_case(const Tools& bin, ProcessBench& pb, const bench::EditCase& c, const fs::path& dir) {
  fs::create_directories(dir);
  const fs::path tree = dir / "tree";
  fs::create_directories(tree);
  const fs::path file = tree / "big.c";
  const fs::path response = dir / "response.md";
  const fs::path diff = dir / "edits.diff";
  const fs::path copy = dir / "copy.c";
  const std::string log = (dir / "last-run.log").string();
  write_file(file, c.original);
  write_file(response, c.response);
  write_file(diff, c.diff);
  if (bench::run_process({bin.git, "init", "-q", tree.string()}, log) != 0)
    throw Abort("git init failed in " + tree.string() + ":\n" + read_file(log));

  const std::string t = tree.string(), r = response.string(), d = diff.string();
  const std::vector<Tool> tools = {
      {"cp (floor)", Kind::floor, {bin.cp, file.string(), copy.string()}},
      {"editgate check", Kind::check, {bin.editgate, "check", "--root", t, r}},
      {"git apply --check", Kind::check, {bin.git, "-C", t, "apply", "--check", d}},
      {"patch --dry-run", Kind::check, {bin.patch, "-s", "-p1", "--dry-run", "-d", t, "-i", d}},
      // Files only, as git apply and patch: commits are timed by commit_bench.
      {"editgate apply", Kind::apply, {bin.editgate, "apply", "--no-commit", "--root", t, r}},
      {"git apply", Kind::apply, {bin.git, "-C", t, "apply", d}},
      {"patch", Kind::apply, {bin.patch, "-s", "-p1", "-d", t, "-i", d}},
  };
  auto restore = [&] { write_file(file, c.original); };
  auto find_tool = [&](const std::string& name) -> const Tool& {
    for (const Tool& tool : tools)
      if (tool.name == name) return tool;
    throw std::logic_error("no tool " + name);
  };

  // Correctness, once, before any timing: editgate apply and patch must
  // produce the same bytes, and those must be the edits the corpus meant.
  auto result_of = [&](const Tool& tool) {
    restore();
    int rc = bench::run_process(tool.argv, log);
    if (rc != 0)
      throw Abort(tool.name + " failed (status " + std::to_string(rc) + ") on " + std::to_string(c.lines) +
                  " lines with " + std::to_string(c.sites.size()) + " edits\n  command: " +
                  bench::shell_line(tool.argv) + "\n" + read_file(log).substr(0, 4000));
    return read_file(file);
  };
  const std::string by_editgate = result_of(find_tool("editgate apply"));
  const std::string by_patch = result_of(find_tool("patch"));
  restore();
  if (by_editgate != by_patch) {
    write_file(dir / "result-editgate.c", by_editgate);
    write_file(dir / "result-patch.c", by_patch);
    write_file(dir / "original.c", c.original);
    write_file(dir / "expected.c", c.expected);
    throw Abort("editgate apply and patch produce different files (" + std::to_string(c.lines) + " lines, " +
                std::to_string(c.sites.size()) + " edits): " + first_difference(by_editgate, by_patch) +
                "\n  the intended result (expected.c) is " +
                (by_editgate == c.expected ? "editgate's" : by_patch == c.expected ? "patch's" : "neither") +
                "\n  inputs: " + dir.string() + "/{original.c,response.md,edits.diff}, results: result-editgate.c, "
                "result-patch.c");
  }
  if (by_patch != c.expected) {
    write_file(dir / "result-patch.c", by_patch);
    write_file(dir / "expected.c", c.expected);
    throw Abort("the corpus is wrong: patch's result is not the expected file: " +
                first_difference(by_patch, c.expected));
  }

  CaseResult out;
  for (const Tool& tool : tools) {
    std::cerr << "  " << c.lines << " lines, " << c.sites.size() << " edits: " << tool.name << "..." << std::flush;
    std::function<void()> prepare = [] {};
    if (tool.kind == Kind::apply) prepare = restore;
    if (tool.kind == Kind::floor) prepare = [&] { fs::remove(copy); };
    Row row;
    row.lines = c.lines;
    row.bytes = c.original.size();
    row.edits = c.sites.size();
    row.hunks = c.hunks;
    row.tool = tool.name;
    row.kind = tool.kind;
    row.t = pb.time(tool, dir, prepare, log);
    std::cerr << " " << fmt("%.1f", row.t.median * 1e3) << " ms (" << row.t.runs << " runs)\n";
    out.rows.push_back(row);

    // What the timed runs left behind must be right too.
    if (tool.kind == Kind::apply) {
      std::string now = read_file(file);
      if (now != c.expected)
        throw Abort(tool.name + " left a wrong file after its timed runs: " + first_difference(now, c.expected));
      restore();
    } else if (tool.kind == Kind::check) {
      if (read_file(file) != c.original) throw Abort(tool.name + " changed the file in a dry run");
    } else if (read_file(copy) != c.original) {
      throw Abort("cp made a wrong copy");
    }
  }
  return out;
}

// ---- parser ----------------------------------------------------------------

struct ParserRow {
  std::string corpus;
  std::size_t bytes = 0;
  std::string mode;
  double seconds = 0;  // median per pass
  int reps = 0;
  double scan_seconds = 0;  // the line scan over the same bytes
};

// Repeats fn until at least `min_seconds` have been spent and 3 passes made;
// returns the median pass time.
double repeat_median(double min_seconds, int& reps, const std::function<void()>& fn) {
  std::vector<double> times;
  Clock::time_point start = Clock::now();
  while (times.size() < 3 || seconds_since(start) < min_seconds) {
    Clock::time_point t0 = Clock::now();
    fn();
    times.push_back(seconds_since(t0));
  }
  reps = static_cast<int>(times.size());
  return median(times);
}

volatile std::size_t g_sink = 0;

std::size_t count_lines(std::string_view s) {
  std::size_t n = 0;
  const char* p = s.data();
  const char* end = p + s.size();
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    if (nl == nullptr) break;
    ++n;
    p = static_cast<const char*>(nl) + 1;
  }
  return n;
}

std::vector<ParserRow> bench_parser(const std::string& name, const std::string& bytes, std::size_t want_blocks,
                                    double min_seconds) {
  std::vector<ParserRow> rows;
  editproto::Limits limits;
  limits.max_response_bytes = bytes.size() + 1;

  ParserRow scan{name, bytes.size(), "line scan (memchr)", 0, 0, 0};
  scan.seconds = repeat_median(min_seconds, scan.reps, [&] { g_sink = g_sink + count_lines(bytes); });
  scan.scan_seconds = scan.seconds;
  rows.push_back(scan);

  // The consumer drops the blocks after each feed, as the CLI does; the time
  // includes freeing them. Every pass must find every block, all well formed.
  auto check = [&](std::size_t found, std::size_t bad) {
    if (found != want_blocks || bad != 0)
      throw Abort("the parser found " + std::to_string(found) + " blocks (" + std::to_string(bad) +
                  " with errors) in the " + name + " corpus, expected " + std::to_string(want_blocks));
  };
  auto consume = [](std::vector<editproto::Block>& out, std::size_t& found, std::size_t& bad) {
    found += out.size();
    for (const editproto::Block& b : out) bad += b.ok() ? 0 : 1;
    out.clear();
  };
  for (std::size_t chunk : {bytes.size(), std::size_t{64} << 10}) {
    ParserRow row{name, bytes.size(), chunk == bytes.size() ? "parser, one feed" : "parser, 64 KiB feeds", 0, 0,
                  scan.seconds};
    row.seconds = repeat_median(min_seconds, row.reps, [&] {
      editproto::Parser p(limits);
      std::vector<editproto::Block> out;
      std::size_t found = 0, bad = 0;
      for (std::size_t at = 0; at < bytes.size(); at += chunk) {
        p.feed(std::string_view(bytes).substr(at, chunk), out);
        consume(out, found, bad);
      }
      p.finish(out);
      consume(out, found, bad);
      check(found, bad);
    });
    rows.push_back(row);
  }
  return rows;
}

std::string tool_version(const std::vector<std::string>& argv, const std::string& log) {
  if (bench::run_process(argv, log) != 0) return "(unknown)";
  std::string out = read_file(log);
  return out.substr(0, out.find('\n'));
}

int run(const Options& opt) {
  const Clock::time_point start = Clock::now();
  g_settle = opt.sync;

  Tools bin;
  if (!opt.editgate.empty()) {
    bin.editgate = fs::absolute(opt.editgate).string();
  } else {
    fs::path self = fs::read_symlink("/proc/self/exe");
    bin.editgate = (self.parent_path().parent_path() / "gateway" / "editgate").string();
  }
  if (::access(bin.editgate.c_str(), X_OK) != 0)
    throw std::runtime_error("no editgate binary at " + bin.editgate + " (pass --editgate PATH)");
  bin.git = bench::find_program("git");
  bin.patch = bench::find_program("patch");
  bin.cp = bench::find_program("cp");

  bool made_workdir = false;
  fs::path work;
  if (opt.workdir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/edit_bench.XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("cannot create a folder like " + templ);
    work = templ;
    made_workdir = true;
  } else {
    work = fs::absolute(opt.workdir);
    fs::create_directories(work);
  }
  bench::set_child_tmpdir(work.string());
  const std::string log = (work / "version.log").string();

  const std::size_t max_lines = *std::max_element(opt.sizes.begin(), opt.sizes.end());
  std::cerr << "edit_bench: collecting " << max_lines << " lines of headers from " << opt.source << "...\n";
  const bench::Source src = bench::Source::collect(opt.source, max_lines);

  std::printf("edit_bench: editgate vs git apply vs GNU patch, and the edit-block parser\n");
  std::printf("  editgate  %s (%s)\n", bin.editgate.c_str(), tool_version({bin.editgate, "--version"}, log).c_str());
  std::printf("  git       %s (%s)\n", bin.git.c_str(), tool_version({bin.git, "--version"}, log).c_str());
  std::printf("  patch     %s (%s)\n", bin.patch.c_str(), tool_version({bin.patch, "--version"}, log).c_str());
  std::printf("  corpus    %zu lines from %zu headers under %s (%zu skipped: not clean UTF-8/LF text),\n"
              "            %s .. %s; seed %llu\n",
              src.lines(), src.files_used(), opt.source.c_str(), src.files_skipped(), src.first_file().c_str(),
              src.last_file().c_str(), static_cast<unsigned long long>(opt.seed));
  std::printf("  work dir  %s\n", work.string().c_str());
  std::printf("  timing    whole processes, wall clock; median of %d+ runs after a warm-up run (more, up to %d, "
              "until %.2f s\n            are measured), or of %d runs, the first counted, when the first takes over "
              "%.1f s\n\n",
              opt.runs, opt.max_runs, opt.min_seconds, opt.slow_runs, opt.slow_seconds);
  std::printf("t/best: time / time of the faster of git apply and patch doing the same job (check or apply);\n"
              "t/copy: time / time of cp copying the file. MB/s: file bytes / time.\n\n");
  print_table_head();
  std::fflush(stdout);

  ProcessBench pb(opt, start + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(opt.budget_seconds)));
  std::vector<Row> all;
  std::string responses;  // every case's response, for the parser corpus
  std::size_t response_blocks = 0;
  for (std::size_t lines : opt.sizes) {
    for (std::size_t count : opt.edits) {
      std::vector<std::size_t> sites = bench::pick_sites(src, lines, count, opt.seed ^ (lines * 1000003 + count));
      bench::EditCase c = bench::make_case(src, lines, std::move(sites), "big.c");
      responses += c.response;
      response_blocks += c.sites.size();
      fs::path dir = work / ("L" + std::to_string(lines) + "-E" + std::to_string(count));
      CaseResult res = run_case(bin, pb, c, dir);
      print_rows(res.rows);
      all.insert(all.end(), res.rows.begin(), res.rows.end());
      if (!opt.keep) fs::remove_all(dir);
    }
  }
  const double process_seconds = seconds_since(start);

  // Parser alone.
  std::cerr << "edit_bench: parser...\n";
  std::vector<ParserRow> prow;
  {
    std::string big;
    std::size_t reps = 0;
    const std::size_t target = static_cast<std::size_t>(opt.parser_mb * 1e6);
    while (big.size() < target && !responses.empty()) {
      big += responses;
      ++reps;
    }
    auto r = bench_parser("all case responses x" + std::to_string(reps), big, response_blocks * reps,
                          opt.parser_seconds);
    prow.insert(prow.end(), r.begin(), r.end());
  }
  {
    std::size_t blocks = 0;
    std::string wrapped = bench::wrap_as_blocks(src, max_lines, 20, "big.c", blocks);
    auto r = bench_parser(std::to_string(max_lines) + " lines as 20-line blocks", wrapped, blocks,
                          opt.parser_seconds);
    prow.insert(prow.end(), r.begin(), r.end());
  }
  {
    std::string plain(src.prefix(max_lines));
    auto r = bench_parser(std::to_string(max_lines) + " lines, no blocks", plain, 0, opt.parser_seconds);
    prow.insert(prow.end(), r.begin(), r.end());
  }
  std::printf("%-36s %8s  %-22s %6s %10s %9s %12s\n", "parser corpus", "MB", "mode", "passes", "median ms", "GB/s",
              "t/line scan");
  for (const ParserRow& r : prow)
    std::printf("%-36s %8.2f  %-22s %6d %10.2f %9.3f %12.2f\n", r.corpus.c_str(), r.bytes / 1e6, r.mode.c_str(),
                r.reps, r.seconds * 1e3, r.bytes / 1e9 / r.seconds, r.seconds / r.scan_seconds);
  std::printf("\n");

  // Verdicts.
  std::vector<std::string> slower;
  for (const Row& r : all) {
    if (!r.tool.starts_with("editgate")) continue;
    double best = 0;
    std::string best_name;
    for (const Row& o : all) {
      if (o.lines != r.lines || o.edits != r.edits || o.kind != r.kind || o.tool.starts_with("editgate")) continue;
      if (best == 0 || o.t.median < best) {
        best = o.t.median;
        best_name = o.tool;
      }
    }
    if (r.t.median > best)
      slower.push_back(r.tool + " on " + std::to_string(r.lines) + " lines, " + std::to_string(r.edits) +
                       " edits: " + fmt("%.2f", r.t.median * 1e3) + " ms vs " + best_name + " " +
                       fmt("%.2f", best * 1e3) + " ms (x" + fmt("%.2f", r.t.median / best) + ")");
  }
  std::printf("GOAL editgate check/apply at least as fast as the faster of git apply and patch, every case: %s\n",
              slower.empty() ? "PASS" : "FAIL");
  for (const std::string& s : slower) std::printf("  slower: %s\n", s.c_str());

  double worst = 0;
  std::string worst_where;
  for (const ParserRow& r : prow) {
    if (!r.mode.starts_with("parser")) continue;
    double gbs = r.bytes / 1e9 / r.seconds;
    if (worst == 0 || gbs < worst) {
      worst = gbs;
      worst_where = r.corpus + ", " + r.mode;
    }
  }
  std::printf("GOAL parser >= 1 GB/s on every corpus and feed size: %s (slowest %.3f GB/s: %s)\n",
              worst >= 1.0 ? "PASS" : "FAIL", worst, worst_where.c_str());
  if (pb.budget_hit())
    std::printf("NOTE the time budget (%.0f s) was reached: some commands ran fewer times than asked\n",
                opt.budget_seconds);
  std::printf("total %.1f s (process timings %.1f s)\n", seconds_since(start), process_seconds);

  if (made_workdir && !opt.keep) fs::remove_all(work);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  try {
    opt = parse_args(argc, argv);
    return run(opt);
  } catch (const Abort& e) {
    std::fflush(stdout);
    std::cerr << "\nedit_bench: ABORT: " << e.what() << "\n(the work folder is kept)\n";
    return 1;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::cerr << "\nedit_bench: error: " << e.what() << "\n";
    return 2;
  }
}
