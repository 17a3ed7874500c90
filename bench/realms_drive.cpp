#include "realms_drive.hpp"

#include "child.hpp"
#include "workspace.hpp"
#include "record/repl_ref.hpp"
#include "tests/client.hpp"

#include <boost/json.hpp>
#include <git2.h>

#include <dirent.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <unordered_map>

namespace fs = std::filesystem;
namespace json = boost::json;
using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace realms {

namespace {

git_repository* open_repo(const fs::path& root);

double since(clock_type::time_point t0) { return bench::ms(clock_type::now() - t0); }

void check_git(int rc, const char* what) {
  if (rc < 0) {
    const git_error* e = git_error_last();
    throw std::runtime_error(std::string(what) + ": " + (e ? e->message : "libgit2 error"));
  }
}

git_repository* open_repo(const fs::path& root) {
  git_repository* repo = nullptr;
  check_git(git_repository_open(&repo, root.c_str()), "open the repository");
  return repo;
}

// The REPL's own ref (refs/editgate/repl/<login>-<8 hex>); "" while there is none.
std::string find_repl_ref(git_repository* repo) {
  std::string name;
  git_reference_iterator* it = nullptr;
  if (git_reference_iterator_glob_new(&it, repo, "refs/editgate/repl/*") != 0) return name;
  git_reference* ref = nullptr;
  if (git_reference_next(&ref, it) == 0) {
    name = git_reference_name(ref);
    git_reference_free(ref);
  }
  git_reference_iterator_free(it);
  return name;
}

}  // namespace

Args parse_args(int argc, char** argv) {
  Args a;
  bool warmup_set = false;
  double minutes = 10;
  int follow = -1;  // unset: on in the soak
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) throw std::runtime_error(k + " needs a value");
      return std::string(argv[++i]);
    };
    if (k == "--editgate") a.editgate = value();
    else if (k == "--workdir") a.workdir = value();
    else if (k == "--node") a.node = value();
    else if (k == "--realms") a.realms = std::stoi(value());
    else if (k == "--agents") a.agents = std::stoi(value());
    else if (k == "--seconds") a.seconds = std::stod(value());
    else if (k == "--warmup") a.warmup = std::stod(value()), warmup_set = true;
    else if (k == "--floor-seconds") a.floor_seconds = std::stod(value());
    else if (k == "--interval") a.interval = std::stod(value());
    else if (k == "--poll-ms") a.poll_ms = std::stoi(value());
    else if (k == "--soak") a.soak = true;
    else if (k == "--minutes") minutes = std::stod(value());
    else if (k == "--no-floor") a.no_floor = true;
    else if (k == "--reply-chars") a.reply_chars = std::stoi(value());
    else if (k == "--follow") follow = 1;
    else if (k == "--no-follow") follow = 0;
    else throw std::runtime_error("unknown option " + k);
  }
  if (a.editgate.empty() || a.workdir.empty()) throw std::runtime_error("--editgate and --workdir are required");
  if (a.realms < 1 || a.agents < 1 || a.agents > a.realms) throw std::runtime_error("1 <= --agents <= --realms");
  a.follow = follow < 0 ? a.soak : follow == 1;
  if (a.soak) {
    // The soak: measured after a warm-up of a fifth of its time, a row every 10 s.
    const double total = minutes * 60;
    if (!warmup_set) a.warmup = total / 5;
    a.seconds = total - a.warmup;
    a.interval = 10;
    for (int i = 1; i < argc; ++i)
      if (std::string(argv[i]) == "--interval") a.interval = std::stod(argv[i + 1]);
  }
  return a;
}

std::string eval_code(const Args& a) {
  return a.reply_chars > 0 ? "'x'.repeat(" + std::to_string(a.reply_chars) + ")" : "1 + 1";
}

bool expected_value(const Args& a, const json::value& v) {
  if (a.reply_chars <= 0) return v == json::value(2);
  return v.is_string() && v.as_string().size() == static_cast<std::size_t>(a.reply_chars) &&
         v.as_string().find_first_not_of('x') == json::string::npos;
}

void window_stats(const std::vector<Sample>& samples, double from, double to, Result& into) {
  std::vector<double> rtt;
  for (const Sample& s : samples)
    if (s.read >= from * 1000 && s.read < to * 1000) rtt.push_back(s.read - s.sent);
  into.evals = rtt.size();
  into.per_second = to > from ? static_cast<double>(rtt.size()) / (to - from) : 0;
  if (!rtt.empty()) into.rtt = bench::percentiles(std::move(rtt));
}

