#include "repl/committer.hpp"

#include "git/message.hpp"
#include "record/repl_ref.hpp"
#include "record/trailers.hpp"
#include "repl/log.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace repl {

using Clock = std::chrono::steady_clock;

Committer::Committer(editgit::CommitQueue& queue, std::optional<boost::asio::any_io_executor> ex, Options options)
    : queue_(queue), opt_(options) {
  if (ex) timer_ = std::make_unique<boost::asio::steady_timer>(*ex);
}

Result<std::unique_ptr<Committer>> Committer::start(const std::string& root) {
  auto queue = editgit::CommitQueue::open(root);
  if (!queue) return Failure{Error::io, queue.error().message};
  auto c = std::make_unique<Committer>(**queue);
  c->own_ = std::move(*queue);
  return c;
}

Result<void> Committer::submit(CommitItem&& item) {
  std::lock_guard lock(mutex_);
  if (held_.items.size() >= opt_.max_held) {
    log_line("the REPL's commit \"" + item.summary + "\" was not made: " + std::to_string(held_.items.size()) +
             " items wait for the commit queue");
    if (item.committed) item.committed("");
    return Failure{Error::commit_queue_full, "the commit queue is full and " + std::to_string(held_.items.size()) +
                                                 " of the REPL's items wait for it"};
  }
  for (const std::string& key : item.closes)
    if (auto it = std::find(open_.begin(), open_.end(), key); it != open_.end()) open_.erase(it);
  for (const std::string& key : item.opens) {
    if (open_.empty()) opened_at_ = Clock::now();
    open_.push_back(key);
  }
  held_.join(std::move(item));
  if (!timer_) {
    flush_locked();  // refused: held, and the next submit tries again
    return {};
  }
  const auto now = Clock::now();
  if (!open_.empty())
    arm_locked(opened_at_ + opt_.hold - now);
  else if (now - flushed_at_ >= gap_) {
    if (!flush_locked()) arm_locked(opt_.gap);  // refused: held, and tried again
  }
  else
    arm_locked(flushed_at_ + gap_ - now);
  return {};
}

void Committer::arm_locked(Clock::duration after) {
  if (after < Clock::duration::zero()) after = Clock::duration::zero();
  if (armed_ && timer_->expiry() <= Clock::now() + after) return;
  armed_ = true;
  timer_->expires_after(after);
  // Replacing the expiry cancels the wait before: that handler hears
  // operation_aborted and leaves everything to this one.
  // A wait that completed just before the committer went is still queued
  // when the timer is destroyed: it hears success, so it asks whether the
  // committer is alive (both run on the executor's thread).
  timer_->async_wait([this, alive = std::weak_ptr<const bool>(alive_)](boost::system::error_code ec) {
    if (ec || alive.expired()) return;
    std::lock_guard lock(mutex_);
    armed_ = false;
    const auto now = Clock::now();
    if (!open_.empty() && now < opened_at_ + opt_.hold)
      return arm_locked(opened_at_ + opt_.hold - now);
    if (now - flushed_at_ < gap_) return arm_locked(flushed_at_ + gap_ - now);
    if (!flush_locked()) arm_locked(opt_.gap);
  });
}

Result<void> Committer::flush_locked() {
  if (held_.items.empty()) return {};
  flushed_at_ = Clock::now();
  // Each commit writes its logs whole: the next waits until they would
  // have gone at `bytes_per_second`, so a long log is committed less often
  // (its exchanges grouped) and git's work stays bounded whatever the rate.
  std::size_t bytes = 0;
  for (const auto& [path, at] : held_.newest)
    if (const FileChange& f = held_.items[at.first].files[at.second]; f.after) bytes += f.after_head.bytes + f.after->size();
  const auto at_rate = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(double(bytes) / double(std::max<std::size_t>(opt_.bytes_per_second, 1))));
  gap_ = std::clamp<Clock::duration>(at_rate, opt_.gap, std::max<Clock::duration>(opt_.gap, opt_.max_gap));
  // Still waiting on the queue behind another commit: what is held joins it.
  auto joined = queue_.join_last(this, [&] {
    for (CommitItem& item : held_.items) last_->join(std::move(item));
  });
  if (joined && *joined) {
    held_ = {};
    open_.clear();
    return {};
  }
  if (joined) {
    auto batch = std::make_shared<Batch>(std::move(held_));
    held_ = {};
    auto queued = queue_.submit([this, batch](editgit::Repository& repo) { commit(repo, *batch); }, this);
    if (queued) {
      last_ = std::move(batch);
      open_.clear();
      return {};
    }
    held_ = std::move(*batch);
    joined = queued.error();
  }
  log_line("the REPL's commits wait: " + joined.error().message);
  return Failure{Error::commit_queue_full, joined.error().message};
}

