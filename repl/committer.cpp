#include "record/trailers.hpp"
#include "repl/log.hpp"
#include "repl/committer.hpp"

#include "git/message.hpp"

#include <iostream>
#include <map>

namespace repl {

namespace {
constexpr std::size_t group_above = 8;  // exchanges waiting together
}  // namespace

Result<std::unique_ptr<Committer>> Committer::start(const std::string& root) {
  auto queue = editgit::CommitQueue::open(root);
  if (!queue) return Failure{Error::io, queue.error().message};
  auto c = std::make_unique<Committer>(**queue);
  c->own_ = std::move(*queue);
  return c;
}

Result<void> Committer::submit(CommitItem&& item) {
  std::lock_guard lock(mutex_);
  // Items that wait together, with nothing else queued between them, are
  // one batch: a commit each, or one for all when there are many.
  auto joined = queue_.join_last(this, [&] { last_->join(std::move(item)); });
  if (joined && *joined) return {};
  if (joined) {
    auto batch = std::make_shared<Batch>();
    batch->items.push_back(std::move(item));
    auto queued = queue_.submit([this, batch](editgit::Repository& repo) { commit(repo, std::move(*batch)); }, this);
    if (queued) {
      last_ = std::move(batch);
      return {};
    }
    joined = queued.error();
    item = std::move(batch->items.front());
  }
  log_line("the REPL's commit \"" + item.summary + "\" was not made: " + joined.error().message);
  if (item.committed) item.committed("");
  return Failure{Error::commit_queue_full, joined.error().message};
}

Committer::~Committer() {
  if (own_)
    own_->stop();
  else
    queue_.wait_idle();
}

void Committer::wait_idle() { queue_.wait_idle(); }

void Committer::stop() {
  if (own_) own_->stop();
}

void Committer::Batch::join(CommitItem item) {
  items.push_back(std::move(item));
  if (items.size() <= group_above) return;
  // One commit from here on (a batch only grows until it runs).
  for (; scanned < items.size(); ++scanned) {
    // An item may change one log more than once (placeholders, then its reply).
    std::vector<FileChange>& files = items[scanned].files;
    for (std::size_t k = 0; k < files.size(); ++k) {
      auto [it, fresh] = newest.try_emplace(files[k].path, scanned, k);
      if (fresh) continue;
      const auto [item, file] = it->second;
      items[item].files[file].after.reset();
      files[k].before.reset();
      it->second = {scanned, k};
    }
  }
}

void Committer::commit(editgit::Repository& repo, Batch batch) {
  // One commit per exchange while the queue keeps up; when it falls behind
  // (many pages, a busy machine), what waits goes in one.
  if (batch.items.size() > group_above) {
    std::vector<CommitItem*> all;
    for (CommitItem& item : batch.items) all.push_back(&item);
    return commit_one(repo, std::move(all));
  }
  for (CommitItem& item : batch.items) commit_one(repo, {&item});
}

void Committer::commit_one(editgit::Repository& repo, std::vector<CommitItem*> batch) {
  // One change per path: the first item's before, the last one's after.
  std::map<std::string, FileChange> files;
  std::vector<std::string> order;
  for (CommitItem* item : batch)
    for (FileChange& f : item->files) {
      auto [it, fresh] = files.try_emplace(f.path, f);
      if (fresh)
        order.push_back(f.path);
      else
        it->second.after = std::move(f.after);  // released (null) until the path's last item
    }
  editgit::CommitRequest req;
  for (const std::string& path : order) {
    const FileChange& f = files.at(path);
    editgit::Change c;
    c.path = f.path;
    if (f.before) c.before = std::string_view(*f.before);
    c.after = {std::string_view(*f.after)};
    req.changes.push_back(std::move(c));
  }
  if (batch.size() == 1) {
    req.author = batch.front()->author;
    req.message = editgit::compose_message(batch.front()->summary, "", batch.front()->trailers);
  } else {
    // Grouped under load: every exchange keeps its line and its trailers.
    req.author = {"editgate", "editgate@editgate.invalid"};
    std::string body;
    for (const CommitItem* item : batch) body += "- " + editgit::message_line(item->summary) + "\n";
    editgit::Trailers trailers{{record::trailer::kind, "repl"}};
    for (const CommitItem* item : batch)
      for (const auto& [k, v] : item->trailers)
        if (k != record::trailer::kind) trailers.emplace_back(k, v);
    req.message = editgit::compose_message("repl: " + std::to_string(batch.size()) + " exchanges", body, trailers);
  }
  req.earlier_message = [](const std::vector<std::string>& paths) {
    // The REPL's files change outside the gateway only by a save: a person's
    // or a file-writing agent's.
    std::string m = "saved outside editgate:";
    for (const auto& p : paths) m += " " + p;
    return editgit::compose_message(m, "", {{record::trailer::kind, "earlier-state"}});
  };
  auto done = repo.commit(req);
  if (!done)
    log_line("the REPL commit of " + order.front() + " failed: " + done.error().message);
  const std::string id = done && done->id ? *done->id : std::string();
  if (done) ++commits_;
  for (CommitItem* item : batch)
    if (item->committed) item->committed(id);
}

}  // namespace repl
