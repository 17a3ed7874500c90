// commit_bench: the cost of committing one changed file, in repositories of
// 10 to 100,000 files, for editgate's git layer, for `git add && git commit`,
// and for the floor: writing the same blob, trees and commit with libgit2 and
// nothing else (no index, no ref). A benchmark, not a test: it exits 1 only
// when a result is wrong.
#include "git/commit_queue.hpp"
#include "git/repository.hpp"
#include "process.hpp"

#include <git2.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

editgit::Options deferring() {
  editgit::Options o;
  o.defer_index = true;
  return o;
}

struct Args {
  std::vector<std::size_t> sizes{10, 1000, 10000, 100000};
  int commits = 100;
  int git_commits_large = 30;  // git CLI commits above 10,000 files (each takes long)
  std::string workdir = "/tmp";
  std::string editgate;  // the binary for the whole-process row; default ../gateway/editgate from this one
  std::string editgate_before;  // a second binary for that row (e.g. one built from main), timed in the same run
};

[[noreturn]] void usage(int code) {
  std::fprintf(code ? stderr : stdout,
               "usage: commit_bench [--sizes 10,1000,...] [--commits N] [--git-commits-large N] [--workdir DIR]\n"
               "                    [--editgate PATH] [--editgate-before PATH]\n");
  std::exit(code);
}

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage(2);
      return argv[++i];
    };
    if (k == "--help" || k == "-h") usage(0);
    else if (k == "--sizes") {
      a.sizes.clear();
      std::stringstream ss(next());
      for (std::string item; std::getline(ss, item, ',');) a.sizes.push_back(std::stoul(item));
    } else if (k == "--commits") a.commits = std::stoi(next());
    else if (k == "--git-commits-large") a.git_commits_large = std::stoi(next());
    else if (k == "--workdir") a.workdir = next();
    else if (k == "--editgate") a.editgate = next();
    else if (k == "--editgate-before") a.editgate_before = next();
    else usage(2);
  }
  return a;
}

[[noreturn]] void wrong(const std::string& what) {
  std::cerr << "commit_bench: WRONG RESULT: " << what << '\n';
  std::exit(1);
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Stats {
  double median = 0, p90 = 0;
};
Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 9 / 10)]};
}

// Nested like a real tree: at most 100 files per folder, 100 folders per level.
std::string file_path(std::size_t i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "t%02zu/m%03zu/f%06zu.txt", i / 10000, (i / 100) % 100, i);
  return buf;
}

void write(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out) wrong("cannot write " + p.string());
}

const std::string& git_bin() {
  static const std::string g = bench::find_program("git");
  return g;
}