Committer::~Committer() {
  {
    std::lock_guard lock(mutex_);
    if (flush_locked())
      held_ = {};
    else
      for (CommitItem& item : held_.items)
        if (item.committed) item.committed("");
  }
  if (own_)
    own_->stop();
  else
    queue_.wait_idle();
}

void Committer::flush() {
  std::lock_guard lock(mutex_);
  if (timer_) timer_->cancel();
  armed_ = false;
  flush_locked();
}

void Committer::wait_idle() {
  // Held items the full queue refused go once it has run what it had.
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool held = false;
    {
      std::lock_guard lock(mutex_);
      held = !flush_locked();
    }
    queue_.wait_idle();
    if (!held) return;
  }
}

void Committer::stop() {
  {
    std::lock_guard lock(mutex_);
    flush_locked();
  }
  if (own_) own_->stop();
}

void Committer::pack_now() {
  wait_idle();
  if (packing_) packing_->drain();
}

void Committer::Batch::join(CommitItem item) {
  // A log changed before (by an earlier item, or earlier in this one): that
  // change's `after` goes (this one's is newer), and so does this one's
  // `before` (the older one stands).
  const std::size_t at = items.size();
  items.push_back(std::move(item));
  for (std::size_t k = 0; k < items[at].files.size(); ++k) {
    auto [it, fresh] = newest.try_emplace(items[at].files[k].path, at, k);
    if (fresh) continue;
    const auto [i, f] = it->second;
    items[i].files[f].after.reset();
    items[at].files[k].before.reset();
    items[at].files[k].before_head = {};
    it->second = {at, k};
  }
}

namespace {

// What the commit's subject says, and its kind.
std::pair<std::string, std::string> subject_of(const std::vector<CommitItem>& items) {
  const CommitItem& first = items.front();
  const bool exchange = !first.opens.empty() || !first.closes.empty();
  if (items.size() == 1) {
    if (!exchange || first.page.empty()) return {first.summary, ""};
    if (!first.opens.empty()) {
      const std::string& key = first.opens.front();
      return {first.page + ": " + first.headline + " (job " + key.substr(key.rfind('/') + 1) + " running)", "request"};
    }
    const std::string& key = first.closes.front();
    return {first.page + ": job " + key.substr(key.rfind('/') + 1) + " " + first.headline, "reply"};
  }
  if (items.size() == 2 && !first.opens.empty() && first.opens == items[1].closes)
    return {first.page + ": " + first.headline + " " + items[1].headline, "exchange"};
  std::set<std::string> keys, pages;
  std::size_t others = 0;
  for (const CommitItem& item : items) {
    keys.insert(item.opens.begin(), item.opens.end());
    keys.insert(item.closes.begin(), item.closes.end());
    if (item.opens.empty() && item.closes.empty()) ++others;
    if (!item.page.empty()) pages.insert(item.page);
  }
  std::string s = "repl: ";
  if (!keys.empty()) s += std::to_string(keys.size()) + (keys.size() == 1 ? " exchange" : " exchanges");
  if (others) s += (keys.empty() ? "" : ", ") + std::to_string(others) + (others == 1 ? " page event" : " page events");
  if (!pages.empty() && pages.size() <= 3) {
    s += " on";
    for (const std::string& p : pages) s += (p == *pages.begin() ? " " : ", ") + p;
  }
  return {s, "repl"};
}

}  // namespace

