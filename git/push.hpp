// What pushing the workspace's branch asks and answers (Repository::push,
// in git/push.cpp). Through libgit2's transports: local paths, file://,
// git://, http(s) (a user name and password given here, or written in the
// URL of a remote configured in the repository), ssh with the keys of a
// running ssh-agent. A push never forces: a remote branch that moved on is
// Error::rejected, and the remote is left as it was. Messages never show a
// URL's credentials (git/redact.hpp).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace editgit {

struct PushRequest {
  // A remote configured in the repository ("origin"), or a URL or path.
  std::string remote;
  // Offered once when an http(s) remote asks for a user name and password
  // (after those in the URL, if any); none when both are empty. A user name
  // left empty is the URL's.
  std::string username{}, password{};
  // Refs pushed with the branch, each to the same name there, fast-forward
  // only too (the REPL's ref); one that does not exist here is left out.
  std::vector<std::string> also{};
  // Called now and then while the push makes progress: the pack built and
  // sent, the remote's messages. Unset: nobody asks.
  std::function<void()> alive{};
};

struct Pushed {
  std::string ref;     // the branch pushed, named the same here and there: "refs/heads/main"
  std::string commit;  // what the remote's branch holds now: HEAD's commit when the push began
  // What the remote's branch held before; nullopt when the push created it.
  std::optional<std::string> previous;
  bool up_to_date = false;  // the remote had the commit already: nothing was sent
  std::vector<std::string> also;  // the refs of PushRequest::also pushed with it
  std::string also_error;         // why one of them was not: the branch went all the same
};

}  // namespace editgit
