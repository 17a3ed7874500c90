#include "record/repl_ref.hpp"

#include "record/trailers.hpp"

#include "git/message.hpp"

#include <pwd.h>
#include <unistd.h>

#include <climits>
#include <sstream>
#include <cstdlib>

namespace record {

std::string repl_ref(const editgit::Repository& repo) {
  // getpwuid_r: the commit queue, the pusher and the worker ask on their own threads.
  std::string login;
  passwd pw{};
  passwd* found = nullptr;
  char buf[4096];
  if (::getpwuid_r(::getuid(), &pw, buf, sizeof buf, &found) == 0 && found && found->pw_name) login = found->pw_name;
  std::string name;
  for (char c : login)
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')
      name += c;
  // A ref's name has no "..", and no part that starts with '.' or ends in ".lock".
  for (std::size_t at; (at = name.find("..")) != std::string::npos;) name.erase(at, 1);
  if (name.empty() || name.front() == '.' || name.front() == '-') name = "user" + name;
  char host[HOST_NAME_MAX + 1] = "localhost";
  ::gethostname(host, sizeof host - 1);
  std::string root = repo.workdir() + repo.prefix();
  if (char* real = ::realpath(root.c_str(), nullptr)) {
    root = real;
    std::free(real);
  }
  // Any stable hash serves: a blob's id is one git already computes.
  const std::string id = editgit::blob_id(std::string(host) + '\0' + root);
  return "refs/editgate/repl/" + name + "-" + id.substr(0, 8);
}

std::optional<std::string> repl_tree_path(std::string_view path) {
  if (path.starts_with(repl_folder)) return std::string(path.substr(sizeof repl_folder - 1));
  if (path.starts_with(archive_folder))
    return std::string(archive_in_tree) + std::string(path.substr(sizeof archive_folder - 1));
  return std::nullopt;
}

std::string repl_workspace_path(std::string_view path) {
  if (path.starts_with(archive_in_tree))
    return std::string(archive_folder) + std::string(path.substr(sizeof archive_in_tree - 1));
  return std::string(repl_folder) + std::string(path);
}

namespace {

bool ends_with(std::string_view s, std::string_view end) { return s.size() > end.size() && s.ends_with(end); }

// The files of debug/ and debug-archive/ that are the REPL's: a project's
// own files there are never taken, untracked or hidden.
bool a_log(std::string_view below) {
  return below.find('/') == std::string_view::npos && (ends_with(below, ".md") || ends_with(below, ".events.log"));
}
bool an_archived_result(std::string_view below) {
  return below.find('/') == std::string_view::npos && ends_with(below, ".json");
}

}  // namespace

editgit::Result<MovedAside> move_repl_aside(editgit::Repository& repo) {
  MovedAside out;
  out.ref = repl_ref(repo);
  const std::string at = "/" + repo.prefix();
  for (const std::string& pattern : {at + repl_folder + "*.md", at + repl_folder + "*.events.log",
                                     at + archive_folder + "*.json"})
    if (auto ex = repo.exclude(pattern); !ex) return ex.error();
  const editgit::Identity editgate{"editgate", "editgate@editgate.invalid"};
  auto head = repo.ref_tip("HEAD");
  if (!head) return head.error();
  if (head->empty()) return out;
  const std::string in_archive(archive_in_tree, sizeof archive_in_tree - 2);  // "archive"
  auto taken = repo.take_from_head(
      out.ref, {{repl_folder, "", a_log}, {archive_folder, in_archive, an_archived_result}}, editgate,
      editgit::compose_message("repl: the chat logs as the branch had them at " + head->substr(0, 12), "",
                               {{trailer::kind, "from-branch"}, {trailer::branch, *head}}));
  if (!taken) return taken.error();
  out.taken = taken->commit;
  if (taken->paths.empty()) return out;
  auto tip = repo.ref_tip(out.ref);
  if (!tip) return tip.error();
  editgit::Trailers trailers{{trailer::kind, "repl-aside"}};
  if (!tip->empty()) trailers.emplace_back(trailer::repl, *tip);
  std::string body = "The chat logs stay on disk, ignored through .git/info/exclude; every exchange is committed on\n" +
                     out.ref + " (`editgate log --repl`). Untracked here:\n";
  for (const std::string& p : taken->paths) body += "- " + p + "\n";
  auto untracked = repo.untrack(
      taken->paths, editgate,
      editgit::compose_message("editgate: the chat logs leave the branch; their history goes on at " + out.ref, body,
                               trailers));
  if (!untracked) return untracked.error();
  out.untracked = *untracked;
  out.paths = std::move(taken->paths);
  return out;
}

std::string run_record_message(RunReport report, const std::string& door, const std::string& agent, bool dry_run,
                               const editgit::Repository& repo) {
  constexpr std::size_t max_body = 16 * 1024;
  for (editproto::BlockResult& b : report.blocks) {
    auto tracked = b.path.empty() ? editgit::Result<std::string>(std::string()) : repo.head_blob(b.path);
    if (!tracked || tracked->empty()) b.diagnostic = "(the diagnostic quotes a file the branch does not track: not kept)";
  }
  std::ostringstream text;
  print_text(text, report, false);
  std::string body = text.str();
  if (body.size() > max_body) {
    std::size_t cut = max_body;
    while (cut > 0 && (static_cast<unsigned char>(body[cut]) & 0xc0) == 0x80) --cut;  // whole characters
    body = body.substr(0, cut) + "\n… (the report goes on for " + std::to_string(body.size() - cut) + " bytes)\n";
  }
  const std::string summary = std::string(dry_run ? "check" : "run") + " by " + agent + " (" + door +
                              "): " + counts(report.blocks) +
                              (report.commit_error ? ", commit failed" : report.commit ? ", committed" : "");
  editgit::Trailers trailers{{trailer::kind, "run"}, {trailer::agent, agent}};
  if (!report.session.empty()) trailers.emplace_back(trailer::session, report.session);
  return editgit::compose_message(summary, body, trailers);
}

std::string with_repl_link(std::string message, const editgit::Repository& repo) {
  auto tip = repo.ref_tip(repl_ref(repo));
  if (!tip || tip->empty()) return message;
  if (!message.empty() && message.back() != '\n') message += '\n';
  return message + trailer::repl + ": " + *tip + "\n";
}

}  // namespace record
