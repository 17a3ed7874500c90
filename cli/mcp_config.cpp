#include "cli/mcp_config.hpp"

#include "cli/mcp_launch.hpp"
#include "gateway/serve.hpp"
#include "services/places.hpp"
#include "services/state_dir.hpp"

#include <boost/json.hpp>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

namespace cli {

namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string& s) { return boost::json::serialize(boost::json::string(s)); }

// "editgate" when that name on the PATH is this binary, else this binary's
// full path: the snippet starts the editgate that printed it.
std::string command_name() {
  std::error_code ec;
  const fs::path self = fs::canonical("/proc/self/exe", ec);
  if (ec) return "editgate";
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const fs::path candidate = fs::path(dir) / "editgate";
    if (::access(candidate.c_str(), X_OK) == 0 && fs::canonical(candidate, ec) == self && !ec) return "editgate";
  }
  return self.string();
}

struct Snippet {
  std::string command;
  std::vector<std::string> args;  // after the command
  std::string url;                // Streamable HTTP
  std::string state;              // the gateway's state folder; "" outside any repository
  std::string cookie_file;        // its cookie; "" outside any repository (the shell finds it)
  std::string workspace;          // "" outside any repository
  bool port_known = false;
};

std::string json_args(const std::vector<std::string>& args) {
  std::string s = "[";
  for (std::size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + quoted(args[i]);
  return s + "]";
}

std::string shell_words(const std::vector<std::string>& args) {
  std::string s;
  for (const std::string& a : args) {
    const bool plain = a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:") ==
                       std::string::npos;
    s += " " + (plain ? a : "'" + a + "'");
  }
  return s;
}

// A JSON file whose servers sit under `key`, with editgate's entry `body`
// (the lines inside its braces, indented by 6).
std::string json_file(const std::string& key, const std::string& body, const std::string& before = "") {
  return "{\n" + before + "  " + quoted(key) + ": {\n    \"editgate\": {\n" + body + "\n    }\n  }\n}\n";
}

std::string stdio_entry(const Snippet& s, bool typed, const std::vector<std::string>& args) {
  return std::string(typed ? "      \"type\": \"stdio\",\n" : "") + "      \"command\": " + quoted(s.command) +
         ",\n      \"args\": " + json_args(args);
}

void token_note(std::ostream& out, const Snippet& s, const std::string& how) {
  if (s.state.empty()) {
    // No workspace here: the shell finds the cookie of the one it runs in.
    out << "# The token is the cookie of the workspace the shell starts in: `editgate mcp token` prints it, "
           "starting that workspace's gateway when none runs; " << how << "\n# PORT is that workspace's: "
           "`editgate where port` names its file while a gateway runs, and `editgate serve` prints it\n";
    return;
  }
  out << "# The token is the gateway's cookie (" << s.cookie_file << "): `editgate mcp token` prints it, starting "
      << "the gateway in the background when none runs (as `editgate mcp` does); " << how << "\n";
  if (!s.port_known)
    out << "# (no gateway runs there now: " << s.url << " is the workspace's own port, where `editgate mcp token`, "
        << "`editgate serve` and `editgate mcp` start one; the running one's is in " << s.state << "/server.json)\n";
}

// The command that prints the token, starting the gateway when none runs.
std::string token_command(const Snippet& s) {
  const std::string editgate = shell_words({s.command}).substr(1);
  return s.state.empty() ? editgate + " mcp token" : editgate + " mcp token --root" + shell_words({s.workspace});
}

void print(const std::string& client, const Snippet& s, std::ostream& out) {
  // Quoted for a shell: a home or a binary's path may hold spaces.
  const std::string export_line = "export EDITGATE_TOKEN=\"$(" + token_command(s) + ")\"\n";
  if (client == "claude") {
    out << "# Claude Code: run in the workspace (add --scope project to share it in .mcp.json)\n"
        << "claude mcp add editgate -- " << s.command << shell_words(s.args) << "\n\n"
        << "# Streamable HTTP instead, in .mcp.json (Claude Code expands ${VAR} in headers)\n";
    token_note(out, s, "set it in the shell that starts claude:");
    out << export_line
        << json_file("mcpServers", "      \"type\": \"http\",\n      \"url\": " + quoted(s.url) +
                                       ",\n      \"headers\": {\"Authorization\": \"Bearer ${EDITGATE_TOKEN}\"}");
  } else if (client == "codex") {
    out << "# Codex: ~/.codex/config.toml (or .codex/config.toml in a trusted project); or run\n"
        << "#   codex mcp add editgate -- " << s.command << shell_words(s.args) << "\n"
        << "[mcp_servers.editgate]\ncommand = " << quoted(s.command) << "\nargs = " << json_args(s.args) << "\n\n"
        << "# Streamable HTTP instead (Codex reads the bearer token from the variable bearer_token_env_var names)\n";
    token_note(out, s, "set it in the shell that starts codex:");
    out << export_line << "[mcp_servers.editgate]\nurl = " << quoted(s.url)
        << "\nbearer_token_env_var = \"EDITGATE_TOKEN\"\n";
  } else if (client == "cursor") {
    std::vector<std::string> args = s.args;
    if (args.size() == 1) args.insert(args.end(), {"--root", "${workspaceFolder}"});
    out << "# Cursor: .cursor/mcp.json in the workspace (or ~/.cursor/mcp.json for every project)\n"
        << json_file("mcpServers", stdio_entry(s, false, args)) << "\n"
        << "# Streamable HTTP instead (Cursor expands ${env:NAME} in headers)\n";
    token_note(out, s, "set it in the environment Cursor starts from:");
    out << export_line
        << json_file("mcpServers", "      \"url\": " + quoted(s.url) +
                                       ",\n      \"headers\": {\"Authorization\": \"Bearer ${env:EDITGATE_TOKEN}\"}");
  } else if (client == "vscode") {
    std::vector<std::string> args = s.args;
    if (args.size() == 1) args.insert(args.end(), {"--root", "${workspaceFolder}"});
    out << "# VS Code: .vscode/mcp.json in the workspace (or \"MCP: Open User Configuration\")\n"
        << json_file("servers", stdio_entry(s, true, args)) << "\n"
        << "# Streamable HTTP instead: VS Code asks for the token once (an input variable) and keeps it\n";
    token_note(out, s, "paste what it prints when VS Code asks.");
    out << json_file("servers",
                     "      \"type\": \"http\",\n      \"url\": " + quoted(s.url) +
                         ",\n      \"headers\": {\"Authorization\": \"Bearer ${input:editgate-token}\"}",
                     "  \"inputs\": [\n    {\"type\": \"promptString\", \"id\": \"editgate-token\", "
                     "\"description\": \"editgate token (`editgate mcp token` prints it)\", \"password\": true}\n  ],\n");
  } else {  // gemini
    out << "# Gemini CLI: ~/.gemini/settings.json (or .gemini/settings.json in the workspace), key mcpServers\n"
        << json_file("mcpServers", stdio_entry(s, false, s.args)) << "\n"
        << "# Streamable HTTP instead (Gemini CLI expands $VAR in settings.json)\n";
    token_note(out, s, "set it in the shell that starts gemini:");
    out << export_line
        << json_file("mcpServers", "      \"httpUrl\": " + quoted(s.url) +
                                       ",\n      \"headers\": {\"Authorization\": \"Bearer $EDITGATE_TOKEN\"}");
  }
}

}  // namespace

