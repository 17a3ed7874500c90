// The intake's glue: a chat log changed (an agent's edit through a door, or
// a save), and what was appended to it becomes jobs (the pure reading is
// intake.hpp's); the recovery rules for requests edited after they were
// accepted; and, at start, jobs a stopped gateway left executing.
#include "record/trailers.hpp"
#include "repl/log.hpp"
#include "repl/headlines.hpp"
#include "repl/intake.hpp"
#include "repl/names.hpp"
#include "repl/page_state.hpp"
#include "repl/transcript.hpp"

#include <dirent.h>
#include <iostream>
#include <limits>

namespace repl {

void Repl::written(const std::string& path, const std::string& agent) {
  if (Page* p = by_log(path)) changed(*p, agent, true);
}

void Repl::saved(const std::string& path) {
  if (Page* p = by_log(path)) changed(*p, "agent", false);
}

void Repl::changed(Page& p, const std::string& agent, bool door) {
  // A save the gateway's own write was applied on top of is read first,
  // then whatever changed since.
  for (int round = 0; round < 4; ++round) {
    std::optional<std::string> seen;
    std::string found;
    bool saved = !door;
    if (auto u = p.log->chat.take_unseen()) {
      seen = std::move(u->known);
      found = std::move(u->found);
      saved = true;  // someone else's change, under the gateway's own write
    } else {
      auto now = p.log->chat.read();
      if (!now || !*now || p.log->chat.is_known(**now)) return;
      seen = p.log->chat.known_in(**now);
      found = std::move(**now);
      p.log->chat.set_known(found);  // seen now: the gateway's next write starts from it
    }
    if (!seen) {
      // Changed above the tail the gateway keeps: edited above its end.
      p.log->draft.clear();
      log_line(p.log->path() + " was edited above its end; nothing there is run");
      continue;
    }
    auto jobs = take_requests(p, *seen, found, agent, saved);
    check_jobs(p);
    for (auto& job : jobs) submit(p, std::move(job));
  }
}

// The requests in what was appended to `seen`, accepted (the footer goes,
// missing headers are written in) and numbered; the caller submits them.

namespace {

// Whether lines of the text found came with git (repl/provenance.hpp),
// asked once, at the first question: only when there is a request. When git
// cannot say, everything counts as having come with it, so nothing runs.
class GitCheck {
 public:
  GitCheck(GitProvenance& provenance, const std::string& path, const std::string& found, bool saved)
      : provenance_(provenance), path_(path), found_(found), saved_(saved) {}

  // Line `found_line` (0-based, in the text found).
  bool came_with_git(std::size_t found_line) { return found_line < ask().committed; }
  const std::string& why() { return ask().why; }

 private:
  const Provenance& ask() {
    if (!answer_) {
      auto asked = provenance_.of(path_, found_, split_lines(found_), saved_);
      answer_ = asked ? *asked
                      : Provenance{std::numeric_limits<std::size_t>::max(),
                                   "git could not tell whether it came with a commit (" + asked.error().message + ")"};
    }
    return *answer_;
  }

