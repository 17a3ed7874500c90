#include "cli/pages_client.hpp"

#include "cli/remote.hpp"
#include "services/places.hpp"
#include "services/state_dir.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <array>
#include <vector>

namespace cli {

namespace json = boost::json;

namespace {

std::string field(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (!v) return "";
  if (v->is_string()) return std::string(v->get_string());
  if (v->is_number()) return json::serialize(*v);
  return "";
}

}  // namespace

int run_pages(const PagesArgs& args, std::ostream& out, std::ostream& err) {
  auto root = services::find_workspace(args.root);
  if (!root) {
    err << "editgate pages: " << root.error().message << '\n';
    return 2;
  }
  auto answer = call_gateway(*root, "GET", "/v1/pages");
  if (!answer) {
    err << "editgate pages: " << answer.error().message << '\n';
    return 2;
  }
  const json::value* pages = answer->body.if_contains("pages");
  if (answer->status != 200 || !pages || !pages->is_array()) {
    const std::string why = field(answer->body, "message");
    err << "editgate pages: the gateway refused: " << field(answer->body, "error")
        << (why.empty() ? "" : ": " + why) << '\n';
    return 2;
  }
  if (args.format == "json") {
    out << json::serialize(answer->body) << '\n';
    return 0;
  }
  if (pages->get_array().empty()) {
    out << "no pages (the gateway runs with --no-node and no browser tab has connected)\n";
    return 0;
  }
  // The URL last: its length varies most. Page text arrives as one escaped
  // line (the gateway bounds and escapes it at the page's hello).
  constexpr std::array<std::string_view, 6> keys{"page", "kind", "state", "queued", "log", "url"};
  std::vector<std::array<std::string, 6>> rows{{"PAGE", "KIND", "STATE", "QUEUE", "LOG", "URL"}};
  for (const json::value& p : pages->get_array()) {
    if (!p.is_object()) continue;
    std::array<std::string, 6> row;
    for (std::size_t i = 0; i < keys.size(); ++i) row[i] = field(p.get_object(), keys[i]);
    rows.push_back(std::move(row));
  }
  std::array<std::size_t, 6> width{};
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i)
      line += i + 1 < row.size() ? row[i] + std::string(width[i] - row[i].size() + 2, ' ') : row[i];
    out << line << '\n';
  }
  return 0;
}

}  // namespace cli
