#include "ops/edit_query.hpp"

#include <algorithm>
#include <array>

namespace ops {

namespace {
constexpr std::array<std::string_view, 5> edit_names{"dry_run", "agent", "session", "context", "fuzz"};
}

std::vector<std::string> unknown_edit_params(const services::Target& target) {
  std::vector<std::string> unknown;
  for (const auto& [key, value] : target.params)
    if (std::find(edit_names.begin(), edit_names.end(), key) == edit_names.end() &&
        std::find(unknown.begin(), unknown.end(), key) == unknown.end())
      unknown.push_back(key);
  return unknown;
}

services::Result<services::EditParams> edit_params(const services::Target& target) {
  // Every unknown name at once, before any value is judged: a client fixes
  // its query in one go. Nothing is applied: a typo must not turn a dry run
  // into a real write.
  if (auto unknown = unknown_edit_params(target); !unknown.empty()) {
    std::string names;
    for (std::size_t i = 0; i < unknown.size() && i < 32; ++i) names += (i ? ", '" : "'") + unknown[i] + "'";
    if (unknown.size() > 32) names += " and " + std::to_string(unknown.size() - 32) + " more";
    std::string known;
    for (std::string_view k : edit_names) known += (known.empty() ? "" : ", ") + std::string(k);
    const std::string what = unknown.size() == 1 ? "unknown query parameter " : "unknown query parameters ";
    return services::Failure{services::Error::bad_request, what + names + "; /v1/edits takes " + known + ", and nothing was applied"};
  }
  services::EditParams p;
  for (const auto& [key, value] : target.params) {
    if (key == "dry_run") {
      auto f = services::parse_flag(value);
      if (!f) return services::Failure{services::Error::bad_request, "dry_run must be true, false, 1 or 0, not '" + value + "'"};
      p.dry_run = *f;
    } else if (key == "agent") {
      if (!services::valid_name(value))
        return services::Failure{services::Error::bad_request, "agent must be 1-64 letters, digits, '.', '_' or '-', not '" + value + "'"};
      p.agent = value;
    } else if (key == "session") {
      if (!services::valid_name(value))
        return services::Failure{services::Error::bad_request, "session must be 1-64 letters, digits, '.', '_' or '-', not '" + value + "'"};
      p.session = value;
    } else if (key == "context") {
      if (value.empty()) return services::Failure{services::Error::bad_request, "context needs a file path"};
      if (!p.context) p.context.emplace();
      p.context->push_back(value);
    } else if (key == "fuzz") {
      if (value != "whitespace") return services::Failure{services::Error::bad_request, "fuzz accepts only 'whitespace', not '" + value + "'"};
      p.fuzz_whitespace = true;
    }
  }
  return p;
}

}  // namespace ops
