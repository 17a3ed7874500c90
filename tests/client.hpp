// Real clients of the gateway, on Beast, for the tests and the benchmark:
// a gateway process on port 0, plain HTTP requests, a streamed POST
// /v1/edits that sends chunks and reads NDJSON lines as they come, and a
// WebSocket client. Every operation has a deadline, so a gateway that never
// answers fails a test instead of hanging it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace client {

using namespace std::chrono_literals;

// The editgate binary Gateway starts from now on (default: the one built
// beside the tests): a benchmark's --editgate measures another build.
void use_editgate(std::string path);

// `editgate serve --port 0 --root ROOT [extra...]`, started and waited for
// (its port file in the state folder); stopped with SIGTERM when destroyed. Without
// `node`, with --no-node: tests of the edit doors see no page's commits.
// On any free port unless `extra` names one (--port N).
class Gateway {
 public:
  explicit Gateway(const std::string& root, std::vector<std::string> extra = {}, bool node = false);
  ~Gateway();
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  unsigned short port() const { return port_; }
  const std::string& cookie() const { return cookie_; }
  // The workspace's id, as a tab's tag names it (adapter.js?workspace=).
  const std::string& workspace() const { return workspace_; }
  pid_t pid() const { return pid_; }
  // SIGTERM (or `sig`) and the exit code; -1 if it had to be killed.
  int stop(int sig = 15, std::chrono::milliseconds wait = 10s);
  // Waits for the process to end by itself (the shutdown op).
  int wait(std::chrono::milliseconds wait = 10s);
  std::string out() const;  // what it printed
  std::string err() const;

 private:
  std::string root_, log_;
  pid_t pid_ = -1;
  unsigned short port_ = 0;
  std::string cookie_;
  std::string workspace_;
};

struct Response {
  unsigned status = 0;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
};

// One request on a fresh connection.
Response request(unsigned short port, const std::string& method, const std::string& target,
                 const std::string& body = "", const std::map<std::string, std::string>& headers = {});

// Sends raw bytes and returns everything the server sends back until it
// closes (or `wait` passes): for malformed and slow requests.
std::string raw(unsigned short port, const std::string& bytes, std::chrono::milliseconds wait = 15s);

// `n` connections that send nothing, open until destroyed.
class Idle {
 public:
  Idle(unsigned short port, int n);
  ~Idle();
  Idle(const Idle&) = delete;
  Idle& operator=(const Idle&) = delete;

 private:
  std::vector<int> fds_;
};

// POST /v1/edits with a chunked body, written piece by piece.
class EditStream {
 public:
  EditStream(unsigned short port, const std::string& cookie, const std::string& query = "",
             const std::map<std::string, std::string>& headers = {});
  ~EditStream();
  void send(const std::string& piece);  // one chunk, on the wire when this returns
  void end();                           // the last chunk
  unsigned status();                    // the response's status (reads its head)
  // The next NDJSON line; nullopt at the end of the response.
  std::optional<std::string> line(std::chrono::milliseconds wait = 10s);
  std::vector<std::string> rest();  // every line left
  void abort();                     // closes the connection mid-body
  // After the response: true when the server closes the connection within
  // `wait` (end of stream), false when it keeps it open or sends more.
  bool closed_by_server(std::chrono::milliseconds wait = 5s);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A WebSocket on /v1/ws (or on `target`: /v1/page, as a page).
class Ws {
 public:
  explicit Ws(unsigned short port, const std::map<std::string, std::string>& headers = {},
              const std::string& target = "/v1/ws");
  ~Ws();
  // The handshake as a client must do it: auth-required, auth, auth_ok,
  // session-started. Returns the session id.
  std::string login(const std::string& cookie);
  void send(const std::string& text, bool binary = false);
  // The next message; nullopt when the server closed the connection.
  std::optional<std::string> read(std::chrono::milliseconds wait = 10s);
  // Reads until a message with "status" (a final reply); returns all read.
  std::vector<std::string> until_done(std::chrono::milliseconds wait = 10s);
  // Whether the socket takes more bytes within `wait`: false when the
  // server stopped reading and the socket buffers are full.
  bool writable(std::chrono::milliseconds wait);
  // Whether bytes of a message from the server wait to be read: a reply
  // that has come, or begun to.
  bool readable() const;
  // The reason of the server's close frame, once read() returned nullopt.
  std::string close_reason() const;
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The upgrade's answer when the server refuses the handshake: its status.
unsigned ws_refused_status(unsigned short port, const std::map<std::string, std::string>& headers,
                           const std::string& target = "/v1/ws");

}  // namespace client
