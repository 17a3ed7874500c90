// Helpers shared by the tests: temp workspaces and whole-file I/O.
#pragma once

#include "editproto/parser.hpp"
#include "editproto/applier.hpp"
#include "editproto/workspace.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace test {

namespace fs = std::filesystem;

// A fresh folder under /tmp, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  std::string str() const { return path_.string(); }
  fs::path operator/(const std::string& rel) const { return path_ / rel; }

 private:
  fs::path path_;
};

// How many entries a folder holds (temp files left behind show up here).
std::size_t count_entries(const fs::path& dir);

void write_file(const fs::path& p, const std::string& bytes);
std::string read_file(const fs::path& p);

// Parses a whole response in one feed.
std::vector<editproto::Block> parse(const std::string& response, editproto::Limits limits = {});

// Parses, submits and flushes a response against `root`.
struct Run {
  std::vector<editproto::BlockResult> results;
  std::vector<std::string> auto_added;
};
// `prepared` is how many of the blocks are announced through
// Applier::prepare before they are submitted (as the CLI announces all).
Run check_response(const std::string& root, const std::string& response, editproto::Options options = {},
                   std::size_t prepared = 0);
Run apply_response(const std::string& root, const std::string& response, editproto::Options options = {},
                   std::size_t prepared = 0);

// A block's lines as owned strings, to compare with literals.
std::vector<std::string> strings(std::span<const std::string_view> lines);

// A finished child process.
struct Proc {
  int exit_code = -1;
  std::string out, err;
};
// Runs `args` (args[0] is found on PATH) with `input` on stdin and `env`
// ("NAME=value") added to the environment. Output goes through temp files,
// so a large output cannot deadlock a pipe.
Proc run(std::vector<std::string> args, const std::string& input = "", const std::vector<std::string>& env = {});

// `git -C dir args...` with a fixed identity and no global or system config:
// tests check the product with the real git command line.
Proc git(const fs::path& dir, std::vector<std::string> args);
// The same, REQUIREd to succeed; returns stdout.
std::string git_ok(const fs::path& dir, std::vector<std::string> args);

// A free port on 127.0.0.1, from the kernel (for a server a test starts).
unsigned short free_port();

// One block in the edit format.
std::string block(const std::string& path, const std::vector<std::string>& edit,
                  const std::vector<std::string>& repl);

}  // namespace test
