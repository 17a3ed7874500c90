// A child process with pipes on its standard input and output, for the
// benchmarks that drive a program line by line (pages_bench's Playwright
// script, mcp_bench's `editgate mcp`).
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace bench {

class Child {
 public:
  static constexpr std::chrono::milliseconds no_deadline{-1};

  // argv[0] is looked up on PATH; `fd3` (if >= 0) becomes the child's fd 3.
  Child(std::vector<std::string> argv, const std::string& log, const std::filesystem::path& cwd, int fd3 = -1) {
    int in[2], out[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0) throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork");
    if (pid_ == 0) {
      ::setpgid(0, 0);
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      FILE* f = std::fopen(log.c_str(), "w");
      if (f) ::dup2(fileno(f), 2);
      if (fd3 >= 0) ::dup2(fd3, 3);
      // Nothing else of this process: an inherited fd 4 would be read by
      // the Node page as its interrupt channel (and steal its peer's lines).
      ::close_range(fd3 >= 0 ? 4 : 3, ~0U, 0);
      if (::chdir(cwd.c_str()) != 0) ::_exit(126);
      std::vector<char*> args;
      for (std::string& s : argv) args.push_back(s.data());
      args.push_back(nullptr);
      ::execvp(args[0], args.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~Child() {
    if (to_ >= 0) ::close(to_);
    if (from_ >= 0) ::close(from_);
    if (pid_ > 0) {
      // stdin closed: a well-behaved child ends by itself.
      for (int i = 0; i < 100; ++i) {
        if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  void send(const std::string& line) { write_all(to_, line + "\n"); }
  std::string line(std::chrono::milliseconds wait = no_deadline) { return read_line(from_, buffer_, wait); }

  static void write_all(int fd, const std::string& s) {
    for (std::size_t done = 0; done < s.size();) {
      ssize_t n = ::write(fd, s.data() + done, s.size() - done);
      if (n <= 0) throw std::runtime_error("write to a child failed");
      done += static_cast<std::size_t>(n);
    }
  }
  // The next line; with a `wait`, throws when none comes within it (a hung
  // child fails the run instead of hanging it).
  static std::string read_line(int fd, std::string& buffer, std::chrono::milliseconds wait = no_deadline) {
    for (;;) {
      if (auto nl = buffer.find('\n'); nl != std::string::npos) {
        std::string l = buffer.substr(0, nl);
        buffer.erase(0, nl + 1);
        return l;
      }
      pollfd p{fd, POLLIN, 0};
      if (wait != no_deadline && ::poll(&p, 1, static_cast<int>(wait.count())) == 0)
        throw std::runtime_error("no line from a child within " + std::to_string(wait.count()) + " ms");
      char piece[65536];
      ssize_t n = ::read(fd, piece, sizeof piece);
      if (n <= 0) throw std::runtime_error("a child closed its output");
      buffer.append(piece, static_cast<std::size_t>(n));
    }
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buffer_;
};

}  // namespace bench