  GitProvenance& provenance_;
  const std::string& path_;
  const std::string& found_;
  bool saved_;
  std::optional<Provenance> answer_;
};

}  // namespace

// The edit that replaces the appended text (`a.old`) with `now`; nullopt
// when `now` is what is there already.
Result<std::optional<FileChange>> Repl::rewrite_tail(Page& p, const Appended& a, Lines now) {
  while (!now.empty() && now.back().empty()) now.pop_back();
  if (a.old == now) return std::optional<FileChange>();
  if (a.old.empty()) return Failure{Error::log_conflict, "nothing appended"};
  p.log->will_write();
  auto done = p.log->chat.replace(a.old, now);
  if (!done) return done.error();
  return std::optional<FileChange>(std::move(*done));
}

// The requests in what was appended to `seen`, accepted (the footer goes,
// missing headers are written in) and numbered; the caller submits them.
std::vector<std::shared_ptr<Repl::Job>> Repl::take_requests(Page& p, const std::string& seen, const std::string& found,
                                                            const std::string& agent, bool saved) {
  const Appended a = read_appended(seen, found, p.log->draft);
  p.log->draft.clear();
  if (a.edited_above) {
    log_line(p.log->path() + " was edited above its end; nothing there is run");
    return {};
  }
  if (a.tail.empty()) return {};
  if (a.scan.draft) {
    // A fence is still open: nothing runs, and the footer goes below the
    // draft, so the log's end is the anchor again. The draft may still be
    // finished in place.
    p.log->draft = a.tail;
    if (a.had_footer) {
      Lines now = a.before;
      now.insert(now.end(), a.tail.begin(), a.tail.end());
      now.insert(now.end(), {"", std::string(footer)});
      if (auto done = rewrite_tail(p, a, now); done && *done) p.log->keep(std::move(**done));
    }
    return {};
  }
  // Text that came with git never runs.
  GitCheck git(provenance_, p.log->path(), found, saved);
  Accepted accepted = accept_requests(
      a, agent, p.stem,
      [&](const std::string& who, const std::string& at) {
        return request_header(who, p.stem, at.empty() ? clock_text(wall::now()) : at);
      },
      [&](const Request& r) -> std::optional<std::string> {
        if (git.came_with_git(a.origin[r.blocks.front().first])) return not_run_note(p.stem, git.why());
        return std::nullopt;
      });
  // Headers that start nothing (a reply someone else wrote, a request with
  // no block) get a note under the appended text, unless git brought them
  // (history, like the requests it brings).
  std::vector<Unrun> unrun = unrun_headers(a);
  std::erase_if(unrun, [&](const Unrun& u) { return git.came_with_git(a.origin[u.line]); });
  Lines notes;
  for (std::string& n : unrun_notes(unrun)) notes.insert(notes.end(), {"", std::move(n)});
  if (accepted.requests.empty() && accepted.refused == 0) {
    // Nothing to run: the text stays as it is, with the notes under it, and
    // the footer goes below it (one footer, the last line; while a job runs
    // it comes back under the reply). What git brought is left as it came.
    if (!git.came_with_git(a.origin[a.tail.size() - 1])) keep_appended(p, a, notes);
    return {};
  }
  Lines& normal = accepted.normal;  // the tail with the headers the agent left out and the notes
  normal.insert(normal.end(), notes.begin(), notes.end());
  if (accepted.requests.empty()) {
    // Nothing runs: the notes go in, and the footer back at the end.
    log_line(p.log->path() + ": " + std::to_string(accepted.refused) +
                     " request(s) that came with git not run (" + git.why() + ")");
    if (!p.running) normal.insert(normal.end(), {"", std::string(footer)});
    if (auto done = rewrite_tail(p, a, normal); done && *done)
      commit(p, {std::move(**done)}, p.stem,
             "page " + p.stem + ": " + std::to_string(accepted.refused) + " request(s) that came with git not run",
             {{record::trailer::kind, "page"}});
    return {};
  }
  return accept(p, a, accepted, found);
}

// Appended text that starts nothing stays, with `notes` under it and the
// footer below.
void Repl::keep_appended(Page& p, const Appended& a, const Lines& notes) {
  Lines now = a.before;
  now.insert(now.end(), a.tail.begin(), a.tail.end());
  now.insert(now.end(), notes.begin(), notes.end());
  if (!p.running) now.insert(now.end(), {"", std::string(footer)});
  auto done = rewrite_tail(p, a, now);
  if (!done || !*done) return;
  if (notes.empty()) {
    p.log->keep(std::move(**done));  // committed with the next exchange
    return;
  }
  log_line(p.log->path() + ": appended headers that start nothing, noted in the log");
  commit(p, {std::move(**done)}, p.stem, "page " + p.stem + ": a note on text appended to its log",
         {{record::trailer::kind, "page"}});
}

// The accepted requests become jobs, numbered now so the request's commit
// names them as the eval op's does. The footer goes (it comes back under the
// last reply), and missing headers are written in, in one edit of the
// agent's text. The text as saved is committed first, as the repository
// user's (the git layer's earlier state), when nobody committed it.
std::vector<std::shared_ptr<Repl::Job>> Repl::accept(Page& p, const Appended& a, Accepted& accepted,
                                                     const std::string& found) {
  std::vector<std::shared_ptr<Job>> jobs;
  std::string numbers;
  for (AcceptedRequest& r : accepted.requests) {
    auto job = std::make_shared<Job>();
    job->agent = std::move(r.agent);
    job->from_log = true;
    job->timeout = opt_.timeout;
    job->segments = std::move(r.segments);
    job->codes = std::move(r.codes);
    job->id = next_job_++;
    numbers += (numbers.empty() ? "" : ", ") + std::to_string(job->id);
    jobs.push_back(std::move(job));
  }
  std::vector<std::pair<std::string, std::string>> trailers{{record::trailer::kind, "request"},
                                                            {record::trailer::agent, header_name(jobs.front()->agent)}};
  for (const auto& job : jobs) trailers.emplace_back(record::trailer::job, std::to_string(job->id));
  std::vector<FileChange> files;
  auto done = rewrite_tail(p, a, accepted.normal);
  if (!done) {
    log_line("the request in " + p.log->path() + " could not be accepted: " + done.error().message);
    return {};
  }
  if (*done) {
    files.push_back(std::move(**done));
  } else {
    // Nothing to change: the text as saved is what is committed (an agent's
    // edit run commits its own first).
    p.log->will_write();
    auto text = std::make_shared<const std::string>(found);
    files.push_back(FileChange{p.log->path(), text, text});
  }
  commit(p, std::move(files), jobs.front()->agent,
         "request: " + header_name(jobs.front()->agent) + " to " + p.stem + (jobs.size() == 1 ? ", job " : ", jobs ") +
             numbers,
         std::move(trailers), [this, id = p.id, jobs](const std::string& c) { requested(id, jobs, c); },
         [&] {
           Exchange e;
           for (const auto& job : jobs) e.opens.push_back(p.stem + "/" + std::to_string(job->id));
           e.headline = code_headline(jobs.front()->codes.front());
           e.takes_save = true;
           return e;
         }());
  return jobs;
}

namespace {
bool contains_lines(const Lines& hay, const Lines& needle) {
  if (needle.empty()) return true;
  return std::search(hay.begin(), hay.end(), needle.begin(), needle.end()) != hay.end();
}
}  // namespace

// The chat-log recovery rules, against the log as it is now: a request edited
// after it was accepted is cancelled; a running job whose announcement was
// edited away gets it back under its request.
void Repl::check_jobs(Page& p) {
  auto now = p.log->chat.read();
  if (!now || !*now) return;
  const Lines lines = split_lines(**now);
  const std::string edited = "the request was edited in " + p.log->path() +
                             " after the gateway accepted it, so it does not run; append it again to run it";
  std::vector<std::shared_ptr<Job>> queued(p.queue.begin(), p.queue.end());
  for (auto& job : queued) {
    if (!job->from_log) continue;
    for (const Lines& seg : job->segments)
      if (!contains_lines(lines, seg)) {
        fail(p, *job, Error::request_edited, edited);
        break;
      }
  }
  const Lines& active = p.log->active;
  if (!p.running || p.running->silent || active.empty()) return;
  std::shared_ptr<Job> job = p.running;
  for (std::size_t k = job->from_log ? job->index : 0; k < job->segments.size(); ++k)
    if (!contains_lines(lines, job->segments[k])) return fail(p, *job, Error::request_edited, edited);
  if (contains_lines(lines, active)) return;
  const Lines& request = job->segments[job->from_log ? job->index : 0];
  // What is left of the announcement under the request goes with it.
  Lines old = request;
  {
    auto at = std::search(lines.begin(), lines.end(), request.begin(), request.end()) + static_cast<std::ptrdiff_t>(request.size());
    auto end = at;
    while (end != lines.end() && end->empty()) ++end;
    if (end != lines.end() && *end == active.front()) {
      while (end != lines.end() && (end->empty() || std::find(active.begin(), active.end(), *end) != active.end()))
        ++end;
      while (end != at && (end - 1)->empty()) --end;
      old.insert(old.end(), at, end);
    }
  }
  Lines with = request;
  with.push_back("");
  with.insert(with.end(), active.begin(), active.end());
  p.log->will_write();
  if (auto done = p.log->chat.replace(old, with)) {
    log_line("job " + std::to_string(job->id) + ": its announcement in " + p.log->path() +
                     " was edited; put back under its request");
    p.log->keep(std::move(*done));
    return;
  }
  p.log->active.clear();
  p.log->note({"> _job " + std::to_string(job->id) + "'s announcement was edited away and could not be put back under "
                "its request, so the job was cancelled_"});
  fail(p, *job, Error::log_conflict, "the executing announcement was edited away and could not be put back");
}


void Repl::mark_interrupted() {
  DIR* dir = ::opendir((ws_.root() + "/debug").c_str());
  if (!dir) return;
  std::vector<std::string> files;
  while (dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".md") == 0) files.push_back(name);
  }
  ::closedir(dir);
  std::sort(files.begin(), files.end());
  for (const std::string& file : files) mark_interrupted_in(file);
}

