// The op messages of the agents' WebSocket door: read as an envelope
// (check_request, what OpDispatcher::handle does before it dispatches) and
// checked against the op table (check_params, what dispatch does first). A
// message is either refused with one of the request errors, or it names an
// op of the table, carries that op's parameters and nothing else, and every
// parameter has the type the op reads it as.
#include "check.hpp"
#include "ops/dispatcher.hpp"
#include "services/target.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace json = boost::json;

namespace {

bool in(const json::value* list, std::string_view key) {
  if (!list) return false;
  for (const json::value& v : list->as_array())
    if (v.as_string() == key) return true;
  return false;
}

// The type each parameter is read as by the ops.
void check_param(std::string_view key, const json::value& v) {
  if (key == "dry_run" || key == "silent") {
    FUZZ_CHECK(v.is_bool());
  } else if (key == "agent" || key == "of_session") {
    FUZZ_CHECK(v.is_string() && services::valid_name(v.get_string()));
  } else if (key == "context" || key == "files") {
    FUZZ_CHECK(v.is_array());
    for (const json::value& e : v.get_array()) FUZZ_CHECK(e.is_string() && !e.get_string().empty());
  } else if (key == "limit") {
    FUZZ_CHECK(v.is_int64() && v.get_int64() >= 1 && v.get_int64() <= 10000);
  } else if (key == "timeout") {
    FUZZ_CHECK(v.is_int64() && v.get_int64() >= 1 && v.get_int64() <= 3'600'000);
  } else if (key == "fuzz") {
    FUZZ_CHECK(v.is_string() && v.get_string() == "whitespace");
  } else {
    FUZZ_CHECK(v.is_string());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const json::object table = ops::describe_ops().at("ops").as_object();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ops::CheckedRequest r = ops::check_request(text);
  std::vector<std::string> unknown;
  if (!r.failure) {
    const ops::OpSpec* spec = ops::find_op(r.op);
    FUZZ_CHECK(spec != nullptr);
    auto checked = ops::check_params(*spec, r.params);
    if (checked) unknown = std::move(*checked);
    else r.failure = checked.error();
  }

  for (const auto& kv : r.echo) FUZZ_CHECK(kv.key() == "id" || kv.key() == "session");
  if (r.failure) {
    using services::Error;
    const Error c = r.failure->code;
    FUZZ_CHECK(c == Error::bad_json || c == Error::missing_param || c == Error::unknown_op || c == Error::bad_request);
    FUZZ_CHECK(!r.failure->message.empty());
    return 0;
  }
  FUZZ_CHECK(!r.op.empty());
  const json::value* op = r.msg.if_contains("op");
  FUZZ_CHECK(op && op->is_string() && op->get_string() == r.op);
  const json::object* spec = table.if_contains(r.op) ? &table.at(r.op).as_object() : nullptr;
  FUZZ_CHECK(spec != nullptr);
  const json::value* params = spec->if_contains("params");
  const json::value* optional = spec->if_contains("optional");
  for (const json::value& p : params->as_array()) FUZZ_CHECK(r.msg.contains(p.as_string()));
  for (const auto& kv : r.msg) {
    const std::string_view k = kv.key();
    if (k == "op") continue;
    if (k == "session") {
      FUZZ_CHECK(kv.value().is_string() && services::valid_name(kv.value().get_string()));
      continue;
    }
    if (k == "id" && !in(params, k)) continue;  // the envelope's id: echoed, any JSON
    if (std::find(unknown.begin(), unknown.end(), k) != unknown.end()) {
      FUZZ_CHECK(!r.params.contains(k));  // set aside, named in the reply
      continue;
    }
    FUZZ_CHECK(in(params, k) || in(optional, k));
    check_param(k, kv.value());
  }
  return 0;
}
