#include "mcp/client_name.hpp"

#include "services/target.hpp"

#include <boost/json.hpp>

namespace mcp {

namespace {

constexpr std::size_t most = 64;

bool allowed(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}

}  // namespace

std::string author_from_client(std::string_view name) {
  std::string out;
  bool gap = false;
  for (char c : name) {
    if (out.size() >= most) break;
    if (!allowed(c) || c == '-') {
      gap = true;
      continue;
    }
    if (gap && !out.empty()) out += '-';
    gap = false;
    if (out.size() < most) out += c;
  }
  while (!out.empty() && (out.back() == '-' || out.back() == '.')) out.pop_back();
  while (!out.empty() && (out.front() == '-' || out.front() == '.')) out.erase(0, 1);
  return services::valid_name(out) ? out : std::string();
}

std::string author_from_client_info(const boost::json::value* client_info) {
  if (!client_info || !client_info->is_object()) return {};
  const boost::json::value* name = client_info->get_object().if_contains("name");
  return name && name->is_string() ? author_from_client(name->get_string()) : std::string();
}

}  // namespace mcp
