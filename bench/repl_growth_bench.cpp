// repl_growth_bench: what a page's chat log costs in .git when every
// exchange is committed onto refs/editgate/repl/<name> (the tree: the folder
// of logs), without the packer and with it (git/packer.hpp), in one run.
// Each exchange appends about 161 bytes to the log and commits the whole
// log: three loose objects, the blob as big as the log, so the loose bytes
// grow with the square of the exchanges. The goal: .git within 2x the log's
// bytes plus 1 MB after 10,000 exchanges. A benchmark, not a test: it exits
// 1 only when a result is wrong (git fsck, a missing object).
#include "git/packer.hpp"
#include "process.hpp"

#include <git2.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Args {
  int exchanges = 10'000;
  int every = 64;  // pack_new (then merge) after this many commits
  std::string workdir = "/tmp";
  bool baseline = true;
};

[[noreturn]] void usage(int code) {
  std::fprintf(code ? stderr : stdout,
               "usage: repl_growth_bench [--exchanges N] [--every K] [--no-baseline] [--workdir DIR]\n");
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
    else if (k == "--exchanges") a.exchanges = std::stoi(next());
    else if (k == "--every") a.every = std::stoi(next());
    else if (k == "--workdir") a.workdir = next();
    else if (k == "--no-baseline") a.baseline = false;
    else usage(2);
  }
  if (a.exchanges < 1 || a.every < 1) usage(2);
  return a;
}

[[noreturn]] void wrong(const std::string& what) {
  std::cerr << "repl_growth_bench: WRONG RESULT: " << what << '\n';
  std::exit(1);
}

void must(int rc, const char* what) {
  if (rc < 0) {
    const git_error* e = git_error_last();
    wrong(std::string(what) + ": " + (e && e->message ? e->message : "?"));
  }
}

// CPU seconds (user + system) of this thread, which does all the work.
double cpu_now() {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  auto s = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  return s(ru.ru_utime) + s(ru.ru_stime);
}

// One exchange as the REPL writes it: the request, the reply, its time;
// numbers vary as real ones do. 161 bytes on average.
std::string exchange_text(int n, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> num(0, 999'999), ms(0, 2000);
  const int a = num(rng), b = num(rng);
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "### agent-1 · job %d\n\n```js\nconst r = await page.sum(%d, %d);\nr\n```\n\n```text\n%d\n```\n"
                "<!-- editgate: reply %d to agent-1 on page-1, %d ms, ok -->\n\n",
                n, a, b, a + b, n, ms(rng));
  return buf;
}

struct Usage {
  std::uint64_t bytes = 0, disk = 0;  // apparent sizes; blocks allocated
  std::uint64_t loose = 0, loose_bytes = 0, loose_disk = 0;
  std::uint64_t packs = 0, pack_bytes = 0;
};

