#include "process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace bench {

namespace {

std::string& tmpdir_setting() {
  static std::string dir = "/tmp";
  return dir;
}

// Built once: the environment every child gets.
const std::vector<std::string>& child_env() {
  static const std::vector<std::string> env = [] {
    // Variables that would make git or patch read other config, look at
    // another repository or change output and backup behaviour.
    static constexpr std::string_view kDrop[] = {
        "LC_ALL", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "GIT_CEILING_DIRECTORIES",
        "POSIXLY_CORRECT", "VERSION_CONTROL", "PATCH_VERSION_CONTROL", "SIMPLE_BACKUP_SUFFIX", "PATCH_GET",
        "QUOTING_STYLE", "TMPDIR"};
    std::vector<std::string> out;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      std::string_view kv(*e);
      std::string_view name = kv.substr(0, kv.find('='));
      bool drop = false;
      for (std::string_view d : kDrop) drop |= name == d;
      if (!drop) out.emplace_back(kv);
    }
    out.emplace_back("LC_ALL=C");
    out.emplace_back("GIT_CONFIG_NOSYSTEM=1");
    out.emplace_back("GIT_CONFIG_GLOBAL=/dev/null");
    out.emplace_back("NO_COLOR=1");
    // Temporary files of patch and git land next to the data.
    out.emplace_back("TMPDIR=" + tmpdir_setting());
    return out;
  }();
  return env;
}

}  // namespace

void set_child_tmpdir(const std::string& dir) { tmpdir_setting() = dir; }

std::string find_program(std::string_view name) {
  const char* path = std::getenv("PATH");
  std::string_view rest = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    std::size_t colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + std::string(name);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  throw std::runtime_error("'" + std::string(name) + "' is not on PATH");
}

int run_process(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& e : child_env()) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  const char* out = log.empty() ? "/dev/null" : log.c_str();
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);

  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, args[0], &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

std::string shell_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                   "0123456789-_./=:,+@") == std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) {
      if (c == '\'') out += "'\\''";
      else out += c;
    }
    out += '\'';
  }
  return out;
}

}  // namespace bench
