// The facade: the REPL's parts are Repl's member functions, in files named
// for what they hold (see repl/README.md, "The parts"): page_registry.cpp,
// jobs.cpp, page_messages.cpp, log_requests.cpp, transcript.cpp. Their
// shared state is page_state.hpp's; the parts with state of their own are
// objects (admission, registry_file, status_files, and per page
// job_progress, pending_answers, kept_events, page_log). Here: the page as
// the status files read it.
#include "repl/repl.hpp"

#include "repl/log.hpp"
#include "repl/names.hpp"
#include "repl/page_state.hpp"

#include <dirent.h>
#include <algorithm>
#include <set>

namespace repl {

namespace {

// The instance ids of the logs in `dir` (debug/<name>-<id>.md).
std::set<std::string> log_ids(const std::string& dir) {
  std::set<std::string> ids;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string_view file = e->d_name;
      if (file.size() < 4 || file.substr(file.size() - 3) != ".md") continue;
      file.remove_suffix(3);
      if (const std::size_t dash = file.rfind('-'); dash != std::string_view::npos && valid_id(file.substr(dash + 1)))
        ids.emplace(file.substr(dash + 1));
    }
    ::closedir(d);
  }
  return ids;
}

}  // namespace

Repl::Repl(const editproto::Workspace& ws, Committer& committer, boost::asio::any_io_executor ex, Options options)
    : ws_(ws),
      committer_(committer),
      ex_(std::move(ex)),
      opt_(options),
      registry_(ws, ex_, opt_.registry_disconnected, [this] { return registry_lines(); }),
      keys_(opt_.keys_file, [ids = log_ids(ws.root() + "/debug")](const std::string& id) { return ids.count(id) > 0; }),
      admission_({opt_.new_page_burst, opt_.new_page_every, opt_.max_pages_per_origin}),
      provenance_(ws.root()),
      status_(committer, ex_, [this](const std::string& id) { return status_page(id); },
              [this] {
                if (pages_changed) pages_changed();
              }) {
  if (opt_.tail_journal.empty()) return;
  auto journal = TailJournal::open(opt_.tail_journal);
  if (!journal) {
    log_line(journal.error().message + "; the logs are written whole");
    return;
  }
  // Before any log is read: the last in-place write a crash cut short is finished.
  auto found = journal->recover(ws_);
  if (!found)
    log_line(found.error().message);
  else if (found->found == TailJournal::Found::repaired)
    log_line(found->path + ": the write a stopped gateway left half done was finished from its journal record");
  else if (found->found == TailJournal::Found::changed_since)
    log_line(found->path + ": changed since a stopped gateway's last write to it; left as it is");
  journal_ = std::move(*journal);
}

Repl::~Repl() = default;

void Repl::set_files(AgentFiles* files) {
  status_.set_files(files);
  if (files) next_job_ = std::max(next_job_, files->last_sequence() + 1);
}

StatusPage Repl::status_page(Page& p) {
  StatusPage s{p.stem, p.log->path(), p.link != nullptr, p.queue.size(), std::nullopt, {}, &p.progress};
  if (p.running) s.running = StatusPage::Running{p.running->id, p.running->index, p.running->codes.size()};
  s.waits = [&p](std::uint64_t job) {
    return std::any_of(p.queue.begin(), p.queue.end(), [&](const auto& j) { return j->id == job; });
  };
  return s;
}

std::optional<StatusPage> Repl::status_page(const std::string& page_id) {
  auto it = pages_.find(page_id);
  if (it == pages_.end()) return std::nullopt;
  return status_page(*it->second);
}

void Repl::write_status(Page& p) { status_.write(status_page(p)); }

void Repl::commit(Page& p, std::vector<FileChange> files, const std::string& author, const std::string& summary,
                  std::vector<std::pair<std::string, std::string>> trailers,
                  std::function<void(const std::string& id)> committed, Exchange exchange) {
  status_.commit(p.stem, *p.log, std::move(files), author, summary, std::move(trailers), std::move(committed),
                 std::move(exchange));
}

void Repl::requested(const std::string& page_id, const std::vector<std::shared_ptr<Job>>& jobs,
                     const std::string& commit) {
  for (const auto& job : jobs) status_.requested(page_id, job->id, job->agent, job->codes, commit);
}

}  // namespace repl
