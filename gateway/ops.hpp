// The agents' WebSocket protocol (an nREPL/Jupyter-like shape), without the socket:
// the websocket session hands each text message to an OpSession and writes
// whatever it sends. Ops are listed once, in a table that `describe`
// reports and the dispatcher checks requests against.
#pragma once

#include "gateway/error.hpp"
#include "gateway/gateway.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace editgate {

class EditRun;

// The first message of a connection: {"type":"auth","cookie":"..."}.
Result<void> check_auth(std::string_view text, std::string_view cookie);

// The op table as `describe` reports it: {"ops": {...}, "versions": {...}}.
boost::json::object describe_ops();

// A request message parsed and checked against the op table: its op exists,
// its parameters are there, none is unknown and each has its kind. What
// OpSession::handle does before it runs the op; on its own for the fuzzer.
struct CheckedRequest {
  boost::json::object msg;
  boost::json::object echo;        // id and session, as the client sent them
  std::string_view op;             // the op's name in the table; empty on failure
  std::optional<Failure> failure;  // the error reply, echoing `echo`
};
CheckedRequest check_request(std::string_view text);

class OpSession : public std::enable_shared_from_this<OpSession> {
 public:
  // `send` queues one text message; it is called on `ex` only, which is
  // also where handle() and end() must be called.
  using Send = std::function<void(std::string)>;
  OpSession(Gateway& gateway, boost::asio::any_io_executor ex, std::string id, Send send);
  ~OpSession();

  const std::string& id() const { return id_; }

  // One message from the client. Every problem gets an error reply; none
  // ends the connection.
  void handle(std::string_view text);

  // An error reply for a message the socket could not deliver whole (too
  // large, binary).
  void refuse(Error code, const std::string& message);

  // The connection is ending (closed, or the gateway stops): each streamed
  // edit still open commits the blocks it applied. With `report`, each
  // gets a final error reply naming `why` first; then `then` runs on the
  // executor, and no more replies go out.
  void end(Error why, bool report, std::function<void()> then = {});

  struct Request;
  struct Step;

 private:
  struct Op;
  static const std::vector<Op>& ops();
  friend boost::json::object describe_ops();
  friend CheckedRequest check_request(std::string_view text);

  void reply(const boost::json::object& echo, boost::json::object body);
  void fail(const boost::json::object& echo, Error code, const std::string& message);
  // Sends a step's block messages, and its done reply when the run ended.
  void deliver(const boost::json::object& echo, Step step);

  void op_describe(Request& r);
  void op_health(Request& r);
  void op_edit(Request& r);
  void op_edit_begin(Request& r);
  void op_edit_chunk(Request& r);
  void op_edit_end(Request& r);
  void op_context(Request& r);
  void op_history(Request& r);
  void op_shutdown(Request& r);
  void op_eval(Request& r);
  void op_pages(Request& r);
  void op_interrupt(Request& r);
  void op_complete(Request& r);
  void op_stdin(Request& r);

 public:
  // A REPL answer: `final` ones get status done (or done/error with "error").
  void answer(const boost::json::object& echo, boost::json::object body, bool final);

 private:

  Gateway& gw_;
  boost::asio::any_io_executor ex_;
  std::string id_;
  Send send_;
  bool ending_ = false;  // end() was called: no new requests
  bool ended_ = false;   // no replies either
  // The files this session has seen (the context op, and files added by
  // not_in_context); nullopt until the agent declares any.
  std::optional<std::set<std::string>> context_;
  // Open streamed edits by request id. Engine thread only.
  struct Stream {
    std::unique_ptr<EditRun> run;
    boost::json::object echo;  // of its edit-begin
  };
  std::map<std::string, Stream> streams_;
};

}  // namespace editgate
