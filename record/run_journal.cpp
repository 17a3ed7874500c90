#include "record/run_journal.hpp"

#include "record/commit_messages.hpp"
#include "record/identity.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

namespace record {

namespace json = boost::json;

namespace {

constexpr char kFolder[] = "editgate-runs/";
constexpr char kSuffix[] = ".journal";
// A run's journal has a line per file write; past this it is not read whole
// (a run that big is cut off long before: Limits::max_response_bytes).
constexpr std::size_t kMaxJournalBytes = 64u << 20;

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string joined(std::span<const std::string_view> chunks) {
  std::string out;
  for (std::string_view c : chunks) out += c;
  return out;
}

std::string random_name() {
  std::random_device rd;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%d-%08x%08x", static_cast<int>(::getpid()), rd(), rd());
  return buf;
}

// One dead run's journal, read back.
struct Journal {
  std::string agent;
  std::string session;
  // Per path, in the order first written: the base of its first write and
  // every id the run was about to write (a rebase writes again).
  struct File {
    std::string path;
    std::optional<std::string> base;
    std::set<std::string> written;
  };
  std::vector<File> files;
};

std::optional<std::string> read_journal_text(int fd) {
  std::string text;
  char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxJournalBytes) return std::nullopt;
  }
  return text;
}

// A line cut off by the kill, or one that is not ours, is passed over.
Journal parse_journal(std::string_view text) {
  Journal j;
  bool header = true;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    if (nl == std::string_view::npos) break;
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    boost::system::error_code ec;
    json::value v = json::parse(line, ec);
    if (ec || !v.is_object()) continue;
    const json::object& o = v.get_object();
    auto str = [&](const char* key) -> std::optional<std::string> {
      const json::value* f = o.if_contains(key);
      return f && f->is_string() ? std::optional<std::string>(std::string(f->get_string())) : std::nullopt;
    };
    if (header) {
      header = false;
      j.agent = str("agent").value_or("agent");
      j.session = str("session").value_or("");
      continue;
    }
    auto path = str("path");
    auto written = str("written");
    if (!path || !written) continue;
    auto it = std::find_if(j.files.begin(), j.files.end(), [&](const Journal::File& f) { return f.path == *path; });
    if (it == j.files.end()) {
      j.files.push_back({*path, str("base"), {}});
      it = j.files.end() - 1;
    }
    it->written.insert(*written);
  }
  return j;
}

// The journal's files that still hold what the run wrote, as a commit of
// its agent's; the others are left as they are.
editgit::Result<Interrupted> commit_journal(const editproto::Workspace& ws, editgit::Repository& repo,
                                            const Journal& j) {
  Interrupted out{j.agent, j.session, {}, {}, std::nullopt};
  std::vector<std::string> contents;  // the Change views point here
  std::vector<std::optional<std::string>> heads;
  contents.reserve(j.files.size());
  heads.reserve(j.files.size());
  std::vector<std::string> mixed;  // the run started from uncommitted changes
  editgit::CommitRequest req;
  for (const Journal::File& f : j.files) {
    auto disk = ws.read(f.path, editproto::Limits{}.max_file_bytes);
    if (!disk || !disk->stamp.exists || !f.written.count(editgit::blob_id(disk->bytes))) {
      out.changed_since.push_back(f.path);
      continue;
    }
    auto head = repo.head_text(f.path);
    if (!head) return head.error();
    const std::string head_id = *head ? editgit::blob_id(**head) : std::string();
    if (f.base.value_or("") != head_id) mixed.push_back(f.path);
    contents.push_back(std::move(disk->bytes));
    heads.push_back(std::move(*head));
    editgit::Change c;
    c.path = f.path;
    if (heads.back()) c.before = std::string_view(*heads.back());
    c.after = {std::string_view(contents.back())};
    req.changes.push_back(std::move(c));
    out.paths.push_back(f.path);
  }
  if (req.changes.empty()) return out;
  req.author = agent_identity(j.agent);
  req.message = interrupted_message(out.paths, mixed, j.agent, j.session);
  auto done = repo.commit(req);
  if (!done) return done.error();
  out.commit = done->id;
  return out;
}

}  // namespace

RunJournal::RunJournal(std::string gitdir, std::string agent, std::string session)
    : dir_(std::move(gitdir) + kFolder), agent_(std::move(agent)), session_(std::move(session)) {}

RunJournal::~RunJournal() {
  if (fd_ >= 0) ::close(fd_);  // which lets go of the flock; the file stays
}

bool RunJournal::open_file() {
  if (fd_ >= 0) return true;
  ::mkdir(dir_.c_str(), 0700);
  const std::string file = dir_ + random_name() + kSuffix;
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  // Held until this run lets go: a journal nobody holds is a dead run's.
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0 ||
      !write_all(fd, json::serialize(json::object{{"agent", agent_}, {"session", session_}}) + "\n")) {
    ::unlink(file.c_str());
    ::close(fd);
    return false;
  }
  fd_ = fd;
  file_ = file;
  return true;
}

void RunJournal::writing(const std::string& path, const std::string* base, std::span<const std::string_view> bytes) {
  if (!open_file()) return;
  json::object line{{"path", path}, {"written", editgit::blob_id(joined(bytes))}};
  if (base) line["base"] = editgit::blob_id(*base);
  write_all(fd_, json::serialize(line) + "\n");
}

void RunJournal::committed() {
  if (fd_ < 0) return;
  ::unlink(file_.c_str());  // while holding the flock: no one takes it for a dead run's
  ::close(fd_);
  fd_ = -1;
  file_.clear();
}

editgit::Result<std::vector<Interrupted>> commit_interrupted(const editproto::Workspace& ws,
                                                             editgit::Repository& repo) {
  std::vector<Interrupted> out;
  const std::string dir = repo.gitdir() + kFolder;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;  // no run has written a journal here yet
  // Oldest first: their commits follow one another in the order the runs wrote.
  std::vector<std::pair<std::int64_t, std::string>> names;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    struct stat st;
    if (name.ends_with(kSuffix) && ::stat((dir + name).c_str(), &st) == 0 && S_ISREG(st.st_mode))
      names.emplace_back(std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec, name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  for (const auto& entry : names) {
    const std::string file = dir + entry.second;
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;
    // A journal someone holds is a live run's (ours included: a new open is
    // a new lock owner).
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      continue;
    }
    auto text = read_journal_text(fd);
    auto done = text ? commit_journal(ws, repo, parse_journal(*text)) : editgit::Result<Interrupted>(Interrupted{});
    if (!done) {
      ::close(fd);
      return done.error();
    }
    ::unlink(file.c_str());
    ::close(fd);
    if (!done->paths.empty() || !done->changed_since.empty()) out.push_back(std::move(*done));
  }
  return out;
}

}  // namespace record
