// The workspace files loaded into a page (load-file), for the modules op.
// A page that connects again starts with none: what they defined went
// with its old context. JavaScript cannot take back what a script defined,
// so unload only forgets the file; clear removes what it defined.
#pragma once

#include <boost/json/array.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

namespace repl {

struct LoadedModule {
  std::string path;  // workspace-relative: the module's name
  std::string blob;  // git blob id of the bytes that ran
  std::chrono::system_clock::time_point loaded;
  std::int64_t load_ms = 0;
};

class Modules {
 public:
  // A page lists at most this many; loading one more forgets the oldest
  // (counted in forgotten()): the list is a record, not work to do.
  static constexpr std::size_t most = 256;

  // Loaded (again): the file's entry moves to the end with its new blob.
  void loaded(LoadedModule m);
  // The module a name stands for: its path, or its file name without the
  // extension when one module has it. Null when none does.
  const LoadedModule* find(std::string_view name) const;
  bool unload(std::string_view name);
  void clear();
  std::size_t forgotten() const { return forgotten_; }
  // [{name, source_file, load_time, load_ms, time_ago, blob}], oldest first.
  boost::json::array listed(std::chrono::system_clock::time_point now) const;

 private:
  std::deque<LoadedModule> all_;
  std::size_t forgotten_ = 0;
};

// "12s ago", "3m ago", "2h ago", "4d ago".
std::string time_ago(std::chrono::system_clock::duration d);

}  // namespace repl
