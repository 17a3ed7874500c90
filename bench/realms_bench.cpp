// Many Node realms busy, and the soak: N realms (op `clone` on the built-in
// Node page), A agent connections keeping one eval in flight on each of
// their realms, every exchange logged and committed by the gateway.
//
// Measured: evals per second, the agent's round trip under that load (op
// sent -> final reply read), the commit lag (below), and in the soak the
// resident memory of the gateway and of the Node page every interval.
// Baseline in the same run: the same number of realms in the same page
// program (node-page.cjs in the state folder) driven straight over its fd 3 socket
// pair, as the gateway drives it, one eval in flight per realm.
//
// Commit lag, exact to the poll interval: a thread polls the ref the logs are
// committed on (libgit2, every --poll-ms: the REPL's own ref, or HEAD while
// there is none, as with an editgate from before it) and notes the time each
// new tip is first seen. Each realm has one eval in flight and no other
// writer, so the size of its log when the reply is read (stat, right after
// the read) is the size the log has with that exchange in it, and a log only
// grows exchange by exchange; so a commit holds a reply exactly when its blob
// of that log is at least that size. After the run (the gateway stopped) each observed tip's tree gives
// the blob sizes, and a reply's lag is the time from its reply to the first
// observed tip that holds it (0 when it held it before the reply came).
// At the end: every reply in that ref's copy of its log (`git show`), `git
// status` clean, and in the soak `git fsck` clean.
#include "percentiles.hpp"
#include "services/places.hpp"
#include "process.hpp"
#include "realms_drive.hpp"
#include "realms_follow.hpp"
#include "thread_cpu.hpp"
#include "workspace.hpp"
#include "tests/client.hpp"

#include <boost/json.hpp>

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;
using namespace realms;

namespace {

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("wrong result: " + what);
}

// Every reply in the committed copy of its log (on the REPL's ref, or HEAD
// before it); nothing uncommitted; fsck clean.
bool check_committed(const fs::path& dir, const std::vector<Realm>& all, bool fsck) {
  const std::string rev = bench::logs_rev(dir);
  std::size_t found = 0, sent = 0, in_flight = 0;
  bool all_there = true;
  std::string short_of;
  for (const Realm& r : all) {
    const std::size_t n = bench::count(bench::git_out(dir, {"show", bench::committed_log(rev, r.log)}),
                                       "\n> **" + r.page + "** to bench at ");
    found += n;
    sent += r.replies;
    // One more than read: the eval in flight when the agents stopped
    // reading (a long round trip at the end of a soak), answered and
    // committed after. Fewer, or more than that one, is a finding.
    if (n == r.replies + 1) ++in_flight;
    if (n != r.replies && n != r.replies + 1) {
      all_there = false;
      if (short_of.size() < 400)
        short_of += " " + r.log + ": " + std::to_string(n) + " of " + std::to_string(r.replies) + ";";
    }
  }
  std::printf("committed: %zu replies in %s's logs, %zu read by the agents, %zu answered after the agents stopped "
              "reading%s\n",
              found, rev.c_str(), sent, in_flight, all_there ? "" : (" - wrong:" + short_of).c_str());
  const std::string status = bench::git_out(dir, {"status", "--porcelain"});
  std::printf("git status --porcelain: %s\n", status.empty() ? "clean" : status.c_str());
  bool fsck_ok = true;
  if (fsck) {
    const fs::path out = dir.parent_path() / "fsck.out";
    std::vector<std::string> args{bench::find_program("git"), "-C", dir.string(), "fsck", "--no-progress"};
    const int rc = bench::run_process(args, out.string());
    const std::string said = bench::slurp(out);
    fsck_ok = rc == 0 && said.find("error") == std::string::npos;
    std::printf("git fsck: %s\n", fsck_ok ? "clean" : ("exit " + std::to_string(rc) + ": " + said.substr(0, 400)).c_str());
  }
  return all_there && status.empty() && fsck_ok;
}

