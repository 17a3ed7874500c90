#include "repl/log.hpp"
#include "repl/agent_files.hpp"

#include <boost/json/serialize.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
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

namespace {

// The spare of `path`: the hidden file beside it whose inode the next
// update writes and swaps in, so an update creates no inode (ext4 spends
// most of a new file's cost finding one) and frees none.
std::string spare_of(const fs::path& path) {
  return (path.parent_path() / ("." + path.filename().string() + ".spare")).string();
}

bool swap_in(const fs::path& path, std::string_view bytes) {
  const std::string spare = spare_of(path);
  const int fd = ::open(spare.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return false;
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  // Never shorter than what the spare held: a reader still holding this
  // inode open from two updates ago reads the new bytes over the old, never
  // a cut file. JSON takes spaces before its last line end; a marker's
  // number only grows, so its text does not shrink (and is cut if it did).
  std::string padded;
  const auto old_size = ok ? static_cast<std::size_t>(st.st_size) : 0;
  if (ok && bytes.size() < old_size && path.extension() == ".json" && !bytes.empty() && bytes.back() == '\n') {
    padded.assign(bytes.substr(0, bytes.size() - 1));
    padded.append(old_size - bytes.size(), ' ');
    padded.push_back('\n');
    bytes = padded;
  }
  for (std::size_t done = 0; ok && done < bytes.size();) {
    const ssize_t n = ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  if (ok && bytes.size() < old_size) ok = ::ftruncate(fd, static_cast<off_t>(bytes.size())) == 0;
  ::close(fd);
  if (!ok) return false;
  if (::renameat2(AT_FDCWD, spare.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) return true;
  // No file there yet (or a file system without the exchange): the spare
  // becomes it, and the next update makes a new spare.
  return ::rename(spare.c_str(), path.c_str()) == 0;
}

// An erased file becomes the spare again when there is none, so a marker
// that comes and goes (ready.marker) reuses its inode too.
void erase_keeping_spare(const fs::path& path) {
  const std::string spare = spare_of(path);
  struct stat st;
  if (::lstat(spare.c_str(), &st) != 0 && errno == ENOENT && ::rename(path.c_str(), spare.c_str()) == 0) return;
  std::error_code ec;
  fs::remove(path, ec);
}

}  // namespace

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
  if (!folder_ready(path.parent_path().string())) {
    log_line("not written through a link or a missing folder: " + op.rel);
    return;
  }
  if (op.kind == Op::erase) {
    // A marker erased at every job's start is mostly gone already.
    if (absent_.contains(op.rel)) return;
    erase_keeping_spare(path);
    if (absent_.size() >= max_remembered) absent_.clear();
    absent_.insert(op.rel);
    return;
  }
  absent_.erase(op.rel);
  if (op.kind == Op::append) {
    append_to(path.string(), op);
    return;
  }
  if (!swap_in(path, op.content)) log_line("cannot write " + path.string());
}

// One write with O_APPEND on a descriptor kept open: a reader sees whole
// lines. A file removed or replaced meanwhile (no link left to the open
// one) is opened again first.
void AgentFiles::append_to(const std::string& path, const Op& op) {
  auto it = appending_.find(op.rel);
  if (it == appending_.end()) {
    if (appending_.size() >= max_open_appends) appending_.clear();
    it = appending_.emplace(op.rel, editproto::Fd()).first;
  }
  editproto::Fd& fd = it->second;
  struct stat st;
  if (!fd || ::fstat(fd.get(), &st) != 0 || st.st_nlink == 0) {
    fd = editproto::Fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd || ::fstat(fd.get(), &st) != 0) {
      log_line("cannot append to " + path);
      appending_.erase(it);
      return;
    }
  }
  if (!write_all(fd.get(), op.content)) log_line("cannot append to " + path);
  // Bounded like a log: the file past its limit becomes <name>.1 (the one
  // before goes) and the next line starts a new one. The whole history
  // is in git.
  if (static_cast<std::uint64_t>(st.st_size) + op.content.size() >= append_limit) {
    appending_.erase(it);
    if (::rename(path.c_str(), (path + ".1").c_str()) != 0) log_line("cannot move " + path + " aside");
  }
}

// Made once and checked once per folder: folders of its own, never links,
// so what is written lands where an agent reads it, not where a link leads.
bool AgentFiles::folder_ready(const std::string& folder) {
  if (ready_folders_.count(folder)) return true;
  std::error_code ec;
  fs::create_directories(folder, ec);
  for (fs::path d = folder; d.string().size() > dir_.size(); d = d.parent_path())
    if (fs::is_symlink(d, ec) || !fs::is_directory(d, ec)) return false;
  // Bounded: pages come and go over a long session.
  if (ready_folders_.size() >= max_remembered) ready_folders_.clear();
  ready_folders_.insert(folder);
  return true;
}

}  // namespace repl
