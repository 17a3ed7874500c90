// The REPL's history stands beside the branch: every chat-log commit goes
// to a ref of its own, never to the branch, so `git log` of the branch shows
// the code changes and the REPL ref keeps every exchange. One ref per
// person, machine and workspace (refs/editgate/repl/<login>-<8 hex>), so
// gateways of two people pushing to one remote never move the same ref.
// The two histories name each other through trailers (record/trailers.hpp):
// an edit commit the REPL commit that was current, a REPL commit the branch
// commit its pages saw.
#pragma once

#include "git/repository.hpp"
#include "record/run_report.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace record {

// The folders of the workspace whose files the REPL ref holds, and where
// in its tree: debug/ is the tree's top, debug-archive/ its archive/.
inline constexpr char repl_folder[] = "debug/";
inline constexpr char archive_folder[] = "debug-archive/";
inline constexpr char archive_in_tree[] = "archive/";

// "refs/editgate/repl/<login>-<8 hex>": the login name (letters, digits,
// '.', '_', '-'), and 8 hex of a hash of the machine's name and the
// workspace's canonical path, `repo`'s root.
std::string repl_ref(const editgit::Repository& repo);

// Where a workspace path lives in the REPL ref's tree; nullopt for a path
// outside its folders.
std::optional<std::string> repl_tree_path(std::string_view workspace_path);
// The workspace path of a path of the REPL ref's tree.
std::string repl_workspace_path(std::string_view tree_path);

// What a gateway's start did to move the REPL's history beside the branch.
struct MovedAside {
  std::string ref;                       // the REPL ref
  std::string taken;                     // its commit of the logs HEAD tracks; "" when none
  std::optional<std::string> untracked;  // the branch commit that stopped tracking them
  std::vector<std::string> paths;        // the logs it stopped tracking
};
// At every start: the REPL's files (debug/*.md, debug/*.events.log,
// debug-archive/*.json) go into .git/info/exclude; when HEAD tracks some (a
// workspace from before, a teammate's commit, the user's own), the REPL ref
// takes those it lacks in one commit, so what was committed stays history
// and never runs, and one commit on the branch stops tracking them (the
// files stay; a project's own other files in those folders are left alone). Error::conflict or locked (a merge in progress, a lock
// held): the branch keeps tracking them until the next start.
editgit::Result<MovedAside> move_repl_aside(editgit::Repository& repo);

// The record of an edit run that the branch does not hold whole (a dry
// run, a failed block, a commit that failed), as the message of a commit on
// the REPL's ref that changes no file (kind `run`): a summary line, the
// run's text report with each block's diagnostic (at most 16 KiB), and the
// agent's and session's trailers. `door`: how it came (POST /v1/edits, the
// inbox, MCP). A block's diagnostic quotes its file: it is kept only for
// files the branch tracks (`repo`'s HEAD), since the REPL's ref is pushed
// and an ignored file (.env) is nobody's to publish.
std::string run_record_message(RunReport report, const std::string& door, const std::string& agent, bool dry_run,
                               const editgit::Repository& repo);

// `message` with the trailer that names the REPL ref's tip, when it has one.
std::string with_repl_link(std::string message, const editgit::Repository& repo);

}  // namespace record
