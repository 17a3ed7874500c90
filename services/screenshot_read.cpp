// read_screenshot: one screenshot's bytes for the dashboard.
#include "services/screenshot_read.hpp"

#include "services/files.hpp"
#include "services/target.hpp"

namespace services {

namespace {

constexpr std::string_view folder = "debug/";
constexpr std::string_view middle = ".screenshots/";
constexpr std::string_view extension = ".png";

bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

bool digits(std::string_view s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

bool screenshot_path(std::string_view path) {
  if (!path.starts_with(folder) || !path.ends_with(extension)) return false;
  path.remove_prefix(folder.size());
  path.remove_suffix(extension.size());
  const std::size_t at = path.find(middle);
  if (at == std::string_view::npos) return false;
  const std::string_view page = path.substr(0, at);
  // A page name never starts with '.' or '-': neither does a folder here.
  return valid_name(page) && alnum(page.front()) && digits(path.substr(at + middle.size()));
}

Result<std::string> read_screenshot(const editproto::Workspace& ws, std::string_view path) {
  if (!screenshot_path(path))
    return Failure{Error::path_refused, "only debug/<page>.screenshots/<n>.png is served here, not '" +
                                            std::string(path.substr(0, 200)) + "'"};
  auto normal = ws.normalize(path);
  if (!normal) return from_engine(normal.error());
  auto real = ws.resolve(*normal);
  if (!real) return from_engine(real.error());
  // The engine follows a symlink that stays inside; a screenshot is the
  // gateway's own file, never reached through one.
  if (*real != *normal) return Failure{Error::path_refused, "'" + *normal + "' goes through a symlink (to '" + *real + "')"};
  auto content = read_whole(ws, *real, max_screenshot_bytes);
  if (!content) return content.error();
  return std::move(content->bytes);
}

}  // namespace services
