#include "realms_follow.hpp"

#include "tests/client.hpp"

#include <boost/json.hpp>

#include <stdexcept>

namespace json = boost::json;
using namespace std::chrono_literals;

namespace realms {

Follow::Follow(unsigned short port, const std::string& cookie, std::string page) : page_(std::move(page)) {
  const std::string origin = "http://127.0.0.1:" + std::to_string(port);
  const client::Response minted = client::request(port, "POST", "/v1/dashboard-url", "{}",
                                                  {{"Authorization", "Bearer " + cookie},
                                                   {"Content-Type", "application/json"}});
  const std::string url = std::string(json::parse(minted.body).at("url").as_string());
  const std::size_t at = url.find("token=");
  if (minted.status != 200 || at == std::string::npos) throw std::runtime_error("dashboard-url: " + minted.body);
  const client::Response signed_in = client::request(port, "GET", "/?token=" + url.substr(at + 6));
  const auto set = signed_in.headers.find("set-cookie");
  if (signed_in.status != 303 || set == signed_in.headers.end())
    throw std::runtime_error("the dashboard's sign-in answered " + std::to_string(signed_in.status));
  const std::string session = set->second.substr(0, set->second.find(';'));
  ws_ = std::make_unique<client::Ws>(port, std::map<std::string, std::string>{{"Origin", origin}, {"Cookie", session}},
                                     "/v1/dashboard");
  for (;;) {
    auto m = ws_->read(30s);
    if (!m) throw std::runtime_error("the dashboard's WebSocket closed before its session started");
    if (m->find("session-started") != std::string::npos) break;
  }
  ws_->send(R"({"op":"watch","id":"watch"})");
  thread_ = std::thread([this] {
    try {
      loop();
    } catch (const std::exception& e) {
      std::lock_guard lock(m_);
      error_ = e.what();
    }
  });
}

Follow::~Follow() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (ws_) {
    try {
      ws_->close();
    } catch (const std::exception&) {
    }
  }
}

std::string Follow::error() const {
  std::lock_guard lock(m_);
  return error_;
}

void Follow::loop() {
  bool fetching = false, again = false;
  std::uint64_t next = 0;
  auto fetch = [&] {
    ws_->send(json::serialize(json::object{{"op", "log"}, {"id", ++next}, {"page", page_}, {"limit_bytes", 65536}}));
    fetching = true;
  };
  while (!stop_) {
    if (!ws_->readable()) {
      std::this_thread::sleep_for(5ms);
      continue;
    }
    auto m = ws_->read(30s);
    if (!m) throw std::runtime_error("the dashboard's WebSocket closed");
    const json::object o = json::parse(*m).as_object();
    if (const json::value* e = o.if_contains("event")) {
      const json::object& event = e->as_object();
      if (event.at("type") == "exchange" && event.contains("page") && event.at("page") == json::value(page_)) {
        if (fetching)
          again = true;
        else
          fetch();
      }
      continue;
    }
    if (!o.contains("status")) continue;
    ++fetches_;
    bytes_ += m->size();
    fetching = false;
    if (std::exchange(again, false)) fetch();
  }
}

}  // namespace realms
