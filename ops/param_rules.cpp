#include "ops/param_rules.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <array>
#include <regex>

namespace ops {

namespace json = boost::json;

namespace {

using T = ParamType;
using K = ValueKind;

// Declarative: one row per type, in ParamType's order.
constexpr std::array rows{
    ParamRule{T::string, K::string, "a string"},
    ParamRule{T::name, K::string, "1-64 of A-Z a-z 0-9 . _ -", 1, 64, "^[A-Za-z0-9._-]+$"},
    ParamRule{T::flag, K::boolean, "true or false"},
    ParamRule{T::paths, K::strings, "an array of file paths", 1},
    ParamRule{T::count, K::integer, "a whole number, 1 to 10000", 1, 10000},
    ParamRule{T::millis, K::integer, "whole milliseconds, 1 to 3600000", 1, 3'600'000},
    ParamRule{T::offset, K::integer, "a whole number, 0 to 2^53-1", 0, max_offset},
    ParamRule{T::bytes, K::integer, "whole bytes, 1024 to 4194304", 1024, max_bytes},
    ParamRule{T::symbol, K::string, "a dotted path of identifiers (Math.max), at most 256 characters", 1, 256,
              "^[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*$"},
    ParamRule{T::fuzz, K::string, "\"whitespace\"", 0, -1, {}, "whitespace"},
    ParamRule{T::request_id, K::id, "a string or a number, as the request's id was sent"},
    ParamRule{T::dialog, K::string, "\"accept\" or \"dismiss\"", 0, -1, {}, "accept|dismiss"},
    ParamRule{T::navigation, K::string, "\"back\", \"forward\" or \"reload\"", 0, -1, {}, "back|forward|reload"},
};

constexpr bool in_type_order() {
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (static_cast<std::size_t>(rows[i].type) != i) return false;
  return rows.size() == static_cast<std::size_t>(T::navigation) + 1;
}
static_assert(in_type_order(), "one rule per ParamType, in its order");

// The rows' patterns, compiled once.
const std::regex* pattern_of(ParamType type) {
  static const std::vector<std::optional<std::regex>> compiled = [] {
    std::vector<std::optional<std::regex>> out;
    for (const ParamRule& r : rows)
      out.push_back(r.pattern.empty() ? std::nullopt
                                      : std::optional<std::regex>(std::regex(std::string(r.pattern), std::regex::ECMAScript)));
    return out;
  }();
  const auto& p = compiled[static_cast<std::size_t>(type)];
  return p ? &*p : nullptr;
}

// The strings a rule takes (its `only`, split at |); none: any.
std::vector<std::string_view> only_of(const ParamRule& r) {
  std::vector<std::string_view> out;
  for (std::string_view rest = r.only; !rest.empty();) {
    const std::size_t bar = rest.find('|');
    out.push_back(rest.substr(0, bar));
    rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
  }
  return out;
}

// A string as the rule takes it: its length first, so the pattern never
// reads a long value.
bool string_fits(const ParamRule& r, std::string_view s) {
  if (static_cast<std::int64_t>(s.size()) < r.min || (r.max >= 0 && static_cast<std::int64_t>(s.size()) > r.max))
    return false;
  const std::vector<std::string_view> only = only_of(r);
  if (!only.empty() && std::find(only.begin(), only.end(), s) == only.end()) return false;
  const std::regex* re = pattern_of(r.type);
  return !re || std::regex_match(s.begin(), s.end(), *re);
}

bool fits(const ParamRule& r, const json::value& v) {
  switch (r.kind) {
    case K::string: return v.is_string() && string_fits(r, v.get_string());
    case K::boolean: return v.is_bool();
    case K::integer:
      return v.is_int64() && v.get_int64() >= r.min && (r.max < 0 || v.get_int64() <= r.max);
    case K::strings:
      if (!v.is_array()) return false;
      for (const json::value& e : v.get_array())
        if (!e.is_string() || !string_fits(r, e.get_string())) return false;
      return true;
    case K::id: return v.is_string() || v.is_number();
  }
  return false;
}

// A string's rule as JSON Schema.
void string_schema(const ParamRule& r, json::object& s) {
  s["type"] = "string";
  if (r.min > 0) s["minLength"] = r.min;
  if (r.max >= 0) s["maxLength"] = r.max;
  if (!r.pattern.empty()) s["pattern"] = r.pattern;
  if (!r.only.empty()) {
    json::array taken;
    for (std::string_view o : only_of(r)) taken.emplace_back(o);
    s["enum"] = std::move(taken);
  }
}

}  // namespace

const std::vector<ParamRule>& param_rules() {
  static const std::vector<ParamRule> all(rows.begin(), rows.end());
  return all;
}

const ParamRule& rule_of(ParamType type) { return rows[static_cast<std::size_t>(type)]; }

std::optional<std::string> check_value(ParamType type, std::string_view param, const json::value& v) {
  const ParamRule& r = rule_of(type);
  if (fits(r, v)) return std::nullopt;
  return std::string(param) + " must be " + std::string(r.words);
}

json::object param_schema(ParamType type) {
  const ParamRule& r = rule_of(type);
  json::object s;
  switch (r.kind) {
    case K::string: string_schema(r, s); break;
    case K::boolean: s["type"] = "boolean"; break;
    case K::integer:
      s["type"] = "integer";
      s["minimum"] = r.min;
      if (r.max >= 0) s["maximum"] = r.max;
      break;
    case K::strings: {
      json::object items;
      string_schema(r, items);
      s = {{"type", "array"}, {"items", std::move(items)}};
      break;
    }
    case K::id: s["type"] = json::array{"string", "number"}; break;
  }
  return s;
}

std::string_view param_rule(ParamType type) { return rule_of(type).words; }

}  // namespace ops
