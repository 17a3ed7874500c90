// What an HTTP connection offers an answer that is not one op's reply (the
// MCP door's): a whole response, or a streamed one. No Beast here, so the
// adapters written on it stay out of the heavy translation units.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace services {

using HttpHeaders = std::vector<std::pair<std::string_view, std::string>>;

// Every call on executor(), and one answer per request: respond(), or
// begin_stream() and stream() any number of times and end_stream(), or
// abort(). After the answer the connection reads its next request.
class HttpResponder {
 public:
  virtual ~HttpResponder() = default;
  virtual boost::asio::any_io_executor executor() const = 0;
  virtual void respond(unsigned status, std::string_view type, std::string body, const HttpHeaders& headers = {}) = 0;
  // A 200 whose body follows in pieces (chunked on HTTP/1.1).
  virtual void begin_stream(std::string_view type, const HttpHeaders& headers = {}) = 0;
  virtual void stream(std::string_view bytes) = 0;
  virtual void end_stream(std::string_view last) = 0;
  // No answer: the connection closes.
  virtual void abort() = 0;
  // The bytes queued for the client and not yet taken by its socket. Any thread.
  virtual std::size_t unsent_bytes() const = 0;
};

}  // namespace services
