// The dashboard following one realm's log while the soak runs, as the
// dashboard's page does it: a viewer's sign-in (a token minted with the
// `dashboard` op, spent on `GET /?token=`), the dashboard's WebSocket, the
// `watch` op, and the log's tail fetched (`log`, 64 KiB) at each of the
// watch's `exchange` events for that page, one fetch at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace client {
class Ws;
}

namespace realms {

class Follow {
 public:
  // Signs in and starts following `page`; throws when it cannot.
  Follow(unsigned short port, const std::string& cookie, std::string page);
  ~Follow();  // stops following
  Follow(const Follow&) = delete;
  Follow& operator=(const Follow&) = delete;

  std::uint64_t fetches() const { return fetches_; }
  std::uint64_t bytes() const { return bytes_; }
  std::string error() const;

 private:
  void loop();
  std::string page_;
  std::unique_ptr<client::Ws> ws_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> fetches_{0}, bytes_{0};
  mutable std::mutex m_;
  std::string error_;
  std::thread thread_;
};

}  // namespace realms