void Committer::commit(editgit::Repository& repo, Batch& batch) {
  std::vector<CommitItem>& items = batch.items;
  if (ref_.empty()) ref_ = record::repl_ref(repo);
  // One change per path: the first item's before, the last one's after.
  std::map<std::string, FileChange> files;
  std::vector<std::string> order;
  std::set<std::string> saves;  // paths whose save an item takes as its own
  for (CommitItem& item : items)
    for (FileChange& f : item.files) {
      if (item.takes_save) saves.insert(f.path);
      auto [it, fresh] = files.try_emplace(f.path, f);
      if (fresh)
        order.push_back(f.path);
      else if (f.after) {  // released (null) until the path's last item
        it->second.after = std::move(f.after);
        it->second.after_head = f.after_head;
      }
    }
  editgit::CommitRequest req;
  req.ref = ref_;
  for (const std::string& path : order) {
    const FileChange& f = files.at(path);
    auto in_tree = record::repl_tree_path(path);
    if (!in_tree || !f.after) {
      log_line("the REPL commit leaves out " + path + ": not a file of debug/ or debug-archive/");
      continue;
    }
    editgit::Change c;
    c.path = *in_tree;
    c.takes_earlier = saves.count(path) > 0;
    // A long log's texts are read (their heads from the file) one at a time,
    // as its blobs are made: a commit never holds all its logs whole.
    if (f.before && f.before_head.bytes > 0)
      c.read_before = [&f] { return whole_text(f, f.before_head, *f.before); };
    else if (f.before)
      c.before = std::string_view(*f.before);
    if (f.after_head.bytes > 0)
      c.read_after = [&f] { return whole_text(f, f.after_head, *f.after); };
    else
      c.after = {std::string_view(*f.after)};
    req.changes.push_back(std::move(c));
  }
  auto [subject, kind] = subject_of(items);
  editgit::Trailers trailers;
  std::string body;
  if (kind.empty()) {
    req.author = items.front().author;
    trailers = items.front().trailers;
  } else {
    // Every item keeps its line and its trailers.
    for (const CommitItem& item : items)
      body += "- " + editgit::message_line(item.summary + (item.headline.empty() ? "" : " " + item.headline)) + "\n";
    trailers.emplace_back(record::trailer::kind, kind);
    for (const CommitItem& item : items)
      for (const auto& t : item.trailers)
        if (t.first != record::trailer::kind && std::find(trailers.begin(), trailers.end(), t) == trailers.end())
          trailers.push_back(t);
    req.author = kind == "repl" ? editgit::Identity{"editgate", "editgate@editgate.invalid"} : items.front().author;
  }
  if (auto head = repo.ref_tip("HEAD"); head && !head->empty()) trailers.emplace_back(record::trailer::branch, *head);
  req.message = editgit::compose_message(subject, body, trailers);
  req.earlier_message = [](const std::vector<std::string>& paths) {
    // The REPL's files change outside the gateway only by a save: a person's
    // or a file-writing agent's.
    std::string m = "saved outside editgate:";
    for (const auto& p : paths) m += " " + record::repl_workspace_path(p);
    return editgit::compose_message(m, "", {{record::trailer::kind, "earlier-state"}});
  };
  auto done = repo.commit(req);
  if (!done)
    log_line("the REPL commit of " + (order.empty() ? std::string("nothing") : order.front()) +
             " failed: " + done.error().message);
  if (done)
    for (const auto& left : done->not_committed)
      log_line("the REPL commit leaves out " + left.path + ": " + left.why);
  const std::string id = done && done->id ? *done->id : std::string();
  if (done) ++commits_;
  if (!id.empty() && opt_.pack && !packing_failed_) {
    if (!packing_) {
      auto options = opt_.packing;
      options.report = &log_line;
      auto started = editgit::PackThread::start(repo.gitdir(), std::move(options));
      if (started)
        packing_ = std::move(*started);
      else {
        packing_failed_ = true;
        log_line("the REPL's objects stay loose: " + started.error().message);
      }
    }
    if (packing_) packing_->committed(ref_);
  }
  for (CommitItem& item : items)
    if (item.committed) item.committed(id);
}

}  // namespace repl
