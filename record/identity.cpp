#include "record/identity.hpp"

#include <string>

namespace record {

editgit::Identity agent_identity(std::string_view agent) {
  std::string name(agent), local;
  for (char& c : name)
    if (c == '\n' || c == '\r') c = ' ';
  for (char c : agent) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '-' || c == '_';
    local += keep ? c : '-';
  }
  if (local.empty()) local = "agent";
  return {name, local + "@editgate.invalid"};
}

}  // namespace record
