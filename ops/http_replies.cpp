#include "ops/http_replies.hpp"

#include <boost/json.hpp>

namespace ops {

namespace json = boost::json;

namespace {

class JsonReplies final : public services::Replies {
 public:
  JsonReplies(std::shared_ptr<services::HttpResponder> http, bool gather) : http_(std::move(http)), gather_(gather) {}
  boost::asio::any_io_executor executor() const override { return http_->executor(); }
  void part(json::object body) override { out_.emplace_back(std::move(body)); }
  void done(json::object body) override {
    // An op's status flags are the WebSocket's; HTTP's status is its code.
    json::object answer{{"status", "ok"}};
    for (auto& kv : body)
      if (kv.key() != "status") answer[kv.key()] = std::move(kv.value());
    finish(200, std::move(answer));
  }
  void fail(services::Failure failure, json::object body) override {
    services::mark_http_error(body, failure);
    finish(services::http_status(failure.code), std::move(body));
  }

 private:
  void finish(unsigned status, json::object body) {
    if (gather_) body["out"] = std::move(out_);
    http_->respond(status, "application/json", json::serialize(body) + "\n");
  }
  std::shared_ptr<services::HttpResponder> http_;
  bool gather_;
  json::array out_;
};

}  // namespace

std::shared_ptr<services::Replies> json_replies(std::shared_ptr<services::HttpResponder> http, bool gather) {
  return std::make_shared<JsonReplies>(std::move(http), gather);
}

void NdjsonReplies::begin() {
  begun_ = true;
  http_->begin_stream("application/x-ndjson");
}

void NdjsonReplies::part(json::object body) { http_->stream(json::serialize(body) + "\n"); }

void NdjsonReplies::done(json::object body) { fail_or_done(std::move(body), std::nullopt); }

void NdjsonReplies::fail(services::Failure failure, json::object body) {
  if (!begun_) {
    if (ended_) ended_();
    services::mark_http_error(body, failure);
    return http_->respond(services::http_status(failure.code), "application/json", json::serialize(body) + "\n");
  }
  fail_or_done(std::move(body), std::move(failure));
}

void NdjsonReplies::fail_or_done(json::object body, std::optional<services::Failure> failure) {
  if (ended_) ended_();
  services::mark_final(body, failure);
  http_->end_stream(json::serialize(body) + "\n");
}

}  // namespace ops