double rss_mb(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024;  // kB
  return 0;
}

// The gateway's child running node-page.cjs.
pid_t node_page_of(pid_t gateway) {
  DIR* d = ::opendir("/proc");
  if (!d) return 0;
  pid_t found = 0;
  while (dirent* e = ::readdir(d)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) continue;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string s((std::istreambuf_iterator<char>(stat)), {});
    const auto close = s.rfind(')');
    if (close == std::string::npos) continue;
    int ppid = 0;
    char state = 0;
    if (std::sscanf(s.c_str() + close + 1, " %c %d", &state, &ppid) != 2 || ppid != gateway) continue;
    std::ifstream cmd("/proc/" + std::to_string(pid) + "/cmdline");
    std::string c((std::istreambuf_iterator<char>(cmd)), {});
    if (c.find("node-page") != std::string::npos) found = pid;
  }
  ::closedir(d);
  return found;
}

// ---- the logs' ref, polled ---------------------------------------------------------

struct HeadWatch::Impl {
  struct Seen {
    git_oid id;
    double t;   // first seen at (ms since t0)
    bool repl;  // a commit of the REPL's ref (its tree: record::repl_tree_path)
  };
  fs::path root;
  int poll_ms;
  clock_type::time_point t0;
  std::atomic<bool> stop{false};
  mutable std::mutex m;
  std::vector<Seen> seen;  // each new tip
  std::string ref = "HEAD";
  std::thread thread;

  void poll() {
    git_repository* repo = open_repo(root);
    git_oid last{};
    while (!stop) {
      // The logs are committed on the REPL's ref once it exists; an editgate
      // from before it commits them on HEAD and never makes one.
      if (ref == "HEAD")
        if (std::string found = find_repl_ref(repo); !found.empty()) {
          std::lock_guard lock(m);
          ref = found;
        }
      git_oid now{};
      if (git_reference_name_to_id(&now, repo, ref.c_str()) == 0 && !git_oid_equal(&now, &last)) {
        const double t = since(t0);
        last = now;
        std::lock_guard lock(m);
        seen.push_back({now, t, ref != "HEAD"});
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms));
    }
    git_repository_free(repo);
  }
};

// The size of each realm's log in `commit`'s tree (0 when absent), with the
// blob sizes cached by id.
class LogSizes {
 public:
  explicit LogSizes(const fs::path& root) : repo_(open_repo(root)) { check_git(git_repository_odb(&odb_, repo_), "odb"); }
  ~LogSizes() {
    git_odb_free(odb_);
    git_repository_free(repo_);
  }
  // Each log's folder is looked up once per commit (a realm's logs share
  // one), then the log by name in it.
  void read(const git_oid& commit_id, bool repl, const std::vector<Realm>& all, std::vector<std::uint64_t>& sizes) {
    git_commit* commit = nullptr;
    git_tree* root = nullptr;
    check_git(git_commit_lookup(&commit, repo_, &commit_id), "commit");
    check_git(git_commit_tree(&root, commit), "tree");
    std::map<std::string, git_tree*> folders;
    auto folder = [&](const std::string& dir) -> git_tree* {
      auto [it, fresh] = folders.try_emplace(dir, nullptr);
      if (!fresh) return it->second;
      git_tree_entry* e = nullptr;
      if (dir.empty()) return it->second = root;
      if (git_tree_entry_bypath(&e, root, dir.c_str()) == 0) {
        git_tree_lookup(&it->second, repo_, git_tree_entry_id(e));
        git_tree_entry_free(e);
      }
      return it->second;
    };
    sizes.assign(all.size(), 0);
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (all[i].log.empty()) continue;
      const fs::path log(repl ? record::repl_tree_path(all[i].log).value_or(all[i].log) : all[i].log);
      git_tree* in = folder(log.parent_path().string());
      const git_tree_entry* e = in ? git_tree_entry_byname(in, log.filename().c_str()) : nullptr;
      if (!e) continue;
      const git_oid id = *git_tree_entry_id(e);
      std::string key(reinterpret_cast<const char*>(id.id), GIT_OID_RAWSZ);
      auto it = cache_.find(key);
      if (it == cache_.end()) {
        std::size_t len = 0;
        git_object_t type{};
        check_git(git_odb_read_header(&len, &type, odb_, &id), "blob header");
        it = cache_.emplace(std::move(key), len).first;
      }
      sizes[i] = it->second;
    }
    for (auto& [dir, tree] : folders)
      if (tree != root) git_tree_free(tree);
    git_tree_free(root);
    git_commit_free(commit);
  }

 private:
  git_repository* repo_;
  git_odb* odb_ = nullptr;
  std::unordered_map<std::string, std::uint64_t> cache_;
};

