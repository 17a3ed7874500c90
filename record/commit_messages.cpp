#include "record/commit_messages.hpp"

#include "git/message.hpp"
#include "record/run_report.hpp"
#include "record/trailers.hpp"

#include <algorithm>
#include <cstdio>
#include <random>

namespace record {

using editproto::BlockResult;
using editproto::Reason;
using editproto::Status;
using editgit::message_line;

namespace {

editgit::Trailers trailers(std::string_view kind, const std::string& agent, const std::string& session) {
  return {{trailer::agent, agent}, {trailer::session, session}, {trailer::kind, std::string(kind)}};
}

// "a, b, c and 2 more": a summary line stays readable in `git log --oneline`.
std::string list_paths(const std::vector<std::string>& paths) {
  std::string out;
  const std::size_t shown = paths.size() > 4 ? 3 : paths.size();
  for (std::size_t i = 0; i < shown; ++i) out += (i ? ", " : "") + paths[i];
  if (shown < paths.size()) out += " and " + std::to_string(paths.size() - shown) + " more";
  return out;
}

}  // namespace

std::string edit_message(const std::vector<BlockResult>& blocks, const std::string& agent,
                         const std::string& session) {
  std::vector<std::string> paths;
  for (const BlockResult& r : blocks)
    if (r.status == Status::applied && std::find(paths.begin(), paths.end(), r.path) == paths.end())
      paths.push_back(r.path);
  std::string body;
  for (const BlockResult& r : blocks) {
    body += "block " + std::to_string(r.index + 1) + " " + std::string(editproto::to_string(r.status));
    if (r.reason != Reason::none && editproto::to_string(r.reason) != editproto::to_string(r.status))
      body += " (" + std::string(editproto::to_string(r.reason)) + ")";
    if (!r.path.empty()) body += ": " + message_line(r.path);
    if (!r.path.empty() && r.line) body += ":" + std::to_string(*r.line);
    body += "\n";
  }
  return editgit::compose_message("edit " + list_paths(paths) + " (" + counts(blocks) + ")", body,
                                  trailers("edit", agent, session));
}

std::string earlier_message(const std::vector<std::string>& paths, const std::string& agent,
                            const std::string& session) {
  return editgit::compose_message(
      "save uncommitted changes to " + list_paths(paths),
      "These files had changes that were not committed when " + message_line(agent) +
          " edited them. This commit records them as they were, so the next commit shows only the agent's edit.",
      trailers("earlier-state", agent, session));
}

std::string interrupted_message(const std::vector<std::string>& paths, const std::vector<std::string>& mixed,
                                const std::string& agent, const std::string& session) {
  std::string body = "An edit run by " + message_line(agent) +
                     " wrote these files and stopped before it committed them (it was killed, or its commit "
                     "failed). The next run found its journal and records the files as that run left them.";
  if (!mixed.empty())
    body += "\n\n" + list_paths(mixed) + " had uncommitted changes before that run; this commit holds them too.";
  return editgit::compose_message("edit " + list_paths(paths) + " (left by an interrupted run)", body,
                                  trailers("edit", agent, session));
}

std::string undo_message(const editgit::CommitInfo& undone, const std::string& agent, const std::string& session) {
  editgit::Trailers t = trailers("undo", agent, session);
  t.emplace_back(trailer::undoes, undone.id);
  return editgit::compose_message("undo: " + undone.summary, "This reverts commit " + undone.id + ".", t);
}

std::string new_session_id() {
  std::random_device rd;
  std::uint64_t v = (std::uint64_t{rd()} << 32) ^ rd();
  char buf[17];
  std::snprintf(buf, sizeof buf, "%012llx", static_cast<unsigned long long>(v & 0xffffffffffffULL));
  return buf;
}

}  // namespace record
