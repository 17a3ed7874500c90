// debug.md on disk, the list of pages an agent opens first: written now
// (write), or after a change within `delay`, once for all the changes
// meanwhile (changed): a job's start and end change a page's state many
// times a second under load. Its lines come from whoever holds the pages
// (the REPL's page registry), asked at each write. On the REPL's executor.
#pragma once

#include "editproto/workspace.hpp"
#include "repl/page_registry.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <vector>

namespace repl {

class RegistryFile {
 public:
  using Source = std::function<std::vector<RegistryLine>()>;
  static constexpr std::size_t max_live = 100;  // connected pages listed

  RegistryFile(const editproto::Workspace& ws, boost::asio::any_io_executor ex, std::size_t max_disconnected,
               Source source, std::chrono::milliseconds delay = std::chrono::milliseconds(100));
  RegistryFile(const RegistryFile&) = delete;
  RegistryFile& operator=(const RegistryFile&) = delete;

  void changed();
  void write();
  // A write pending after a change is dropped, and changes wait for no
  // other: a stopping REPL writes its last one itself.
  void stop();

 private:
  const editproto::Workspace& ws_;
  std::size_t max_disconnected_;
  Source source_;
  std::chrono::milliseconds delay_;
  boost::asio::steady_timer timer_;
  bool pending_ = false;
};

}  // namespace repl
