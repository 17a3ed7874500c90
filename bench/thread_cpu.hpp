// The CPU time a process's threads have run, by thread name, from
// /proc/<pid>/task/*/schedstat (nanoseconds, exact to the scheduler): what
// an exchange costs each of the gateway's threads is the difference of two
// readings over the number of exchanges between them.
#pragma once

#include <sys/types.h>

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

}  // namespace bench
