// The agents' WebSocket protocol (an nREPL/Jupyter-like shape), without the
// socket: the agents' WebSocket hands each text message of an authenticated
// connection to its OpDispatcher, which parses it, looks the op up in the
// op table, bounds and tracks the connection's requests, dispatches it
// (ops/dispatch.hpp), and sends the replies with the request's id and
// session.
#pragma once

#include "services/error.hpp"
#include "services/gateway.hpp"
#include "ops/table.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ops {

// The first message of a connection: {"type":"auth","cookie":"..."}, and
// "resume":"<session id>" to take a session back: that id ("" for none).
services::Result<std::string> check_auth(std::string_view text, std::string_view cookie);

// A request message read as an envelope and parameters: its op exists in
// the table, its session (if any) is a session id. Its parameters are
// checked by dispatch (ops/dispatch.hpp), as every door's are. What
// OpDispatcher::handle does before it dispatches; on its own for the fuzzer.
struct CheckedRequest {
  boost::json::object msg;
  boost::json::object echo;        // id and session, as the client sent them
  boost::json::object params;      // msg without its envelope (op, session, and an id the op does not take)
  std::string_view op;             // the op's name in the table; empty on failure
  std::optional<services::Failure> failure;  // the error reply, echoing `echo`
};
CheckedRequest check_request(std::string_view text);
// The same for a message parsed already: parse_message is check_request's
// first step (bad_json for text that is not a JSON object).
services::Result<boost::json::object> parse_message(std::string_view text);
CheckedRequest check_message(boost::json::object msg);

class OpDispatcher : public std::enable_shared_from_this<OpDispatcher> {
 public:
  // `send` queues one text message; it is called on `ex` only, which is
  // also where handle() and end() must be called.
  using Send = std::function<void(std::string)>;
  // `dashboard`: the dashboard's connection and its session's grade
  // (ConnectionState::dashboard and ::person).
  OpDispatcher(services::Gateway& gateway, boost::asio::any_io_executor ex, std::string id, Send send,
               std::optional<services::Grade> dashboard = std::nullopt);

  const std::string& id() const { return conn_->id; }

  // Right after the auth message: the connection starts in session
  // `resume` when it can take it back, else in a new one (the message
  // says why not). The session-started message; too_many_sessions when no
  // session can be made.
  services::Result<boost::json::object> start_session(const std::string& resume);

  // One message from the client. Every problem gets an error reply; none
  // ends the connection. A legacy message ({"type":...}, ops/legacy.hpp)
  // is the same request, answered in its own shape.
  void handle(std::string_view text);

  // An error reply for a message the socket could not deliver whole (too
  // large, binary).
  void refuse(services::Error code, const std::string& message);

  // The connection is ending (closed, or the gateway stops): each streamed
  // edit still open commits the blocks it applied. With `report`, each
  // gets a final error reply naming `why` first; then `then` runs on the
  // executor, and no more replies go out.
  void end(services::Error why, bool report, std::function<void()> then = {});

  // One reply, with the request's id and session. Nothing once ended.
  void send(const boost::json::object& echo, boost::json::object body);

  // The request with this id (serialized; "" for none) got its final reply.
  void finished(const std::string& key);
  // A request counted as open (its message `bytes` long) got its final reply.
  void closed(std::size_t bytes);

 private:
  services::Gateway& gw_;
  boost::asio::any_io_executor ex_;
  Send send_;
  bool ending_ = false;  // end() was called: no new requests
  bool ended_ = false;   // no replies either
  std::shared_ptr<ConnectionState> conn_;
  // The ids of requests that have not had their final reply, with their op:
  // a later request under one of them must not end it. No more than the
  // open requests below.
  std::map<std::string, std::string> running_;
  // The requests that have not had their final reply, and their messages'
  // bytes: ServeLimits::ws_open_requests and ws_open_request_bytes bound
  // them, and with them running_.
  std::size_t open_ = 0, open_bytes_ = 0;
  bool room_for(std::size_t bytes) const;
};

}  // namespace ops