HeadWatch::HeadWatch(const fs::path& root, int poll_ms, clock_type::time_point t0) : impl_(std::make_unique<Impl>()) {
  git_libgit2_init();
  impl_->root = root;
  impl_->poll_ms = poll_ms;
  impl_->t0 = t0;
  impl_->thread = std::thread([this] { impl_->poll(); });
}

HeadWatch::~HeadWatch() {
  impl_->stop = true;
  if (impl_->thread.joinable()) impl_->thread.join();
  git_libgit2_shutdown();
}

std::size_t HeadWatch::observed() const {
  std::lock_guard lock(impl_->m);
  return impl_->seen.size();
}

std::string HeadWatch::ref() const {
  std::lock_guard lock(impl_->m);
  return impl_->ref;
}

bool HeadWatch::wait_for_all(const std::vector<Realm>& all, const std::vector<std::uint64_t>& last_size,
                             std::chrono::milliseconds wait) {
  LogSizes sizes(impl_->root);
  std::vector<std::uint64_t> now;
  const auto until = clock_type::now() + wait;
  bool done = false;
  while (!done && clock_type::now() < until) {
    std::this_thread::sleep_for(100ms);
    Impl::Seen head{};
    {
      std::lock_guard lock(impl_->m);
      if (impl_->seen.empty()) continue;
      head = impl_->seen.back();
    }
    sizes.read(head.id, head.repl, all, now);
    done = true;
    for (std::size_t i = 0; i < all.size() && done; ++i) done = now[i] >= last_size[i];
  }
  impl_->stop = true;
  impl_->thread.join();
  return done;
}

void HeadWatch::lags(const std::vector<Realm>& all, const std::vector<Sample>& samples, Result& into) const {
  // Each realm's samples in read order (its log's sizes grow in that order).
  std::vector<std::vector<std::size_t>> of(all.size());
  for (std::size_t i = 0; i < samples.size(); ++i) of[samples[i].realm].push_back(i);
  std::vector<std::size_t> next(all.size(), 0);
  std::vector<double> lag(samples.size(), -1);
  LogSizes sizes(impl_->root);
  std::vector<std::uint64_t> now;
  for (const auto& [head, t, repl] : impl_->seen) {
    sizes.read(head, repl, all, now);
    for (std::size_t r = 0; r < all.size(); ++r)
      for (; next[r] < of[r].size() && samples[of[r][next[r]]].size <= now[r]; ++next[r]) {
        const Sample& s = samples[of[r][next[r]]];
        lag[of[r][next[r]]] = std::max(0.0, t - s.read);
      }
  }
  into.lags.clear();
  into.lag_read.clear();
  for (std::size_t i = 0; i < samples.size(); ++i) {
    // Never seen committed while polling: counted as missing by the final check.
    if (lag[i] < 0) continue;
    into.lags.push_back(lag[i]);
    into.lag_read.push_back(samples[i].read);
  }
}

// ---- the agents -------------------------------------------------------------------

struct Load::Agent {
  int index = 0;
  std::unique_ptr<client::Ws> ws;
  std::vector<std::uint32_t> realms;  // indices into realms_
  mutable std::mutex m;
  std::vector<Sample> samples;
  std::size_t failures = 0;
  std::string first_failure, error;
};

Load::Load(const Args& a, fs::path root, unsigned short port, std::string cookie)
    : a_(a), root_(std::move(root)), port_(port), cookie_(std::move(cookie)) {
  for (int k = 0; k < a.agents; ++k) {
    auto ag = std::make_unique<Agent>();
    ag->index = k;
    ag->ws = std::make_unique<client::Ws>(port_);
    ag->ws->login(cookie_);
    agents_.push_back(std::move(ag));
  }
}

Load::~Load() = default;

