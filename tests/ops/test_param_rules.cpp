// The parameter rules: the check every door applies and the JSON Schema the
// MCP tools publish come from one row per type, and agree. The oracle reads
// the generated schema alone (its pattern run by std::regex), so a row whose
// check and schema part ways fails here.
#include "ops/param_rules.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

namespace json = boost::json;
using namespace ops;

namespace {

// What a JSON Schema of the kinds param_schema makes says of `v`.
bool schema_accepts(const json::object& s, const json::value& v) {
  if (const json::value* t = s.if_contains("type")) {
    auto is = [&](std::string_view name) {
      return (name == "string" && v.is_string()) || (name == "boolean" && v.is_bool()) ||
             (name == "integer" && (v.is_int64() || v.is_uint64())) || (name == "number" && v.is_number()) ||
             (name == "array" && v.is_array()) || (name == "object" && v.is_object());
    };
    bool any = false;
    if (t->is_string()) any = is(t->get_string());
    else
      for (const json::value& n : t->get_array()) any = any || is(n.get_string());
    if (!any) return false;
  }
  if (v.is_number()) {
    const double d = v.to_number<double>();
    if (const json::value* m = s.if_contains("minimum"); m && d < m->to_number<double>()) return false;
    if (const json::value* m = s.if_contains("maximum"); m && d > m->to_number<double>()) return false;
  }
  if (v.is_string()) {
    const std::string str(v.get_string());
    if (const json::value* m = s.if_contains("minLength"); m && str.size() < m->to_number<std::size_t>()) return false;
    if (const json::value* m = s.if_contains("maxLength"); m && str.size() > m->to_number<std::size_t>()) return false;
    if (const json::value* p = s.if_contains("pattern");
        p && !std::regex_search(str, std::regex(std::string(p->get_string()), std::regex::ECMAScript)))
      return false;
    if (const json::value* e = s.if_contains("enum")) {
      bool listed = false;
      for (const json::value& x : e->get_array()) listed = listed || x == v;
      if (!listed) return false;
    }
  }
  if (v.is_array())
    if (const json::value* items = s.if_contains("items"))
      for (const json::value& e : v.get_array())
        if (!schema_accepts(items->get_object(), e)) return false;
  return true;
}

// Values on both sides of every rule: each row's bounds and lengths, and
// strings a pattern takes or refuses.
std::vector<json::value> candidates(const ParamRule& r) {
  std::vector<json::value> out{nullptr, true, false, 0, 1, -1, 1.5, 10000, 10001, 3'600'000, 3'600'001, 1023, 1024,
                               max_bytes, max_bytes + 1, max_offset, json::object{}, json::array{},
                               json::array{"a.txt"}, json::array{""}, json::array{1}, "", "a", "walker", "two words",
                               "a.b-c_d", "Math.max", "Math..max", "Math.max(1)", ".max", "max.", "$el._x1", "1abc",
                               "whitespace", "tabs", "é", "accept", "dismiss", "accept|dismiss", "Accept",
                               "back", "reload", "Reload", "back|reload"};
  for (std::int64_t n : {r.min - 1, r.min, r.max, r.max + 1}) {
    out.emplace_back(n);
    if (n >= 0 && n < 100000) {
      out.emplace_back(std::string(static_cast<std::size_t>(n), 'a'));
      out.emplace_back(json::array{json::string(std::string(static_cast<std::size_t>(n), 'a'))});
    }
  }
  return out;
}

}  // namespace

TEST_CASE("param rules: the check and the JSON Schema agree on every type's values", "[ops]") {
  REQUIRE(param_rules().size() == static_cast<std::size_t>(ParamType::navigation) + 1);
  for (const ParamRule& r : param_rules()) {
    const json::object schema = param_schema(r.type);
    INFO(json::serialize(schema));
    std::size_t taken = 0, refused = 0;
    for (const json::value& v : candidates(r)) {
      INFO(json::serialize(v));
      const bool checked = !check_value(r.type, "p", v);
      CHECK(checked == schema_accepts(schema, v));
      (checked ? taken : refused) += 1;
    }
    // Each rule both takes and refuses some of them: the comparison means something.
    CHECK(taken > 0);
    CHECK(refused > 0);
  }
}

TEST_CASE("param rules: a refusal names the parameter and the rule's words", "[ops]") {
  CHECK(check_value(ParamType::count, "limit", 0) == std::optional<std::string>("limit must be a whole number, 1 to 10000"));
  CHECK(check_value(ParamType::symbol, "symbol", "Math.max(1)") ==
        std::optional<std::string>("symbol must be " + std::string(param_rule(ParamType::symbol))));
  CHECK(!check_value(ParamType::name, "agent", "walker"));
  CHECK(!check_value(ParamType::dialog, "dialog", "dismiss"));
  CHECK(check_value(ParamType::dialog, "dialog", "accept|dismiss") ==
        std::optional<std::string>(R"(dialog must be "accept" or "dismiss")"));
  CHECK(param_schema(ParamType::dialog).at("enum") == json::array{"accept", "dismiss"});
  CHECK(check_value(ParamType::name, "agent", json::value(std::string(65, 'a'))));
}
