// log_bench: what the log op costs on a big chat log: the tail of a 10 MB
// log read, split and rendered to HTML (the dashboard's first view of a
// page), then the whole log paged back to its start. In-process, without a
// gateway: the op adds a worker hop and the JSON of the reply.
#include "bench/percentiles.hpp"
#include "repl/format.hpp"
#include "repl/log_render.hpp"

#include <boost/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

using clk = std::chrono::steady_clock;

std::string join(const repl::Lines& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// A log of about `bytes` as the gateway writes one: requests, replies with
// JSON values of a few hundred bytes, now and then an error and background events.
std::string make_log(std::size_t bytes) {
  std::string text = join(repl::new_log("node", "node", "debug/node.events.log"));
  for (int i = 0; text.size() < bytes; ++i) {
    repl::Lines l{repl::request_header("agent", "node", "12:00:00")};
    for (auto& x : repl::fenced("js", "await fetchRows(" + std::to_string(i) + ")")) l.push_back(x);
    l.push_back("");
    std::string value = "{\"rows\": [";
    for (int r = 0; r < 8; ++r) value += "{\"id\": " + std::to_string(i * 8 + r) + ", \"name\": \"row <b>" + std::to_string(r) + "</b>\"},";
    value += "{}]}";
    if (i % 17 == 0) {
      l.push_back(repl::reply_header("node", "agent", "12:00:01", "**ERROR** after 16ms"));
      for (auto& x : repl::fenced("Error", "TypeError: x is undefined\n    at <anonymous>:1:1")) l.push_back(x);
    } else {
      l.push_back(repl::reply_header("node", "agent", "12:00:01", "17ms"));
      for (auto& x : repl::fenced("json", repl::pretty_json(boost::json::parse(value)))) l.push_back(x);
    }
    l.push_back("");
    if (i % 5 == 0) {
      l.push_back("> **node** background at 12:00:02");
      for (auto& x : repl::fenced("Text console.log", "tick " + std::to_string(i))) l.push_back(x);
      l.push_back("");
    }
    text += join(l);
  }
  return text;
}

// One call as the op makes it: the read and every entry as JSON, serialized.
std::size_t one_read(int fd, std::uint64_t end, std::uint64_t size, std::size_t window, std::size_t& entries,
                     std::optional<std::uint64_t>& next) {
  repl::LogLimits limits;
  limits.window_bytes = window;
  auto r = repl::read_log_back(fd, end, size, limits);
  if (!r) std::abort();
  boost::json::array a;
  for (const repl::LogEntry& e : r->entries) a.push_back(repl::entry_json(e));
  entries = r->entries.size();
  next = r->next_before;
  return boost::json::serialize(a).size();
}

}  // namespace

int main() {
  const std::string path = "/tmp/log_bench_" + std::to_string(::getpid()) + ".md";
  const std::string text = make_log(10u << 20);
  std::ofstream(path, std::ios::binary) << text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  std::printf("log: %zu bytes\n", text.size());
  for (std::size_t window : {std::size_t{256} << 10, std::size_t{1} << 20, std::size_t{4} << 20}) {
    std::vector<double> samples;
    std::size_t entries = 0, reply = 0;
    std::optional<std::uint64_t> next;
    for (int i = 0; i < 30; ++i) {
      const auto t0 = clk::now();
      reply = one_read(fd, text.size(), text.size(), window, entries, next);
      samples.push_back(bench::ms(clk::now() - t0));
    }
    const auto p = bench::percentiles(samples);
    std::printf("tail, window %7zu KiB: %5zu entries, reply %8zu bytes, p50 %.2f ms, p99 %.2f ms\n", window >> 10,
                entries, reply, p.p50, p.p99);
  }
  // The whole log, paged back from its end with the default window.
  const auto t0 = clk::now();
  std::uint64_t before = text.size();
  std::size_t pages = 0, all = 0;
  for (std::optional<std::uint64_t> next = before;; ++pages) {
    std::size_t entries = 0;
    one_read(fd, before, text.size(), std::size_t{256} << 10, entries, next);
    all += entries;
    if (!next) break;
    before = *next;
  }
  std::printf("whole log paged back: %zu pages, %zu entries, %.0f ms\n", pages + 1, all, bench::ms(clk::now() - t0));
  ::close(fd);
  ::unlink(path.c_str());
}
