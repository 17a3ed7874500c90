#include "support.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace test {

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "editgate-test-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::size_t count_entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

void write_file(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<editproto::Block> parse(const std::string& response, editproto::Limits limits) {
  editproto::Parser p(limits);
  std::vector<editproto::Block> out;
  p.feed(response, out);
  p.finish(out);
  return out;
}

Run check_response(const std::string& root, const std::string& response, editproto::Options options,
                   std::size_t prepared) {
  auto ws = editproto::Workspace::open(root);
  if (!ws) throw std::runtime_error(ws.error().detail);
  editproto::Applier applier(*ws, options);
  std::vector<editproto::Block> blocks = parse(response, options.limits);
  applier.prepare(std::span(blocks).first(std::min(prepared, blocks.size())));
  for (const editproto::Block& b : blocks) applier.submit(b);
  Run r;
  r.results = applier.flush();
  r.auto_added = applier.files_auto_added();
  return r;
}

Run apply_response(const std::string& root, const std::string& response, editproto::Options options,
                   std::size_t prepared) {
  options.dry_run = false;
  return check_response(root, response, std::move(options), prepared);
}

std::vector<std::string> strings(std::span<const std::string_view> lines) {
  return {lines.begin(), lines.end()};
}

unsigned short free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

std::string block(const std::string& path, const std::vector<std::string>& edit,
                  const std::vector<std::string>& repl) {
  std::string out = path + "\n\xC2\xAB\xC2\xAB\xC2\xAB EDIT\n";
  for (const std::string& l : edit) out += l + "\n";
  out += "\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90 REPL\n";
  for (const std::string& l : repl) out += l + "\n";
  out += "\xC2\xBB\xC2\xBB\xC2\xBB EDIT END\n";
  return out;
}

namespace {

Proc spawn(std::vector<std::string> args, const std::string& input, const std::vector<std::string>& extra_env) {
  TempDir io;
  write_file(io / "in", input);
  std::string in = (io / "in").string(), out = (io / "out").string(), err = (io / "err").string();
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, in.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_store = extra_env;
  for (char** e = environ; *e; ++e) {
    const char* eq = std::strchr(*e, '=');
    std::string key(*e, eq ? static_cast<std::size_t>(eq - *e) : std::strlen(*e));
    bool overridden = std::any_of(extra_env.begin(), extra_env.end(),
                                  [&](const std::string& x) { return x.compare(0, key.size() + 1, key + "=") == 0; });
    if (!overridden) env_store.push_back(*e);
  }
  std::vector<char*> envp;
  for (std::string& e : env_store) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid;
  int rc = ::posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot start " + args[0] + ": " + std::strerror(rc));
  int status = 0;
  ::waitpid(pid, &status, 0);
  Proc r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(io / "out");
  r.err = read_file(io / "err");
  return r;
}

}  // namespace

Proc run(std::vector<std::string> args, const std::string& input, const std::vector<std::string>& env) {
  return spawn(std::move(args), input, env);
}

Proc git(const fs::path& dir, std::vector<std::string> args) {
  args.insert(args.begin(), {"git", "-C", dir.string()});
  return spawn(std::move(args), "",
               {"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=Repo User",
                "GIT_AUTHOR_EMAIL=user@example.com", "GIT_COMMITTER_NAME=Repo User",
                "GIT_COMMITTER_EMAIL=user@example.com", "LC_ALL=C"});
}

std::string git_ok(const fs::path& dir, std::vector<std::string> args) {
  std::string shown;
  for (const std::string& a : args) shown += " " + a;
  Proc p = git(dir, std::move(args));
  INFO("git" << shown << "\n" << p.err);
  REQUIRE(p.exit_code == 0);
  return p.out;
}

}  // namespace test