Usage usage_of(const fs::path& gitdir) {
  Usage u;
  for (const auto& e : fs::recursive_directory_iterator(gitdir)) {
    struct stat st;
    if (::lstat(e.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const auto size = static_cast<std::uint64_t>(st.st_size), disk = static_cast<std::uint64_t>(st.st_blocks) * 512;
    u.bytes += size;
    u.disk += disk;
    const std::string parent = e.path().parent_path().filename().string();
    const std::string grand = e.path().parent_path().parent_path().filename().string();
    if (grand == "objects" && parent.size() == 2) {
      ++u.loose;
      u.loose_bytes += size;
      u.loose_disk += disk;
    } else if (parent == "pack" && grand == "objects") {
      if (e.path().extension() == ".pack") ++u.packs;
      u.pack_bytes += size;
    }
  }
  return u;
}

struct Outcome {
  std::uint64_t log_bytes = 0;
  Usage use;
  double commit_cpu = 0, pack_cpu = 0, merge_cpu = 0, final_cpu = 0;
  double max_pack_call = 0;  // the longest pack_new + merge, in CPU seconds
  std::size_t pack_calls = 0, merges = 0, max_packs = 0;
};

Outcome run(const Args& a, const fs::path& dir, bool with_packer) {
  fs::remove_all(dir);
  fs::create_directories(dir / "logs");
  git_repository* repo = nullptr;
  must(git_repository_init(&repo, dir.c_str(), 0), "init");
  const std::string ref = "refs/editgate/repl/bench";
  std::optional<editgit::Packer> packer;
  if (with_packer) {
    auto p = editgit::Packer::open((dir / ".git").string());
    if (!p) wrong("Packer::open: " + p.error().message);
    packer.emplace(std::move(*p));
  }
  git_signature *agent = nullptr, *committer = nullptr;
  must(git_signature_now(&agent, "agent-1", "agent-1@editgate.invalid"), "signature");
  must(git_signature_now(&committer, "editgate", "editgate@editgate.invalid"), "signature");

  Outcome out;
  std::mt19937_64 rng(12345);
  std::string log;
  const fs::path log_path = dir / "logs/page-1.md";
  std::ofstream log_file(log_path, std::ios::binary | std::ios::app);
  git_commit* parent = nullptr;
  git_tree* tree = nullptr;

  auto maintain = [&](bool last) {
    const double t0 = cpu_now();
    auto s = packer->pack_new(ref);
    if (!s) wrong("pack_new: " + s.error().message);
    const double t1 = cpu_now();
    auto m = packer->merge();
    if (!m) wrong("merge: " + m.error().message);
    const double t2 = cpu_now();
    (last ? out.final_cpu : out.pack_cpu) += t1 - t0;
    out.merge_cpu += t2 - t1;
    out.max_pack_call = std::max(out.max_pack_call, t2 - t0);
    ++out.pack_calls;
    if (m->packs_merged) ++out.merges;
    out.max_packs = std::max(out.max_packs, packer->pack_count().value());
  };

  for (int n = 1; n <= a.exchanges; ++n) {
    const std::string text = exchange_text(n, rng);
    log += text;
    log_file << text << std::flush;  // the REPL writes the log, then commits it
    const double t0 = cpu_now();
    git_oid blob, tree_id, commit_id;
    must(git_blob_create_from_buffer(&blob, repo, log.data(), log.size()), "blob");
    git_tree_update up{GIT_TREE_UPDATE_UPSERT, blob, GIT_FILEMODE_BLOB, "page-1.md"};
    must(git_tree_create_updated(&tree_id, repo, tree, 1, &up), "tree");
    git_tree* next_tree = nullptr;
    must(git_tree_lookup(&next_tree, repo, &tree_id), "tree lookup");
    const std::string message = "reply: page-1 to agent-1, job " + std::to_string(n) +
                                " (12 ms)\n\nEditgate-Kind: reply\nEditgate-Agent: agent-1\nEditgate-Job: " +
                                std::to_string(n) + "\nEditgate-Duration: 12ms\nEditgate-Status: ok\n";
    const git_commit* parents[1] = {parent};
    must(git_commit_create(&commit_id, repo, nullptr, agent, committer, nullptr, message.c_str(), next_tree,
                           parent ? 1 : 0, parents),
         "commit");
    git_reference* r = nullptr;
    must(git_reference_create(&r, repo, ref.c_str(), &commit_id, 1, "reply"), "ref");
    git_reference_free(r);
    git_commit* next = nullptr;
    must(git_commit_lookup(&next, repo, &commit_id), "commit lookup");
    git_tree_free(tree);
    git_commit_free(parent);
    tree = next_tree;
    parent = next;
    out.commit_cpu += cpu_now() - t0;
    if (packer && n % a.every == 0) maintain(false);
    if (n % 1000 == 0) std::cerr << "repl_growth_bench: " << (with_packer ? "packer" : "baseline") << " " << n << "\n";
  }
  // The committer's idle call: the last commits too.
  if (packer && a.exchanges % a.every != 0) maintain(true);

  git_tree_free(tree);
  git_commit_free(parent);
  git_signature_free(agent);
  git_signature_free(committer);
  git_repository_free(repo);
  packer.reset();
  log_file.close();
  out.log_bytes = fs::file_size(log_path);
  if (out.log_bytes != log.size()) wrong("the log file's size");

  // git reads the store on its own: every object there, the log's last
  // state as written.
  const std::string git = bench::find_program("git");
  const std::string scratch = (dir / "git.out").string();
  if (bench::run_process({git, "-C", dir.string(), "fsck", "--full", "--no-dangling", "--no-progress"}, scratch) != 0)
    wrong("git fsck in " + dir.string() + " (see " + scratch + ")");
  if (bench::run_process({git, "-C", dir.string(), "show", ref + ":page-1.md"}, scratch) != 0) wrong("git show");
  std::ifstream shown(scratch, std::ios::binary);
  std::string got((std::istreambuf_iterator<char>(shown)), std::istreambuf_iterator<char>());
  if (got != log) wrong("the ref's page-1.md differs from the log");
  fs::remove(scratch);
  out.use = usage_of(dir / ".git");
  return out;
}

std::string mb(std::uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f MB", double(b) / 1e6);
  return buf;
}

void report(const char* name, const Outcome& o) {
  const double goal = 2.0 * double(o.log_bytes) + 1e6;
  std::printf("%-9s  .git %10s (disk %10s)  loose %6llu objects %10s (disk %10s)  packs %2llu %10s  /goal %.2f\n",
              name, mb(o.use.bytes).c_str(), mb(o.use.disk).c_str(), (unsigned long long)o.use.loose,
              mb(o.use.loose_bytes).c_str(), mb(o.use.loose_disk).c_str(), (unsigned long long)o.use.packs,
              mb(o.use.pack_bytes).c_str(), double(o.use.bytes) / goal);
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse_args(argc, argv);
  git_libgit2_init();
  bench::set_child_tmpdir(a.workdir);
  const fs::path work = fs::path(a.workdir);

  // The packer's run first: opening it sets the git layer's libgit2 cache
  // options, which the baseline then runs with too.
  const Outcome packed = run(a, work / "packer", true);
  std::optional<Outcome> base;
  if (a.baseline) base = run(a, work / "baseline", false);

  const double goal = 2.0 * double(packed.log_bytes) + 1e6;
  std::printf("repl_growth_bench: %d exchanges, pack_new + merge every %d commits and once when idle\n",
              a.exchanges, a.every);
  std::printf("log       %s (%.1f bytes an exchange); goal: .git <= 2 x log + 1 MB = %s\n",
              mb(packed.log_bytes).c_str(), double(packed.log_bytes) / a.exchanges,
              mb(static_cast<std::uint64_t>(goal)).c_str());
  if (base) report("baseline", *base);
  report("packer", packed);
  std::printf("cpu       commits %.2f s", packed.commit_cpu);
  if (base) std::printf(" (baseline's %.2f s)", base->commit_cpu);
  std::printf("; packer %.2f s = pack_new %.2f s + merge %.2f s + idle call %.2f s (%.0f%% of the commits')\n",
              packed.pack_cpu + packed.merge_cpu + packed.final_cpu, packed.pack_cpu, packed.merge_cpu,
              packed.final_cpu, 100.0 * (packed.pack_cpu + packed.merge_cpu + packed.final_cpu) / packed.commit_cpu);
  std::printf("calls     %zu (merges in %zu); longest call %.3f s CPU; at most %zu packs listed\n", packed.pack_calls,
              packed.merges, packed.max_pack_call, packed.max_packs);
  std::printf("verdict   %s\n", double(packed.use.bytes) <= goal ? "goal met" : "goal NOT met");
  git_libgit2_shutdown();
  return 0;
}
