// A repository for a gateway to serve, and git's own answers about it, for
// the benchmarks that check every exchange is logged and committed
// (pages_bench, realms_bench, mcp_bench).
#pragma once

#include "process.hpp"
#include "record/repl_ref.hpp"

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// `dir` made a repository with one commit (README.md).
inline std::filesystem::path workspace(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "README.md") << "bench\n";
  const std::string git = find_program("git");
  for (std::vector<std::string> args : {std::vector<std::string>{"init", "-q", "-b", "main"},
                                        std::vector<std::string>{"add", "README.md"},
                                        std::vector<std::string>{"-c", "user.name=bench", "-c",
                                                                 "user.email=bench@example.invalid", "commit", "-q",
                                                                 "-m", "start"}}) {
    args.insert(args.begin(), {git, "-C", dir.string()});
    if (run_process(args) != 0) throw std::runtime_error("git failed: " + shell_line(args));
  }
  return dir;
}

// git's answer, as text (through a file next to the repository).
inline std::string git_out(const std::filesystem::path& dir, std::vector<std::string> args) {
  const std::filesystem::path out = dir.parent_path() / (dir.filename().string() + ".git-out");
  args.insert(args.begin(), {find_program("git"), "-C", dir.string()});
  if (run_process(args, out.string()) != 0) throw std::runtime_error("git failed: " + shell_line(args));
  return slurp(out);
}

// What holds the committed chat logs: the REPL's own ref (record/repl_ref.hpp)
// or, when there is none, HEAD, where an editgate from before that ref
// commits them; so the same bench measures either binary.
inline std::string logs_rev(const std::filesystem::path& dir) {
  const std::string ref = git_out(dir, {"for-each-ref", "--count=1", "--format=%(refname)", "refs/editgate/repl/"});
  return ref.empty() ? "HEAD" : ref.substr(0, ref.find('\n'));
}

// `rev:path` of a workspace log (debug/X.md) in logs_rev's answer: X.md in
// the REPL ref's tree.
inline std::string committed_log(const std::string& rev, const std::string& log) {
  return rev + ":" + (rev == "HEAD" ? log : record::repl_tree_path(log).value_or(log));
}

inline std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace bench
