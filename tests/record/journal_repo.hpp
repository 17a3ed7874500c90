// A repository of two committed files for the record layer's tests, and
// the run journals found in it.
#pragma once

#include "support.hpp"

#include <string>
#include <vector>

namespace test {

struct JournalRepo {
  TempDir dir;
  JournalRepo() {
    git_ok(dir.path(), {"init", "-q", "-b", "main"});
    git_ok(dir.path(), {"config", "user.name", "Repo User"});
    git_ok(dir.path(), {"config", "user.email", "user@example.com"});
    write_file(dir / "a.txt", "one\ntwo\n");
    write_file(dir / "b.txt", "three\n");
    git_ok(dir.path(), {"add", "-A"});
    git_ok(dir.path(), {"commit", "-q", "-m", "start"});
  }
  std::string git(std::vector<std::string> args) const { return git_ok(dir.path(), std::move(args)); }
  // The journals left in <gitdir>/editgate-runs/.
  std::size_t journals() const {
    const auto folder = dir / ".git" / "editgate-runs";
    if (!fs::exists(folder)) return 0;
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator(folder)) n += e.path().extension() == ".journal";
    return n;
  }
};

}  // namespace test
