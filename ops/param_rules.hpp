// The types a parameter may have and each type's rule, as data: one row per
// type, from which both the check every door applies (check_value) and the
// JSON Schema the MCP tools publish (param_schema) are made, and the words
// the reference and a refusal use. No Beast, no door.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ops {

// The type a parameter must have, on every door. Over HTTP a query value is
// read as the type first (a number, a flag), then checked the same way.
enum class ParamType {
  string,
  name,    // an agent or session name: 1-64 of [A-Za-z0-9._-]
  flag,    // true or false
  paths,   // an array of file paths (repeatable in a query)
  count,   // a whole number, 1 to 10000
  millis,  // a whole number of milliseconds, 1 to 3600000
  offset,  // a whole number, 0 to max_offset: a position in a message's text or in a file
  bytes,   // a whole number of bytes, 1024 to max_bytes: how much of a file one read takes
  symbol,  // a dotted path of identifiers (Math.max): never code
  fuzz,    // only "whitespace"
  request_id,  // another request's id, as it was sent: a string or a number
  dialog,  // "accept" or "dismiss": how a page's dialogs are answered
  navigation,  // "back", "forward" or "reload": where page-go takes a page
};

// The largest offset: the largest whole number a JSON number carries
// exactly everywhere (JavaScript's Number.MAX_SAFE_INTEGER), so a cursor
// into a file of any size (the events op's) passes on every door.
inline constexpr std::int64_t max_offset = 9'007'199'254'740'991;

// The most bytes a `bytes` parameter asks for: what one reply may carry of
// a file (the log op's window), rendered.
inline constexpr std::int64_t max_bytes = 4 << 20;

// The JSON value a type takes.
enum class ValueKind {
  string,
  boolean,
  integer,  // a whole number, between min and max
  strings,  // an array of strings, each as a string's rule says
  id,       // a string or a number
};

struct ParamRule {
  ParamType type;
  ValueKind kind;
  std::string_view words;  // "<parameter> must be <words>"; the reference's column
  // A string's (an array's items') least and greatest length in bytes, or
  // an integer's least and greatest value; max < 0: no bound.
  std::int64_t min = 0;
  std::int64_t max = -1;
  // The whole string matches it: an ECMAScript regular expression, anchored,
  // of ASCII only (so its length in bytes is the schema's length).
  std::string_view pattern = {};
  std::string_view only = {};  // the strings taken, separated by |; empty: any
};

// The rules, in ParamType's order (checked at compile time).
const std::vector<ParamRule>& param_rules();
const ParamRule& rule_of(ParamType type);

// Why `v` does not fit the type's rule ("<param> must be <words>"), or
// nullopt when it does.
std::optional<std::string> check_value(ParamType type, std::string_view param, const boost::json::value& v);

// A parameter type as JSON Schema, for doors that publish schemas (the MCP
// tools), and its rule in words (the reference's).
boost::json::object param_schema(ParamType type);
std::string_view param_rule(ParamType type);

}  // namespace ops