std::vector<std::string> git(const fs::path& dir, std::vector<std::string> args) {
  std::vector<std::string> argv = {git_bin(), "-C", dir.string(), "-c", "user.name=Bench", "-c",
                                   "user.email=bench@example.com"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

void git_must(const fs::path& dir, std::vector<std::string> args, const std::string& log = {}) {
  auto argv = git(dir, std::move(args));
  if (bench::run_process(argv, log) != 0) wrong("failed: " + bench::shell_line(argv));
}

std::string git_out(const fs::path& dir, std::vector<std::string> args, const fs::path& scratch) {
  const std::string log = (scratch / "git.out").string();
  auto argv = git(dir, std::move(args));
  if (bench::run_process(argv, log) != 0) wrong("failed: " + bench::shell_line(argv));
  std::ifstream in(log);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string content(const std::string& who, int k, std::size_t i) {
  return "file " + std::to_string(i) + "\ncommit " + std::to_string(k) + " by " + who + "\n";
}

struct Row {
  std::size_t files = 0;
  Stats floor, once, fresh, cli, index_write, apply, apply_before;
  Stats deferred, settle;  // the commit with its index entries deferred; the write that takes them
  double burst = 0;        // ms per commit, commits settled every CommitQueue::kSettleEvery
  int cli_commits = 0;
};

Row run_size(const Args& a, std::size_t n) {
  Row row;
  row.files = n;
  const fs::path dir = fs::path(a.workdir) / ("repo-" + std::to_string(n));
  const fs::path scratch = fs::path(a.workdir);
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::cerr << "commit_bench: " << n << " files: generating\n";
  for (std::size_t i = 0; i < n; ++i) {
    fs::path p = dir / file_path(i);
    fs::create_directories(p.parent_path());
    write(p, content("init", 0, i));
  }
  git_must(dir, {"init", "-q", "-b", "main"});
  git_must(dir, {"add", "-A"});
  git_must(dir, {"commit", "-q", "-m", "init"});

  const std::string rel = file_path(0);
  const fs::path file = dir / rel;
  std::string prev = content("init", 0, 0);
  auto count = [&] { return std::stoi(git_out(dir, {"rev-list", "--count", "HEAD"}, scratch)); };
  auto clean = [&](const char* who) {
    std::string st = git_out(dir, {"status", "--porcelain"}, scratch);
    if (!st.empty()) wrong(std::string(who) + ": git status is not clean:\n" + st);
  };

  // The floor: blob, trees and commit objects through libgit2, chained.
  {
    std::cerr << "commit_bench: " << n << " files: floor\n";
    git_repository* repo = nullptr;
    if (git_repository_open(&repo, dir.c_str()) < 0) wrong("open for the floor");
    git_oid tip;
    git_reference_name_to_id(&tip, repo, "HEAD");
    git_commit* parent = nullptr;
    git_commit_lookup(&parent, repo, &tip);
    git_tree* tree = nullptr;
    git_commit_tree(&tree, parent);
    git_signature* sig = nullptr;
    git_signature_now(&sig, "floor", "floor@example.com");
    std::vector<double> t;
    for (int k = 1; k <= a.commits; ++k) {
      const std::string bytes = content("floor", k, 0);
      auto t0 = Clock::now();
      git_oid blob, tree_id, commit_id;
      if (git_blob_create_from_buffer(&blob, repo, bytes.data(), bytes.size()) < 0) wrong("floor blob");
      git_tree_update up{GIT_TREE_UPDATE_UPSERT, blob, GIT_FILEMODE_BLOB, rel.c_str()};
      if (git_tree_create_updated(&tree_id, repo, tree, 1, &up) < 0) wrong("floor tree");
      git_tree* next_tree = nullptr;
      git_tree_lookup(&next_tree, repo, &tree_id);
      const git_commit* parents[1] = {parent};
      if (git_commit_create(&commit_id, repo, nullptr, sig, sig, nullptr, "floor", next_tree, 1, parents) < 0)
        wrong("floor commit");
      git_commit* next = nullptr;
      git_commit_lookup(&next, repo, &commit_id);
      t.push_back(ms_since(t0));
      git_tree_free(tree);
      git_commit_free(parent);
      tree = next_tree;
      parent = next;
    }
    row.floor = stats(t);

    // What the index costs alone at this size: add one entry, write it all.
    git_index* index = nullptr;
    git_repository_index(&index, repo);
    git_index_read(index, 1);
    const git_index_entry* e = git_index_get_bypath(index, rel.c_str(), 0);
    if (!e) wrong("index entry");
    git_index_entry copy = *e;
    std::vector<double> iw;
    for (int k = 0; k < 20; ++k) {
      auto t0 = Clock::now();
      copy.mtime.nanoseconds = static_cast<uint32_t>(k);
      git_index_add(index, &copy);
      if (git_index_write(index) < 0) wrong("index write");
      iw.push_back(ms_since(t0));
    }
    row.index_write = stats(iw);
    git_index_free(index);
    git_signature_free(sig);
    git_tree_free(tree);
    git_commit_free(parent);
    git_repository_free(repo);
  }

  // The file written, as the edit engine writes it, and the request that commits it.
  auto request = [&](const std::string& bytes) {
    write(file, bytes);
    editgit::CommitRequest req;
    req.changes.push_back({rel, std::string_view(prev), {std::string_view(bytes)}, false});
    req.author = {"bench-agent", "bench-agent@editgate.invalid"};
    req.message = "edit " + rel + " (1 applied)\n";
    return req;
  };

  // editgate's commit path, as the gateway runs it: one Repository, kept open.
  auto editgate_run = [&](const char* who, bool reopen) {
    std::cerr << "commit_bench: " << n << " files: editgate (" << who << ")\n";
    const int before = count();
    std::optional<editgit::Repository> kept;
    if (!reopen) kept.emplace(editgit::Repository::open(dir.string(), {}, false).value());
    std::vector<double> t;
    for (int k = 1; k <= a.commits; ++k) {
      const std::string bytes = content(who, k, 0);
      const editgit::CommitRequest req = request(bytes);
      auto t0 = Clock::now();
      std::optional<editgit::Repository> fresh;
      if (reopen) fresh.emplace(editgit::Repository::open(dir.string(), {}, false).value());
      auto r = (reopen ? *fresh : *kept).commit(req);
      t.push_back(ms_since(t0));
      if (!r) wrong(std::string(who) + ": " + r.error().message);
      if (!r->id || r->earlier || !r->warning.empty()) wrong(std::string(who) + ": unexpected commit result");
      prev = bytes;
    }
    if (count() != before + a.commits) wrong(std::string(who) + ": commit count");
    clean(who);
    return stats(t);
  };
  row.once = editgate_run("open once", false);
  row.fresh = editgate_run("open per commit", true);

  // As the commit queue commits (Options::defer_index): the commit returns
  // once the branch has moved, and settle_index writes the index, timed
  // apart (one after each commit: the quiet case); then a burst with one
  // write every CommitQueue::kSettleEvery commits (the queue under a steady
  // stream), its whole time divided by its commits.
  {
    std::cerr << "commit_bench: " << n << " files: editgate, index deferred\n";
    const int before = count();
    auto repo = editgit::Repository::open(dir.string(), deferring(), false).value();
    auto one = [&](const char* who, int k) {
      const std::string bytes = content(who, k, 0);
      const editgit::CommitRequest req = request(bytes);
      auto t0 = Clock::now();
      auto r = repo.commit(req);
      const double ms = ms_since(t0);
      if (!r || !r->id || r->earlier || !r->warning.empty()) wrong(std::string(who) + ": commit");
      prev = bytes;
      return ms;
    };
    std::vector<double> tc, ts;
    for (int k = 1; k <= a.commits; ++k) {
      tc.push_back(one("deferred", k));
      auto t0 = Clock::now();
      if (!repo.settle_index()) wrong("deferred: settle");
      ts.push_back(ms_since(t0));
    }
    row.deferred = stats(tc);
    row.settle = stats(ts);
    auto t0 = Clock::now();
    for (int k = 1; k <= a.commits; ++k) {
      one("burst", k);
      if (k % editgit::CommitQueue::kSettleEvery == 0 && !repo.settle_index()) wrong("burst: settle");
    }
    if (!repo.settle_index()) wrong("burst: settle");
    row.burst = ms_since(t0) / a.commits;
    if (count() != before + 2 * a.commits) wrong("deferred: commit count");
    clean("deferred");
  }

  // git add <file> && git commit, as two processes, as a script would.
  {
    row.cli_commits = n > 10000 ? std::min(a.commits, a.git_commits_large) : a.commits;
    std::cerr << "commit_bench: " << n << " files: git add + git commit (" << row.cli_commits << " commits)\n";
    const int before = count();
    std::vector<double> t;
    for (int k = 1; k <= row.cli_commits; ++k) {
      write(file, content("git", k, 0));
      auto t0 = Clock::now();
      git_must(dir, {"add", rel});
      git_must(dir, {"commit", "-q", "-m", "edit " + rel});
      t.push_back(ms_since(t0));
    }
    if (count() != before + row.cli_commits) wrong("git: commit count");
    clean("git");
    row.cli = stats(t);
  }

  // `editgate apply` of one block, as a process: start, repository, edit,
  // commit and exit, the same number of commits as git's row; with
  // --editgate-before, that binary first, then this one, each continuing the file.
  std::string last = content("git", row.cli_commits, 0);
  auto apply_row = [&](const std::string& editgate, const std::string& who) {
    std::cerr << "commit_bench: " << n << " files: editgate apply" << who << " (" << row.cli_commits << " commits)\n";
    const int before = count();
    const fs::path response = scratch / "response.md";
    std::vector<double> t;
    for (int k = 1; k <= row.cli_commits; ++k) {
      const std::string next = content("apply" + who, k, 0);
      const std::string old_line = last.substr(last.find('\n') + 1, last.size() - last.find('\n') - 2);
      const std::string new_line = next.substr(next.find('\n') + 1, next.size() - next.find('\n') - 2);
      write(response, rel + "\n\u00ab\u00ab\u00ab EDIT\n" + old_line + "\n\u2550\u2550\u2550\u2550\u2550\u2550\u2550 REPL\n" +
                          new_line + "\n\u00bb\u00bb\u00bb EDIT END\n");
      const std::vector<std::string> argv = {editgate, "apply", "--root", dir.string(), response.string()};
      auto t0 = Clock::now();
      if (bench::run_process(argv) != 0) wrong("failed: " + bench::shell_line(argv));
      t.push_back(ms_since(t0));
      last = next;
    }
    if (count() != before + row.cli_commits) wrong("editgate apply: commit count");
    if (git_out(dir, {"show", "HEAD:" + rel}, scratch) != last) wrong("editgate apply: HEAD's file");
    clean("editgate apply");
    return stats(t);
  };
  if (!a.editgate_before.empty()) row.apply_before = apply_row(a.editgate_before, " before");
  row.apply = apply_row(a.editgate, "");
  fs::remove_all(dir);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse_args(argc, argv);
  if (a.editgate.empty())
    a.editgate = (fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "gateway" / "editgate").string();
  if (::access(a.editgate.c_str(), X_OK) != 0) {
    std::cerr << "commit_bench: no editgate binary at " << a.editgate << " (pass --editgate PATH)\n";
    return 2;
  }
  if (!a.editgate_before.empty() && ::access(a.editgate_before.c_str(), X_OK) != 0) {
    std::cerr << "commit_bench: no editgate binary at " << a.editgate_before << '\n';
    return 2;
  }
  git_libgit2_init();
  bench::set_child_tmpdir(a.workdir);
  std::vector<Row> rows;
  for (std::size_t n : a.sizes) rows.push_back(run_size(a, n));

  std::printf("Committing one changed file, %d commits per contender (ms per commit, median / p90)\n\n", a.commits);
  std::printf("| files | floor (objects only) | editgate, repo kept open | editgate, open per commit | "
              "git add + git commit | git CLI / editgate | editgate / floor | index write alone |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows)
    std::printf("| %zu | %.3f / %.3f | %.3f / %.3f | %.3f / %.3f | %.2f / %.2f%s | %.1f× | %.2f× | %.3f / %.3f |\n",
                r.files, r.floor.median, r.floor.p90, r.once.median, r.once.p90, r.fresh.median, r.fresh.p90,
                r.cli.median, r.cli.p90, r.cli_commits < a.commits ? (" (" + std::to_string(r.cli_commits) + ")").c_str() : "",
                r.cli.median / r.once.median, r.once.median / r.floor.median, r.index_write.median,
                r.index_write.p90);

  std::printf("\nThe index deferred, as the commit queue commits (ms per commit, median / p90; burst: mean of %d, "
              "one index write every %d)\n\n", a.commits, editgit::CommitQueue::kSettleEvery);
  std::printf("| files | floor | commit, index deferred | index write (settle) | burst, per commit | "
              "deferred / floor | (commit + settle) / floor | burst / floor |\n|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows)
    std::printf("| %zu | %.3f | %.3f / %.3f | %.3f / %.3f | %.3f | %.2f× | %.2f× | %.2f× |\n", r.files, r.floor.median,
                r.deferred.median, r.deferred.p90, r.settle.median, r.settle.p90, r.burst,
                r.deferred.median / r.floor.median, (r.deferred.median + r.settle.median) / r.floor.median,
                r.burst / r.floor.median);

  std::printf("\nOne block applied and committed by a whole process, against git's two (ms, median / p90)\n\n");
  const bool both = !a.editgate_before.empty();
  std::printf("| files | git add + git commit |%s editgate apply | editgate apply / git |%s\n|---|---|---|---|%s\n",
              both ? " before: editgate apply |" : "", both ? " before / git |" : "", both ? "---|---|" : "");
  for (const Row& r : rows) {
    std::printf("| %zu | %.2f / %.2f |", r.files, r.cli.median, r.cli.p90);
    if (both) std::printf(" %.2f / %.2f |", r.apply_before.median, r.apply_before.p90);
    std::printf(" %.2f / %.2f | %.2f |", r.apply.median, r.apply.p90, r.apply.median / r.cli.median);
    if (both) std::printf(" %.2f |", r.apply_before.median / r.cli.median);
    std::printf("\n");
  }

  std::printf("\nGOALS\n");
  bool fast = true, near_floor = true, deferred_near = true, burst_near = true;
  for (const Row& r : rows) {
    fast &= r.cli.median / r.once.median >= 10 && r.cli.median / r.fresh.median >= 10;
    near_floor &= r.once.median / r.floor.median <= 2;
    deferred_near &= r.deferred.median / r.floor.median <= 2;
    burst_near &= r.burst / r.floor.median <= 2;
  }
  std::printf("- >= 10x faster than git add + git commit at every size (kept open and open per commit): %s\n",
              fast ? "met" : "MISSED");
  std::printf("- within 2x of the floor at every size (repo kept open): %s\n", near_floor ? "met" : "MISSED");
  std::printf("- within 2x of the floor at every size (commit, index deferred): %s\n", deferred_near ? "met" : "MISSED");
  std::printf("- within 2x of the floor at every size (burst, index included): %s\n", burst_near ? "met" : "MISSED");
  for (const Row& r : rows)
    if (r.files == 10000)
      std::printf("- editgate apply <= 0.5x git add + git commit at 10000 files: %.2fx, %s\n", r.apply.median / r.cli.median,
                  r.apply.median / r.cli.median <= 0.5 ? "met" : "MISSED");
  if (rows.size() >= 2) {
    const Row& s = rows.front();
    const Row& l = rows.back();
    std::printf("- growth from %zu to %zu files: editgate %.2fx, floor %.2fx, index write alone %.2f -> %.2f ms\n",
                s.files, l.files, l.once.median / s.once.median, l.floor.median / s.floor.median,
                s.index_write.median, l.index_write.median);
  }
  return 0;
}
