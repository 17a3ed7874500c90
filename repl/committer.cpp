#include "repl/committer.hpp"

#include "git/message.hpp"

#include <iostream>
#include <map>

namespace repl {

namespace {
constexpr std::size_t group_above = 8;  // queued exchanges
}  // namespace

Result<std::unique_ptr<Committer>> Committer::start(const std::string& root) {
  auto repo = editgit::Repository::open(root, {}, false);
  if (!repo) return Failure{Error::io, repo.error().message};
  return std::unique_ptr<Committer>(new Committer(std::move(*repo)));
}

Committer::Committer(editgit::Repository repo) : repo_(std::move(repo)), thread_([this] { loop(); }) {}

Committer::~Committer() { stop(); }

void Committer::submit(CommitItem item) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(item));
  }
  wake_.notify_one();
}

void Committer::wait_idle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

void Committer::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

std::uint64_t Committer::commits() const {
  std::lock_guard lock(mutex_);
  return commits_;
}

void Committer::loop() {
  for (;;) {
    std::vector<CommitItem> batch;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      // One commit per exchange while the committer keeps up; when it falls
      // behind (many pages, a busy machine), what waits goes in one.
      const std::size_t take = queue_.size() > group_above ? queue_.size() : 1;
      batch.assign(std::make_move_iterator(queue_.begin()),
                   std::make_move_iterator(queue_.begin() + static_cast<std::ptrdiff_t>(take)));
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(take));
      busy_ = true;
    }
    commit(std::move(batch));
    {
      std::lock_guard lock(mutex_);
      busy_ = false;
    }
    idle_.notify_all();
  }
}

void Committer::commit(std::vector<CommitItem> batch) {
  // One change per path: the first item's before, the last one's after.
  std::map<std::string, FileChange> files;
  std::vector<std::string> order;
  for (CommitItem& item : batch)
    for (FileChange& f : item.files) {
      auto [it, fresh] = files.try_emplace(f.path, f);
      if (fresh)
        order.push_back(f.path);
      else
        it->second.after = std::move(f.after);
    }
  editgit::CommitRequest req;
  for (const std::string& path : order) {
    const FileChange& f = files.at(path);
    editgit::Change c;
    c.path = f.path;
    if (f.before) c.before = std::string_view(*f.before);
    c.after = {std::string_view(f.after)};
    req.changes.push_back(std::move(c));
  }
  if (batch.size() == 1) {
    req.author = batch.front().author;
    req.message = editgit::compose_message(batch.front().summary, "", batch.front().trailers);
  } else {
    // Grouped under load: every exchange keeps its line and its trailers.
    req.author = {"editgate", "editgate@editgate.invalid"};
    std::string body;
    for (const CommitItem& item : batch) body += "- " + editgit::message_line(item.summary) + "\n";
    editgit::Trailers trailers{{"Editgate-Kind", "repl"}};
    for (const CommitItem& item : batch)
      for (const auto& [k, v] : item.trailers)
        if (k != "Editgate-Kind") trailers.emplace_back(k, v);
    req.message = editgit::compose_message("repl: " + std::to_string(batch.size()) + " exchanges", body, trailers);
  }
  req.earlier_message = [](const std::vector<std::string>& paths) {
    // The REPL's files change outside the gateway only by a save: a person's
    // or a file-writing agent's.
    std::string m = "saved outside editgate:";
    for (const auto& p : paths) m += " " + p;
    return editgit::compose_message(m, "", {{"Editgate-Kind", "earlier-state"}});
  };
  auto done = repo_.commit(req);
  if (!done)
    std::cerr << "editgate: the REPL commit of " + order.front() + " failed: " + done.error().message + "\n";
  const std::string id = done && done->id ? *done->id : std::string();
  if (done) {
    std::lock_guard lock(mutex_);
    ++commits_;
  }
  for (CommitItem& item : batch)
    if (item.committed) item.committed(id);
}

}  // namespace repl
