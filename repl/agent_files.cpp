#include "repl/log.hpp"
#include "repl/agent_files.hpp"

#include <boost/json/serialize.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace repl {

namespace fs = std::filesystem;

namespace {

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

std::uint64_t marker_number(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "re");
  if (!f) return 0;
  unsigned long long n = 0;
  if (std::fscanf(f, "%llu", &n) != 1) n = 0;
  std::fclose(f);
  return n;
}

bool replace_file(const std::string& path, std::string_view bytes) {
  const std::string temp = path + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const bool ok = fd >= 0 && write_all(fd, bytes);
  if (fd >= 0) ::close(fd);
  return ok && ::rename(temp.c_str(), path.c_str()) == 0;
}

std::string iso_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

AgentFiles::AgentFiles(std::string dir)
    : dir_(std::move(dir)),
      loop_({.name = "eg-status-files"}, [this](std::vector<Op>& batch, bool) {
        write(batch);
        return editgit::WorkerLoop<Op>::Next{};
      }) {
  // Sequence numbers go on from the highest any marker holds.
  std::error_code ec;
  for (const char* area : {"pages", "outbox"})
    for (fs::recursive_directory_iterator it(fs::path(dir_) / area, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".marker") last_ = std::max(last_, marker_number(it->path().string()));
}

AgentFiles::~AgentFiles() { loop_.stop(editgit::OnStop::drain); }

// The queue is unbounded, and refuses only once the destructor has begun.
void AgentFiles::put(std::string rel, std::string content) {
  (void)loop_.post({Op::put, std::move(rel), std::move(content)});
}
void AgentFiles::append(std::string rel, std::string line) {
  (void)loop_.post({Op::append, std::move(rel), std::move(line)});
}
void AgentFiles::erase(std::string rel) { (void)loop_.post({Op::erase, std::move(rel), {}}); }

void AgentFiles::flush() { loop_.wait_idle(); }

void AgentFiles::status(const std::string& page, boost::json::object status) {
  status["updated_at"] = iso_now();
  put("pages/" + page + "/status.json", boost::json::serialize(status) + "\n");
}

void AgentFiles::marker(const std::string& page, std::string_view name, std::uint64_t sequence) {
  put("pages/" + page + "/" + std::string(name), std::to_string(sequence) + "\n");
}

void AgentFiles::record(const std::string& page, boost::json::object record) {
  record["at"] = iso_now();
  append("pages/" + page + "/chat_history.jsonl", boost::json::serialize(record) + "\n");
}

void AgentFiles::write(std::vector<Op>& batch) {
  // A file replaced again later in the batch is written once, last (found
  // from the end, so a batch of many pages' files costs its length).
  std::vector<bool> superseded(batch.size());
  std::unordered_set<std::string_view> replaced_later;
  for (std::size_t i = batch.size(); i-- > 0;)
    if (batch[i].kind != Op::append) superseded[i] = !replaced_later.insert(batch[i].rel).second;
  for (std::size_t i = 0; i < batch.size(); ++i)
    if (!superseded[i]) run(batch[i]);
}

void AgentFiles::run(const Op& op) {
  const fs::path path = fs::path(dir_) / op.rel;
  std::error_code ec;
  if (op.kind == Op::erase) {
    fs::remove(path, ec);
    return;
  }
  fs::create_directories(path.parent_path(), ec);
  // Folders of its own, never links: what is written here lands where an
  // agent reads it, not where a link would lead.
  for (fs::path d = path.parent_path(); d.string().size() > dir_.size(); d = d.parent_path())
    if (fs::is_symlink(d, ec)) {
      log_line("not written through the link " + d.string() + ": " + op.rel);
      return;
    }
  if (op.kind == Op::append) {
    // One write with O_APPEND: a reader sees whole lines.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 || !write_all(fd, op.content)) log_line("cannot append to " + path.string());
    struct stat st;
    const bool full = fd >= 0 && ::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) >= append_limit;
    if (fd >= 0) ::close(fd);
    // Bounded like a log: the file past its limit becomes <name>.1 (the one
    // before goes) and the next line starts a new one. The whole history
    // is in git.
    if (full && ::rename(path.c_str(), (path.string() + ".1").c_str()) != 0)
      log_line("cannot move " + path.string() + " aside");
    return;
  }
  if (!replace_file(path.string(), op.content)) log_line("cannot write " + path.string());
}

}  // namespace repl
