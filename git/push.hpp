// What pushing the workspace's branch asks and answers (Repository::push,
// in git/push.cpp). Through libgit2's transports: local paths, file://,
// git://, http(s) (credentials written in the URL), ssh with the keys of a
// running ssh-agent. A push never forces: a remote branch that moved on is
// Error::rejected, and the remote is left as it was.
#pragma once

#include <optional>
#include <string>

namespace editgit {

struct PushRequest {
  // A remote configured in the repository ("origin"), or a URL or path.
  std::string remote;
};

struct Pushed {
  std::string ref;     // the branch pushed, named the same here and there: "refs/heads/main"
  std::string commit;  // what the remote's branch holds now: HEAD's commit when the push began
  // What the remote's branch held before; nullopt when the push created it.
  std::optional<std::string> previous;
  bool up_to_date = false;  // the remote had the commit already: nothing was sent
};

}  // namespace editgit
