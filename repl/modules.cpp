#include "repl/modules.hpp"

#include <boost/json/object.hpp>

#include <algorithm>

namespace repl {

namespace {

std::string_view stem(std::string_view path) {
  if (const std::size_t slash = path.rfind('/'); slash != std::string_view::npos) path.remove_prefix(slash + 1);
  if (const std::size_t dot = path.rfind('.'); dot != std::string_view::npos && dot > 0) path = path.substr(0, dot);
  return path;
}

}  // namespace

void Modules::loaded(LoadedModule m) {
  std::erase_if(all_, [&](const LoadedModule& e) { return e.path == m.path; });
  if (all_.size() >= most) {
    all_.pop_front();
    ++forgotten_;
  }
  all_.push_back(std::move(m));
}

const LoadedModule* Modules::find(std::string_view name) const {
  for (const LoadedModule& m : all_)
    if (m.path == name) return &m;
  const LoadedModule* found = nullptr;
  for (const LoadedModule& m : all_) {
    if (stem(m.path) != name) continue;
    if (found) return nullptr;  // two files of that name: only the path tells them apart
    found = &m;
  }
  return found;
}

bool Modules::unload(std::string_view name) {
  const LoadedModule* m = find(name);
  if (!m) return false;
  const std::string path = m->path;
  std::erase_if(all_, [&](const LoadedModule& e) { return e.path == path; });
  return true;
}

void Modules::clear() { all_.clear(); }

boost::json::array Modules::listed(std::chrono::system_clock::time_point now) const {
  boost::json::array out;
  for (const LoadedModule& m : all_) {
    const auto secs = std::chrono::duration_cast<std::chrono::seconds>(m.loaded.time_since_epoch()).count();
    out.push_back(boost::json::object{{"name", std::string(stem(m.path))},
                                      {"source_file", m.path},
                                      {"load_time", secs},
                                      {"load_ms", m.load_ms},
                                      {"time_ago", time_ago(now - m.loaded)},
                                      {"blob", m.blob}});
  }
  return out;
}

std::string time_ago(std::chrono::system_clock::duration d) {
  using namespace std::chrono;
  const auto s = std::max<long long>(0, duration_cast<seconds>(d).count());
  if (s < 60) return std::to_string(s) + "s ago";
  if (s < 3600) return std::to_string(s / 60) + "m ago";
  if (s < 86400) return std::to_string(s / 3600) + "h ago";
  return std::to_string(s / 86400) + "d ago";
}

}  // namespace repl
