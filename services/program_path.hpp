// A program found as a shell finds it: the first of `names` executable in a
// folder of PATH (or /usr/local/bin:/usr/bin:/bin without one); "" for none.
#pragma once

#include <cstdlib>
#include <initializer_list>
#include <string>
#include <unistd.h>

namespace services {

inline std::string find_on_path(std::initializer_list<const char*> names) {
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (const char* name : names) {
    std::size_t start = 0;
    while (start <= dirs.size()) {
      std::size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      const std::string candidate = dirs.substr(start, end - start) + "/" + name;
      if (end > start && ::access(candidate.c_str(), X_OK) == 0) return candidate;
      start = end + 1;
    }
  }
  return "";
}

}  // namespace services
