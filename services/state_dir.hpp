// The gateway's own files, in the workspace's per-user state folder (mode
// 0700, outside every workspace: services/places.hpp):
//   root    the workspace this folder belongs to
//   lock    locked (an OFD lock) while a gateway serves the workspace; names its pid and URL
//   cookie  the agents' secret: 128 random bits as hex, mode 0600, kept across restarts
//   port    the port number while the gateway runs, as nREPL writes .nrepl-port
//   server.json  while it runs, what a client needs to connect and to tell a
//                stale gateway (URLs, pid, workspace, a nonce new per start)
//   page-keys     SHA-256 hashes of the pages' secrets (repl/page_keys.hpp)
//   node-page.id  the built-in Node page's instance id and secret, mode 0600
//   node-page.cjs the Node page's program, tail-journal (repl/tail_journal.hpp),
//                 serve.log (the output of a gateway `editgate mcp` started)
#pragma once

#include "services/error.hpp"
#include "services/places.hpp"

#include <string>

namespace services {

class StateDir {
 public:
  // Creates the folder, takes the lock (Error::in_use naming the holder when
  // another gateway has it), reads or creates the cookie, and removes the
  // state folders of workspaces that no longer exist.
  static Result<StateDir> open(const Places& places);

  StateDir(StateDir&& other) noexcept;
  StateDir& operator=(StateDir&&) = delete;
  StateDir(const StateDir&) = delete;
  ~StateDir();  // removes the port and server files; the lock goes with the descriptor

  const std::string& path() const { return dir_; }
  const std::string& cookie() const { return cookie_; }

  // Makes the agents' folder (services/places.hpp) and locks it too: the
  // workspace's one gateway is the one that holds both, also against a
  // gateway started with another state home (XDG_STATE_HOME), which would
  // take the same inbox. Error::in_use naming the holder.
  Result<void> hold_agents(const std::string& agents);

  // Writes server.json (`server`, a JSON text) and the port file, and
  // records the URL in the lock files.
  Result<void> publish(unsigned short port, const std::string& url, const std::string& server);

 private:
  StateDir(std::string dir, int lock_fd, std::string cookie);

  std::string dir_;
  int lock_fd_ = -1;
  int agents_lock_fd_ = -1;
  std::string cookie_;
  bool published_ = false;
};

// Whether a gateway serves `root`: its lock is held, asked without taking
// it. Error::not_found says why none runs ("no gateway is running (...)"),
// a port file left by a gateway that was killed included.
Result<void> gateway_running(const std::string& root);

// The cookie and port of the gateway serving `root`, read from its state folder,
// for clients (the tests, `editgate eval`): Error::not_found when none runs
// (as gateway_running) or it has not published its port yet, Error::io when
// the files are damaged.
struct Published {
  std::string cookie;
  unsigned short port = 0;
};
Result<Published> read_published(const std::string& root);

}  // namespace services