int run_mcp_config(const McpConfigArgs& a, std::ostream& out, std::ostream& err) {
  Snippet s;
  s.command = command_name();
  s.args = {"mcp"};
  std::string ws;
  if (!a.root.empty()) {
    std::error_code ec;
    ws = fs::absolute(a.root, ec).lexically_normal().string();
    if (ws.size() > 1 && ws.back() == '/') ws.pop_back();
    s.args.insert(s.args.end(), {"--root", ws});
  } else if (auto found = services::find_workspace("")) {
    ws = *found;
  } else if (found.error().code != services::Error::not_found) {
    err << "editgate mcp config: " << found.error().message << '\n';
    return 2;
  }
  // Outside any repository (a snippet for every project): the stdio entry
  // finds its workspace where the client starts it; the HTTP one takes the
  // cookie of the workspace the shell is in.
  // Each workspace has its own port (services::default_port); outside one
  // the snippet can only name where to find it.
  std::string port = "PORT";
  if (!ws.empty()) {
    if (auto published = services::read_published(ws)) {
      port = std::to_string(published->port);
      s.port_known = true;
    }
    auto places = services::places_of(ws);
    if (!places) {
      err << "editgate mcp config: " << places.error().message << '\n';
      return 2;
    }
    if (!s.port_known) port = std::to_string(services::default_port(places->id));
    s.state = places->state;
    s.workspace = ws;
    s.cookie_file = places->state + "/cookie";
  }
  s.url = "http://127.0.0.1:" + port + "/mcp";
  print(a.client, s, out);
  return 0;
}

}  // namespace cli
