// The gateway's own files in the workspace, under .editgate/ (mode 0700,
// listed in .git/info/exclude so they are never committed):
//   lock    locked (an OFD lock) while a gateway serves the workspace; names its pid and URL
//   cookie  the agents' secret: 128 random bits as hex, mode 0600, kept across restarts
//   port    the port number while the gateway runs, as nREPL writes .nrepl-port
//   server.json  while it runs, what a client needs to connect and to tell a
//                stale gateway (URLs, pid, workspace, a nonce new per start)
//   page-keys     SHA-256 hashes of the pages' secrets (repl/page_keys.hpp)
//   node-page.id  the built-in Node page's instance id and secret, mode 0600
#pragma once

#include "gateway/error.hpp"

#include <string>

namespace gateway {

class StateDir {
 public:
  // Creates the folder, takes the lock (Error::in_use naming the holder when
  // another gateway has it) and reads or creates the cookie.
  static Result<StateDir> open(const std::string& root);

  StateDir(StateDir&& other) noexcept;
  StateDir& operator=(StateDir&&) = delete;
  StateDir(const StateDir&) = delete;
  ~StateDir();  // removes the port and server files; the lock goes with the descriptor

  const std::string& path() const { return dir_; }
  const std::string& cookie() const { return cookie_; }

  // Writes server.json (`server`, a JSON text) and the port file, and
  // records the URL in the lock file.
  Result<void> publish(unsigned short port, const std::string& url, const std::string& server);

 private:
  StateDir(std::string dir, int lock_fd, std::string cookie);

  std::string dir_;
  int lock_fd_ = -1;
  std::string cookie_;
  bool published_ = false;
};

// The workspace of a command that talks to a running gateway (eval, wait,
// pages): `root` when the user gave --root (empty when not); else the
// nearest folder, the current one or one above it, that holds .editgate/,
// as git finds .git. Error::not_found ("no gateway is running (...)") when
// there is none.
Result<std::string> client_root(const std::string& root);

// Whether a gateway serves `root`: its lock is held, asked without taking
// it. Error::not_found says why none runs ("no gateway is running (...)"),
// a port file left by a gateway that was killed included.
Result<void> gateway_running(const std::string& root);

// The cookie and port of the gateway serving `root`, read from .editgate/,
// for clients (the tests, `editgate eval`): Error::not_found when none runs
// (as gateway_running) or it has not published its port yet, Error::io when
// the files are damaged.
struct Published {
  std::string cookie;
  unsigned short port = 0;
};
Result<Published> read_published(const std::string& root);

}  // namespace gateway
