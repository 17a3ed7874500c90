#include "git/handle.hpp"
#include "git/repository.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace editgit {

Result<void> Repository::exclude(std::string_view pattern) const {
  // info/ lives in the common dir, so linked worktrees share the entry.
  const std::string info = std::string(git_repository_commondir(repo_)) + "info";
  const std::string path = info + "/exclude";
  std::string text;
  if (std::ifstream in(path, std::ios::binary); in) {
    std::ostringstream all;
    all << in.rdbuf();
    text = all.str();
  }
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == pattern) return {};
  }
  if (::mkdir(info.c_str(), 0777) != 0 && errno != EEXIST)
    return Failure{Error::io, "cannot create " + info + ": " + std::strerror(errno)};
  std::ofstream out(path, std::ios::binary | std::ios::app);
  if (!text.empty() && text.back() != '\n') out << '\n';
  out << pattern << '\n';
  out.flush();
  if (!out) return Failure{Error::io, "cannot write " + path};
  return {};
}

}  // namespace editgit
