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
  std::string login;
  if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_name) login = pw->pw_name;
  std::string name;
  for (char c : login)
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')
      name += c;
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

editgit::Result<MovedAside> move_repl_aside(editgit::Repository& repo) {
  MovedAside out;
  out.ref = repl_ref(repo);
  for (const char* folder : {repl_folder, archive_folder})
    if (auto ex = repo.exclude("/" + repo.prefix() + folder); !ex) return ex.error();
  const editgit::Identity editgate{"editgate", "editgate@editgate.invalid"};
  auto head = repo.ref_tip("HEAD");
  if (!head) return head.error();
  if (!head->empty()) {
    auto taken = repo.take_from_head(
        out.ref, {{repl_folder, ""}, {archive_folder, "archive"}}, editgate,
        editgit::compose_message("repl: the chat logs as the branch had them at " + head->substr(0, 12), "",
                                 {{trailer::kind, "from-branch"}, {trailer::branch, *head}}));
    if (!taken) return taken.error();
    out.taken = *taken;
  }
  auto tip = repo.ref_tip(out.ref);
  if (!tip) return tip.error();
  editgit::Trailers trailers{{trailer::kind, "repl-aside"}};
  if (!tip->empty()) trailers.emplace_back(trailer::repl, *tip);
  auto untracked = repo.untrack(
      {repl_folder, archive_folder}, editgate,
      editgit::compose_message(
          "editgate: the chat logs leave the branch; their history goes on at " + out.ref,
          "debug/ and debug-archive/ stay on disk, ignored through .git/info/exclude. Every exchange is\n"
          "committed on " + out.ref + " (`editgate log --repl`, `git log " + out.ref + "`).",
          trailers));
  if (!untracked) return untracked.error();
  out.untracked = *untracked;
  return out;
}

std::string run_record_message(const RunReport& report, const std::string& door, const std::string& agent,
                               bool dry_run) {
  constexpr std::size_t max_body = 16 * 1024;
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