void print_lag(const char* what, std::vector<double> lags) {
  if (lags.empty()) return void(std::printf("%s: no replies\n", what));
  const bench::Percentiles p = bench::percentiles(lags);
  std::printf("%s: p50 %.0f ms, p99 %.0f ms, max %.0f ms (%zu replies)\n", what, p.p50, p.p99,
              *std::max_element(lags.begin(), lags.end()), lags.size());
}

const char* met(bool ok) { return ok ? "met" : "MISSED"; }

// The soak's verdicts on the rows after the warm-up: memory flat within
// 10 %, p99 bounded (no row above twice the rows' median p99), commit lag
// per row.
void soak_verdicts(const Args& a, const Result& g) {
  std::vector<const Interval*> after;
  for (const Interval& i : g.intervals)
    if (i.from >= a.warmup - 1e-9) after.push_back(&i);
  if (after.size() < 2) return void(std::printf("soak: too short for verdicts (under two rows after the warm-up)\n"));
  auto spread = [&](double Interval::*f, double& lo, double& hi) {
    lo = hi = after.front()->*f;
    for (const Interval* i : after) lo = std::min(lo, i->*f), hi = std::max(hi, i->*f);
    return lo > 0 ? (hi - lo) / lo : 1.0;
  };
  double glo, ghi, nlo, nhi;
  const double gs = spread(&Interval::gateway_mb, glo, ghi), ns = spread(&Interval::node_mb, nlo, nhi);
  std::vector<double> p99s;
  for (const Interval* i : after) p99s.push_back(i->rtt.p99);
  const double median_p99 = bench::percentiles(p99s).p50;
  const double worst_p99 = *std::max_element(p99s.begin(), p99s.end());
  // Commit lag per row, by the reply's time.
  std::printf("\n| s | commit lag p50 ms | p99 ms | max ms |\n|---|---|---|---|\n");
  for (const Interval& i : g.intervals) {
    std::vector<double> in;
    for (std::size_t k = 0; k < g.lags.size(); ++k)
      if (g.lag_read[k] >= i.from * 1000 && g.lag_read[k] < i.to * 1000) in.push_back(g.lags[k]);
    if (in.empty()) continue;
    const bench::Percentiles p = bench::percentiles(in);
    std::printf("| %.0f-%.0f | %.0f | %.0f | %.0f |\n", i.from, i.to, p.p50, p.p99, *std::max_element(in.begin(), in.end()));
  }
  std::printf("\nsoak memory after the %.0f s warm-up, goal flat within 10 %% ((max - min) / min):\n"
              "  gateway   %.1f-%.1f MB, spread %.1f %%: %s\n  Node page %.1f-%.1f MB, spread %.1f %%: %s\n",
              a.warmup, glo, ghi, 100 * gs, met(gs <= 0.10), nlo, nhi, 100 * ns, met(ns <= 0.10));
  std::printf("soak p99 per row after the warm-up: median %.1f ms, worst %.1f ms: goal bounded (worst <= 2x median): %s\n",
              median_p99, worst_p99, met(worst_p99 <= 2 * median_p99));
}

void print_summary(const Args& a, const Result& g, const Result& f) {
  std::printf("\n%d Node realms, one eval \"%s\" in flight on each, %.0f s measured after %.0f s of warm-up\n\n",
              a.realms, eval_code(a).c_str(), a.seconds, a.warmup);
  std::printf("| path | evals | evals/s | round trip p50 ms | p99 ms | / floor |\n|---|---|---|---|---|---|\n");
  if (f.evals)
    std::printf("| page program alone, over its socket pair (floor, %.0f s) | %zu | %.0f | %.2f | %.2f | 1.00 |\n",
                a.floor_seconds, f.evals, f.per_second, f.rtt.p50, f.rtt.p99);
  std::printf("| through editgate, %d WebSocket agents, logged and committed | %zu | %.0f | %.2f | %.2f | %s |\n",
              a.agents, g.evals, g.per_second, g.rtt.p50, g.rtt.p99,
              f.evals ? std::to_string(g.per_second / f.per_second).substr(0, 4).c_str() : "-");
  std::printf("\nfailed evals (error replies or wrong values): gateway %zu, floor %zu%s\n", g.failures, f.failures,
              g.first_failure.empty() ? "" : ("; first: " + g.first_failure).c_str());
}

}  // namespace