// One log's executing placeholders, each with its announcement, become
// replies saying the job was interrupted, in one commit.
void Repl::mark_interrupted_in(const std::string& file) {
  ChatLog log(ws_, "debug/" + file);
  auto text = log.read();
  if (!text || !*text) return;
  const Lines lines = split_lines(**text);
  std::vector<FileChange> changes;
  std::size_t jobs = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!is_placeholder(lines[i])) continue;
    // Its announcement: the nearest header above, with no duration yet.
    std::size_t j = i;
    std::optional<Header> h;
    while (j > 0 && !(h = parse_header(lines[--j]))) {}
    if (!h || !h->suffix.empty()) continue;
    Lines old(lines.begin() + static_cast<std::ptrdiff_t>(j), lines.begin() + static_cast<std::ptrdiff_t>(i + 1));
    if (auto done = log.replace(old, interrupted_reply(*h, clock_text(wall::now())), true)) {
      changes.push_back(std::move(*done));
      ++jobs;
    }
  }
  if (changes.empty()) return;
  if (!ends_with_footer(log.tail()))
    if (auto done = log.append({"", std::string(footer)})) changes.push_back(std::move(*done));
  const std::string stem = file.substr(0, file.size() - 3);
  log_line(log.path() + ": " + std::to_string(jobs) +
                   " job(s) left executing by a stopped gateway, marked interrupted");
  CommitItem item;
  item.files = std::move(changes);
  item.author = page_identity(stem);
  item.summary = "page " + stem + ": " + std::to_string(jobs) + " job(s) interrupted by a gateway restart";
  item.trailers = {{record::trailer::kind, "page"}, {record::trailer::page, stem}};
  committer_.submit(std::move(item));
}

}  // namespace repl
