// The CPU time a process's threads have run, by thread name, from
// /proc/<pid>/task/*/schedstat (nanoseconds, exact to the scheduler): what
// an exchange costs each of the gateway's threads is the difference of two
// readings over the number of exchanges between them.
#pragma once

#include <sys/types.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace bench {

inline std::map<std::string, double> thread_cpu_ns(pid_t pid) {
  std::map<std::string, double> by_name;
  std::error_code ec;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (std::filesystem::directory_iterator it(tasks, ec), end; !ec && it != end; it.increment(ec)) {
    std::ifstream comm(it->path() / "comm"), sched(it->path() / "schedstat");
    std::string name;
    double ns = 0;
    if (std::getline(comm, name) && (sched >> ns)) by_name[name] += ns;
  }
  return by_name;
}

// `after` minus `before`, thread by thread (a thread gone by `after` counts 0).
inline std::map<std::string, double> cpu_spent(const std::map<std::string, double>& before,
                                               const std::map<std::string, double>& after) {
  std::map<std::string, double> spent;
  for (const auto& [name, ns] : after) {
    const auto b = before.find(name);
    spent[name] = ns - (b == before.end() ? 0 : b->second);
  }
  return spent;
}

// A report line: "gateway CPU per exchange, <what>: T us (thread t, ...)",
// the threads under half a microsecond left out.
inline std::string cpu_line(const std::string& what, const std::map<std::string, double>& spent,
                            std::size_t exchanges) {
  if (exchanges == 0) return {};
  const double n = static_cast<double>(exchanges);
  double total = 0;
  std::string parts;
  for (const auto& [name, ns] : spent) {
    total += ns;
    if (ns / 1e3 / n < 0.5) continue;
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s%s %.0f", parts.empty() ? "" : ", ", name.c_str(), ns / 1e3 / n);
    parts += buf;
  }
  char head[160];
  std::snprintf(head, sizeof head, "gateway CPU per exchange, %s: %.0f us (", what.c_str(), total / 1e3 / n);
  return head + parts + ")\n";
}

}  // namespace bench