int run(int argc, char** argv) {
  Args a = parse_args(argc, argv);
  bench::set_child_tmpdir(a.workdir);
  client::use_editgate(a.editgate);  // the gateway measured is the one named
  const fs::path dir = bench::workspace(fs::path(a.workdir) / "realms");

  // ---- through the gateway ----
  Result g;
  std::vector<Realm> all;
  std::string cpu;
  {
    client::Gateway gw(dir.string(), {}, true);
    Load load(a, dir, gw.port(), gw.cookie());
    load.wait_node_page();
    // The floor runs the same program, after the gateway is gone.
    fs::copy_file(services::places_of(dir.string())->state + "/node-page.cjs", fs::path(a.workdir) / "node-page.cjs",
                  fs::copy_options::overwrite_existing);
    const double cloned = load.clone_realms();
    std::printf("%d realms cloned by %d agents in %.1f s\n\n", a.realms, a.agents, cloned / 1000);
    std::unique_ptr<Follow> follow;
    if (a.follow) follow = std::make_unique<Follow>(gw.port(), gw.cookie(), load.realms().front().page);
    const auto t0 = std::chrono::steady_clock::now();
    HeadWatch head(dir, a.poll_ms, t0);
    const auto cpu_before = bench::thread_cpu_ns(gw.pid());
    g = load.drive(gw.pid(), t0);
    if (follow) {
      std::printf("the dashboard followed %s's log: %llu fetches of its tail, %.1f MB%s\n",
                  load.realms().front().page.c_str(), static_cast<unsigned long long>(follow->fetches()),
                  double(follow->bytes()) / 1e6, follow->error().empty() ? "" : ("; " + follow->error()).c_str());
      follow.reset();
    }
    // The last commits: the ref must come to hold every reply; waited for
    // with the poller still running, so the lag of the last replies is measured.
    if (!head.wait_for_all(load.realms(), load.last_sizes(), 60s))
      std::printf("FINDING: %s did not hold every reply within 60 s of the last one\n", head.ref().c_str());
    cpu = bench::cpu_line("whole drive", bench::cpu_spent(cpu_before, bench::thread_cpu_ns(gw.pid())),
                          load.samples().size());
    expect(gw.stop(SIGTERM, 120s) == 0, "the gateway's exit");
    all = load.realms();
    head.lags(all, load.samples(), g);
    std::printf("%s polled every %d ms: %zu new tips seen\n", head.ref().c_str(), a.poll_ms, head.observed());
  }

  // ---- the floor: the same realms in the page program alone ----
  Result f;
  if (!a.no_floor) f = drive_floor(a, dir);

  print_summary(a, g, f);
  print_lag("commit lag (reply read -> the logs' ref seen holding it), every reply", g.lags);
  std::vector<double> lags = g.lags;
  const double worst = lags.empty() ? 0 : *std::max_element(lags.begin(), lags.end());
  if (a.soak) soak_verdicts(a, g);
  const bool committed = check_committed(dir, all, a.soak);
  std::printf("%s", cpu.c_str());
  if (!a.no_floor)
    std::printf("goal >= 0.8x the page program alone: %s (%.2f)\n", met(g.per_second >= 0.8 * f.per_second),
                f.per_second > 0 ? g.per_second / f.per_second : 0.0);
  std::printf("goal commits never more than 2 s behind: %s (max lag %.0f ms)\n", met(worst <= 2000), worst);
  std::printf("nothing lost (every eval answered its value, every reply committed, git clean): %s\n",
              met(committed && g.failures == 0));
  if (!committed || g.failures != 0) return 1;
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "realms_bench: %s\n", e.what());
    return 1;
  }
}
