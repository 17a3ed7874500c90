#include "cli/where.hpp"

#include "services/places.hpp"
#include "services/state_dir.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace cli {

namespace json = boost::json;

namespace {

struct Place {
  const char* key;   // in the JSON
  std::string path;
  const char* what;  // for people
};

// What is where, in the order a person reads it: the state (secrets
// first), then the agents' files.
std::vector<Place> places_list(const services::Places& p) {
  const std::string s = p.state + "/", a = p.agents.empty() ? std::string() : p.agents + "/";
  std::vector<Place> l = {
      {"state", p.state, "per user, mode 0700, outside every workspace: secrets and the gateway's own state"},
      {"cookie", s + "cookie", "the agents' bearer token (WebSocket auth, Authorization: Bearer, MCP)"},
      {"server_json", s + "server.json", "while a gateway runs: its URLs, pid and nonce"},
      {"port", s + "port", "while a gateway runs: its port"},
      {"lock", s + "lock", "held while a gateway serves the workspace"},
      {"page_keys", s + "page-keys", "hashes of the pages' secrets"},
      {"node_page", s + "node-page.id", "the built-in Node page's id and secret, and its program node-page.cjs"},
      {"tail_journal", s + "tail-journal", "the logs' in-place writes, for repair after a crash"},
      {"serve_log", s + "serve.log", "the output of a gateway `editgate mcp` started"},
  };
  if (a.empty()) return l;
  l.insert(l.end(), {
      {"agents", p.agents, "in the git folder, which git never transfers: files for agents that only read and write files"},
      {"pages", a + "pages", "per page: status.json, ready/ack/completed markers, chat_history.jsonl"},
      {"inbox", a + "inbox", "drop NAME.md, a message of edit blocks: applied as `editgate apply` would"},
      {"outbox", a + "outbox", "the answers: NAME.json, NAME.md, NAME.completed.marker"},
  });
  return l;
}

// The running gateway's URL as its server.json says (another --bind than
// 127.0.0.1 shows there); the loopback one when that file cannot be read.
std::string url_of(const services::Places& p, unsigned short port) {
  std::ifstream in(p.state + "/server.json");
  std::stringstream text;
  text << in.rdbuf();
  boost::system::error_code ec;
  const json::value v = json::parse(text.str(), ec);
  const json::value* http = !ec && v.is_object() ? v.as_object().if_contains("http") : nullptr;
  return http && http->is_string() ? std::string(http->get_string())
                                   : "http://127.0.0.1:" + std::to_string(port) + "/";
}

}  // namespace

int run_where(const WhereArgs& args, std::ostream& out, std::ostream& err) {
  auto root = services::find_workspace(args.root);
  if (!root) {
    err << "editgate where: " << root.error().message << '\n';
    return 2;
  }
  auto places = services::places_of(*root);
  if (!places) {
    err << "editgate where: " << places.error().message << '\n';
    return 2;
  }
  if (!args.place.empty()) {
    // For a shell: $(editgate where cookie)
    for (const Place& p : places_list(*places))
      if (args.place == p.key) {
        out << p.path << '\n';
        return 0;
      }
    std::string keys;
    for (const Place& p : places_list(*places)) keys += (keys.empty() ? "" : ", ") + std::string(p.key);
    err << "editgate where: no place '" << args.place << "'; the places: " << keys
        << (places->agents.empty() ? " (the agents' files come with the workspace's git repository, which "
                                     "`editgate serve` makes)"
                                   : "")
        << '\n';
    return 2;
  }
  auto published = services::read_published(places->root);
  const std::string url = published ? url_of(*places, published->port) : std::string();
  if (args.format == "json") {
    json::object o{{"workspace", places->root}, {"id", places->id}, {"running", static_cast<bool>(published)}};
    if (published) o["url"] = url;
    for (const Place& p : places_list(*places)) o[p.key] = p.path;
    out << json::serialize(o) << '\n';
    return 0;
  }
  out << "workspace    " << places->root << '\n'
      << "gateway      "
      << (published ? "running at " + url : published.error().message)
      << '\n';
  // Minting a sign-in token is not where's to do (it makes nothing): it says which command does.
  if (published)
    out << "dashboard    `editgate dashboard` prints a URL that signs a browser in, to look; the one that "
           "approves pages is printed by `editgate serve` run in a terminal\n";
  for (const Place& p : places_list(*places)) {
    std::string key = p.key;
    for (char& c : key)
      if (c == '_') c = ' ';
    key.resize(std::max<std::size_t>(key.size(), 12), ' ');
    out << key << ' ' << p.path << "\n             " << p.what << '\n';
  }
  if (places->agents.empty()) out << "agents       none yet: the workspace has no git repository\n";
  return 0;
}

}  // namespace cli
