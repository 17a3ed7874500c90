// Where editgate keeps what it keeps for a workspace, and how a command
// finds its workspace. Nothing lives in the working tree, where a commit,
// a checkout or a pull can put files and a dev server hands them out:
//
//   state   per user, outside every workspace, mode 0700:
//           ${XDG_STATE_HOME:-~/.local/state}/editgate/workspaces/<name>-<id>/
//           the lock, the cookie, port and server.json, the page keys, the
//           Node page's id and program, the tail journal, serve.log, and
//           `root` (the workspace it belongs to). Secrets and the gateway's
//           own state: nothing a repository carries is read as any of it.
//   agents  <gitdir>/editgate/ (.git/editgate/ in a plain clone; a
//           workspace below the repository's top: <name>-<id>/ in it): what
//           agents that only read and write files use — pages/<page>/
//           status files and markers, inbox/, outbox/. Git never transfers
//           a git folder's contents, so no commit can put anything there;
//           nothing in it authenticates to any door.
//
// `editgate where` prints them (cli/where.cpp).
#pragma once

#include "services/error.hpp"

#include <string>

namespace services {

struct Places {
  std::string root;    // the workspace, canonical
  std::string id;      // 16 hex digits of the SHA-256 of `root`
  std::string state;   // the per-user state folder of this workspace
  // <gitdir>/editgate, or <gitdir>/editgate/<name>-<id> for a workspace
  // below its repository's top; "" while the workspace has no repository
  std::string agents;
};

// The port a gateway of this workspace listens on unless told otherwise:
// 8400-8799, from its id, so each project keeps its own port whichever
// starts first, and the tag its tabs carry stays right across restarts.
unsigned short default_port(const std::string& workspace_id);

// What a page includes to join this workspace's gateway at `url`
// ("http://127.0.0.1:8517/"): a script that loads
// <url>adapter.js?workspace=<id>, and loads it again every 2 s until a
// gateway answers, so a tab opened before its gateway starts connects
// without a reload. One line.
std::string page_tag(const std::string& url, const std::string& workspace_id);

// The places of the workspace at `root` (made canonical). Creates nothing.
// Error::not_found when `root` does not exist; Error::io when the user's
// state home cannot be told (no XDG_STATE_HOME, no HOME, no passwd entry).
Result<Places> places_of(const std::string& root);

// ${XDG_STATE_HOME:-~/.local/state}/editgate/workspaces: every
// workspace's state folder is in it.
Result<std::string> state_home();

// The git folder of the repository whose work tree holds `dir` (the
// nearest `.git`, a folder, a link to one or a `gitdir:` file, at `dir` or
// above) and the folder it was found in, the work tree's top; both ""
// when there is none.
struct GitFolder {
  std::string gitdir, top;
};
GitFolder git_folder_of(const std::string& dir);

// The workspace of a command: `given` when the user named one (--root);
// else, from the current folder up to the top of its git repository, the
// nearest folder a gateway has served (it has a state folder), or that
// repository's top as git finds it. Error::not_found, saying what to do,
// outside any repository: nothing is created there unless --root names it.
Result<std::string> find_workspace(const std::string& given);

// Makes `path` a folder only this user reaches (0700), or makes sure it
// is one: Error::io when it is a symlink, another user's, or cannot be made.
Result<void> private_folder(const std::string& path);

// Makes the workspace's state folder, and editgate's folders above it
// (their names are the user's projects), private folders; Error::io when
// another user could rename a folder further up.
Result<void> make_state_folder(const Places& places);

}  // namespace services
