#include "ops/legacy.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

namespace ops {

namespace json = boost::json;

namespace {

// The legacy types, each the op it stands for and the one parameter whose
// name differs (empty when none).
struct LegacyType {
  std::string_view type, op, from, to;
};
constexpr std::array<LegacyType, 8> legacy_types{{
    {"eval", "eval", "expression", "code"},
    {"clear", "clear", "", ""},
    {"bindings", "bindings", "", ""},
    {"load", "load-file", "", ""},
    {"actors", "actors", "", ""},
    {"modules", "modules", "", ""},
    {"kill", "kill", "pid", "actor"},
    {"unload", "unload", "", ""},
}};

std::string type_list() {
  std::string list;
  for (const LegacyType& t : legacy_types) list += (list.empty() ? "" : ", ") + std::string(t.type);
  return list;
}

// What a legacy client keeps of an eval's printing: the page's own bound
// on a job's events, so gathering never holds more than the job did.
constexpr std::size_t max_output_bytes = 1u << 20;

class LegacyReplies final : public services::Replies {
 public:
  LegacyReplies(boost::asio::any_io_executor ex, std::function<void(json::object)> send, std::function<void()> finished)
      : ex_(std::move(ex)), send_(std::move(send)), finished_(std::move(finished)) {}
  boost::asio::any_io_executor executor() const override { return ex_; }

  void part(json::object body) override {
    if (const json::value* out = body.if_contains("out"); out && out->is_string()) {
      const std::string_view text = out->get_string();
      std::size_t take = std::min(max_output_bytes - std::min(max_output_bytes, output_.size()), text.size());
      // Cut at a character's start, so the output stays UTF-8.
      while (take < text.size() && take > 0 && (static_cast<unsigned char>(text[take]) & 0xC0) == 0x80) --take;
      output_.append(text.substr(0, take));
      return;
    }
    const json::value* status = body.if_contains("status");
    if (status && status->is_array() && std::find(status->get_array().begin(), status->get_array().end(),
                                                  json::value("need-input")) != status->get_array().end()) {
      json::object ask{{"type", "need-input"}};
      if (const json::value* prompt = body.if_contains("prompt")) ask["prompt"] = *prompt;
      send_(std::move(ask));
    }
  }

  void done(json::object body) override { final_reply("result", std::move(body)); }

  void fail(services::Failure failure, json::object body) override {
    // The message is the one the op's error reply carries ("<code>: <message>",
    // a page's exception as it is), so both shapes read alike.
    mark_final(body, failure);
    json::value message = std::move(body["error"]);
    body.erase("error");
    body["message"] = std::move(message);
    final_reply("error", std::move(body));
  }

 private:
  void final_reply(std::string_view type, json::object body) {
    json::object reply{{"type", type}};
    body.erase("status");
    for (auto& kv : body) reply[kv.key()] = std::move(kv.value());
    if (!reply.contains("output") && !output_.empty()) reply["output"] = std::move(output_);
    send_(std::move(reply));
    if (finished_) finished_();
  }

  boost::asio::any_io_executor ex_;
  std::function<void(json::object)> send_;
  std::function<void()> finished_;
  std::string output_;
};

}  // namespace

bool is_legacy(const json::object& msg) { return msg.contains("type") && !msg.contains("op"); }

services::Result<json::object> from_legacy(json::object msg) {
  const json::value* type = msg.if_contains("type");
  if (!type || !type->is_string())
    return services::Failure{services::Error::bad_request, "a legacy message's \"type\" is a string: " + type_list()};
  const std::string_view name = type->get_string();
  if (name == "auth")
    return services::Failure{services::Error::bad_request, "this connection is authenticated already; auth is its first message only"};
  const auto t = std::find_if(legacy_types.begin(), legacy_types.end(), [&](const LegacyType& l) { return l.type == name; });
  if (t == legacy_types.end())
    return services::Failure{services::Error::unknown_op, "no legacy type \"" + std::string(name) + "\"; the legacy types are " +
                                          type_list() + ", and every op takes the {\"op\":...} form"};
  msg["op"] = t->op;
  msg.erase("type");
  if (!t->from.empty() && msg.contains(t->from) && !msg.contains(t->to)) {
    json::value v = std::move(msg[t->from]);
    msg.erase(t->from);
    msg[t->to] = std::move(v);
  }
  return msg;
}

std::shared_ptr<services::Replies> legacy_replies(boost::asio::any_io_executor ex, std::function<void(json::object)> send,
                                        std::function<void()> finished) {
  return std::make_shared<LegacyReplies>(std::move(ex), std::move(send), std::move(finished));
}

}  // namespace ops