void Load::wait_node_page() {
  client::Ws& ws = *agents_.front()->ws;
  for (int i = 0; i < 600; ++i) {
    ws.send(R"({"op":"pages"})");
    const json::value v = json::parse(ws.until_done().back());
    for (const auto& p : v.at("pages").as_array())
      if (p.at("kind") == "node" && p.at("state") != "disconnected") return;
    std::this_thread::sleep_for(50ms);
  }
  throw std::runtime_error("the gateway's Node page never connected");
}

double Load::clone_realms() {
  const auto t0 = clock_type::now();
  std::vector<std::vector<Realm>> made(agents_.size());
  std::vector<std::string> errors(agents_.size());
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < agents_.size(); ++k)
    threads.emplace_back([&, k] {
      try {
        const int mine = a_.realms / a_.agents + (static_cast<int>(k) < a_.realms % a_.agents ? 1 : 0);
        for (int i = 0; i < mine; ++i) {
          agents_[k]->ws->send(R"({"op":"clone","id":"c"})");
          const std::string reply = agents_[k]->ws->until_done(30s).back();
          const json::object o = json::parse(reply).as_object();
          if (!o.contains("page")) throw std::runtime_error("clone: " + reply);
          made[k].push_back({std::string(o.at("page").as_string()), "", 0});
        }
      } catch (const std::exception& e) {
        errors[k] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (std::size_t k = 0; k < agents_.size(); ++k) {
    if (!errors[k].empty()) throw std::runtime_error("agent " + std::to_string(k) + ": " + errors[k]);
    for (Realm& r : made[k]) {
      agents_[k]->realms.push_back(static_cast<std::uint32_t>(realms_.size()));
      realms_.push_back(std::move(r));
    }
  }
  return bench::ms(clock_type::now() - t0);
}

// One eval in flight on each of the agent's realms until the load stops;
// then the last ones are read.
void Load::agent_loop(Agent& ag, clock_type::time_point t0) {
  client::Ws& ws = *ag.ws;
  std::vector<double> sent(ag.realms.size());
  const std::string code = eval_code(a_);
  auto send = [&](std::size_t i) {
    sent[i] = since(t0);
    ws.send(json::serialize(json::object{{"op", "eval"}, {"id", i}, {"agent", "bench"},
                                         {"page", realms_[ag.realms[i]].page}, {"code", code}}));
  };
  std::size_t in_flight = ag.realms.size();
  for (std::size_t i = 0; i < ag.realms.size(); ++i) send(i);
  while (in_flight > 0) {
    auto m = ws.read(120s);
    if (!m) throw std::runtime_error("the gateway closed the connection: " + ws.close_reason());
    const double read = since(t0);
    const json::object o = json::parse(*m).as_object();
    if (!o.contains("status")) continue;
    const std::size_t i = static_cast<std::size_t>(o.at("id").to_number<std::int64_t>());
    Realm& r = realms_[ag.realms[i]];
    const json::value* value = o.if_contains("value");
    if (!value || !expected_value(a_, *value)) {
      std::lock_guard lock(ag.m);
      if (ag.failures++ == 0) ag.first_failure = *m;
    } else {
      if (r.log.empty()) {
        const fs::path log(std::string(o.at("log").as_string()));
        r.log = (log.is_absolute() ? log.lexically_relative(root_) : log).string();
      }
      struct stat st{};
      const fs::path log = root_ / r.log;
      if (::stat(log.c_str(), &st) != 0) throw std::runtime_error("stat " + log.string());
      ++r.replies;
      std::lock_guard lock(ag.m);
      ag.samples.push_back({sent[i], read, ag.realms[i], static_cast<std::uint64_t>(st.st_size)});
    }
    if (!stopping_) send(i);
    else --in_flight;
  }
}

Result Load::drive(pid_t gateway, clock_type::time_point t0) {
  std::vector<std::thread> threads;
  for (auto& ag : agents_)
    threads.emplace_back([this, &ag, t0] {
      try {
        agent_loop(*ag, t0);
      } catch (const std::exception& e) {
        ag->error = e.what();
      }
    });
  Result out;
  const double total = a_.warmup + a_.seconds;
  std::vector<std::size_t> cursor(agents_.size(), 0);
  std::printf("| s | evals/s | p50 ms | p99 ms | gateway RSS MB | Node page RSS MB |\n|---|---|---|---|---|---|\n");
  for (double from = 0; from < total - 1e-9; from += a_.interval) {
    const double to = std::min(total, from + a_.interval);
    std::this_thread::sleep_until(t0 + std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(to)));
    std::vector<Sample> got;
    for (std::size_t k = 0; k < agents_.size(); ++k) {
      std::lock_guard lock(agents_[k]->m);
      const auto& s = agents_[k]->samples;
      got.insert(got.end(), s.begin() + static_cast<std::ptrdiff_t>(cursor[k]), s.end());
      cursor[k] = s.size();
    }
    Result w;
    window_stats(got, 0, 1e9, w);  // what was read since the last row
    const Interval row{from, to, w.evals, w.rtt, rss_mb(gateway), rss_mb(node_page_of(gateway))};
    out.intervals.push_back(row);
    std::printf("| %.0f-%.0f | %.0f | %.2f | %.2f | %.1f | %.1f |\n", from, to, static_cast<double>(w.evals) / (to - from),
                w.rtt.p50, w.rtt.p99, row.gateway_mb, row.node_mb);
    std::fflush(stdout);
  }
  stopping_ = true;
  for (auto& t : threads) t.join();
  for (auto& ag : agents_) {
    if (!ag->error.empty()) throw std::runtime_error("agent " + std::to_string(ag->index) + ": " + ag->error);
    out.failures += ag->failures;
    if (out.first_failure.empty()) out.first_failure = ag->first_failure;
  }
  window_stats(samples(), a_.warmup, total, out);
  return out;
}

std::vector<Sample> Load::samples() const {
  std::vector<Sample> all;
  for (const auto& ag : agents_) {
    std::lock_guard lock(ag->m);
    all.insert(all.end(), ag->samples.begin(), ag->samples.end());
  }
  std::sort(all.begin(), all.end(), [](const Sample& x, const Sample& y) { return x.read < y.read; });
  return all;
}

std::vector<std::uint64_t> Load::last_sizes() const {
  std::vector<std::uint64_t> last(realms_.size(), 0);
  for (const Sample& s : samples()) last[s.realm] = std::max(last[s.realm], s.size);
  return last;
}

// ---- the floor --------------------------------------------------------------------

Result drive_floor(const Args& a, const fs::path& root) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) throw std::runtime_error("socketpair");
  const fs::path program = fs::path(a.workdir) / "node-page.cjs";
  bench::Child child({a.node, program.string()}, (fs::path(a.workdir) / "node-floor.log").string(), root, sv[1]);
  ::close(sv[1]);
  const int fd = sv[0];
  std::string buffer;
  auto line = [&] { return json::parse(bench::Child::read_line(fd, buffer, 60s)).as_object(); };
  if (line().at("type") != "hello") throw std::runtime_error("the page program's hello");
  bench::Child::write_all(fd, R"({"type":"welcome","id":"floor","name":"node-floor","log":""})" "\n");
  for (int r = 1; r <= a.realms; ++r)
    bench::Child::write_all(fd, json::serialize(json::object{{"type", "realm-open"}, {"realm", r}}) + "\n");
  for (int hellos = 0; hellos < a.realms;)
    if (line().at("type") == "hello") ++hellos;

  const auto t0 = clock_type::now();
  const double total = a.warmup + a.floor_seconds;
  std::uint64_t job = 0;
  std::unordered_map<std::uint64_t, std::pair<int, double>> flying;  // job -> realm, sent
  const std::string code = eval_code(a);
  std::string batch;
  auto send = [&](int realm) {
    flying[++job] = {realm, since(t0)};
    batch += json::serialize(json::object{{"realm", realm}, {"type", "eval"}, {"job", job}, {"code", code},
                                          {"timeout_ms", 60000}}) + "\n";
  };
  for (int r = 1; r <= a.realms; ++r) send(r);
  Result out;
  std::vector<Sample> samples;
  while (!flying.empty()) {
    if (!batch.empty()) bench::Child::write_all(fd, batch), batch.clear();
    const json::object m = line();
    if (m.at("type") != "result") continue;
    const auto it = flying.find(static_cast<std::uint64_t>(m.at("job").to_number<std::int64_t>()));
    if (it == flying.end()) continue;
    const auto [realm, sent] = it->second;
    flying.erase(it);
    const double read = since(t0);
    if (!m.contains("value") || !expected_value(a, m.at("value"))) {
      if (out.failures++ == 0) out.first_failure = json::serialize(m);
    } else {
      samples.push_back({sent, read, static_cast<std::uint32_t>(realm), 0});
    }
    if (read < total * 1000) send(realm);
  }
  window_stats(samples, a.warmup, total, out);
  return out;
}

}  // namespace realms
