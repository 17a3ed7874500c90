#include "cli/cli.hpp"

#include "editproto/workspace.hpp"
#include "cli/eval_client.hpp"
#include "cli/mcp_bridge.hpp"
#include "cli/mcp_config.hpp"
#include "cli/mcp_token.hpp"
#include "record/commit_messages.hpp"
#include "record/edit_log.hpp"
#include "cli/dashboard_client.hpp"
#include "cli/page_client.hpp"
#include "cli/pages_client.hpp"
#include "cli/remote.hpp"
#include "record/run_commit.hpp"
#include "record/run_driver.hpp"
#include "record/run_report.hpp"
#include "services/push_child.hpp"
#include "gateway/serve.hpp"
#include "cli/lint_command.hpp"
#include "cli/reference.hpp"
#include "cli/stop.hpp"
#include "cli/wait.hpp"
#include "cli/where.hpp"
#include "git/repository.hpp"

#include <CLI/CLI.hpp>
#include <boost/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

namespace cli {

namespace {

struct EditArgs {
  std::string root = ".";
  std::string format = "text";
  std::vector<std::string> context;
  std::string fuzz;
  std::string input = "-";
  CLI::Option* input_option = nullptr;  // to tell "-" given from no FILE at all
  std::string agent = "agent";
  std::string session;
  bool no_commit = false;
  unsigned lock_timeout_ms = 5000;
};

struct LogArgs {
  std::string root = ".";
  std::string format = "text";
  record::LogQuery query;
};

struct UndoArgs {
  std::string root = ".";
  std::string agent;
  std::string format = "text";
};

void add_edit_options(CLI::App& cmd, EditArgs& a) {
  cmd.add_option("--root", a.root, "Workspace root (default: the current folder)")->check(CLI::ExistingDirectory);
  cmd.add_option("--format", a.format, "Output: text (default), json or github (workflow annotations)")
      ->check(CLI::IsMember({"text", "json", "github"}));
  // One value per flag: "--context a.py response.md" must not take the
  // response as a second context file.
  cmd.add_option("--context", a.context,
                 "A file the agent has seen (one per flag; repeat the flag); blocks for other files are "
                 "not_in_context")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option("--fuzz", a.fuzz, "Tolerance: 'whitespace' applies a block that matches uniquely once "
                                   "indentation and trailing white space are ignored")
      ->check(CLI::IsMember({"whitespace"}));
  a.input_option = cmd.add_option("FILE", a.input, "The LLM response holding edit blocks ('-' or none: standard "
                                                   "input, unless it is a terminal)");
}

bool use_colour() {
  const char* no = std::getenv("NO_COLOR");
  if (no && *no) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string_view(term) == "dumb") return false;
  return ::isatty(STDOUT_FILENO) != 0;
}

// Where the response is read from: FILE, or standard input (`in`); null,
// with the reason on `err`, when there is nothing to read.
std::istream* open_response(const EditArgs& a, std::istream& in, std::ifstream& file, std::ostream& err) {
  // Without a FILE, standard input is read only when something is piped
  // into it: at a terminal, a person who forgot the file would wait on an
  // editgate that seems to hang (an explicit "-" still reads the terminal).
  if (a.input_option != nullptr && a.input_option->count() == 0 && ::isatty(STDIN_FILENO)) {
    err << "editgate: no response file given, and standard input is a terminal: pass the response file, or '-' "
           "to type it (end with Ctrl-D)\n";
    return nullptr;
  }
  if (a.input == "-") return &in;
  file.open(a.input, std::ios::binary);
  if (!file) {
    err << "editgate: cannot read " << a.input << '\n';
    return nullptr;
  }
  return &file;
}

// Feeds the whole response to `run`. False when the stream failed.
bool read_response(std::istream& src, record::RunDriver& run) {
  std::vector<char> buf(1 << 16);
  while (src) {
    src.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    std::streamsize n = src.gcount();
    if (n <= 0) break;
    run.feed(std::string_view(buf.data(), static_cast<std::size_t>(n)));
  }
  return !src.bad();
}

int run_edits(const EditArgs& a, bool dry_run, std::istream& in, std::ostream& out, std::ostream& err) {
  auto ws = editproto::Workspace::open(a.root);
  if (!ws) {
    err << "editgate: " << ws.error().detail << '\n';
    return 2;
  }
  std::ifstream file;
  std::istream* src = open_response(a, in, file, err);
  if (src == nullptr) return 2;

  // The repository is opened (or created) before anything is written, so a
  // broken one stops the run with every file untouched.
  std::optional<editgit::Repository> repo;
  if (!dry_run && !a.no_commit) {
    editgit::Options git_options;
    git_options.lock_timeout = std::chrono::milliseconds(a.lock_timeout_ms);
    auto r = editgit::Repository::open(ws->root(), std::move(git_options));
    if (r) {
      if (auto ready = r->ready_to_commit(); !ready) r = ready.error();
    }
    if (!r) {
      // A named code first: scripts tell "locked" (retry later) from the rest.
      err << "editgate: " << editgit::to_string(r.error().code) << ": " << r.error().message << '\n';
      return 2;
    }
    repo.emplace(std::move(*r));
  }

  record::RunParams params;
  params.dry_run = dry_run;
  params.fuzz_whitespace = a.fuzz == "whitespace";
  if (!a.context.empty()) params.context = a.context;
  params.agent = a.agent;
  if (repo) params.session = a.session.empty() ? record::new_session_id() : a.session;
  // The whole mode: the response is parsed first, so each file is indexed
  // once for exactly the lines its blocks look for, and written once.
  record::RunDriver run(*ws, std::move(params), record::RunDriver::Mode::whole,
                        repo ? std::optional(repo->gitdir()) : std::nullopt);
  const record::CommitWith commit = [&repo](const record::RepoWork& work) -> editgit::Result<void> {
    work(*repo);
    return {};
  };
  // Files an earlier run wrote and never committed are its agent's: they
  // are committed before this run writes anything.
  if (repo) {
    if (auto left = run.commit_interrupted(commit); !left) {
      err << "editgate: " << editgit::to_string(left.error().code) << ": " << left.error().message << '\n';
      return 2;
    }
  }
  if (!read_response(*src, run)) {
    err << "editgate: error reading " << (a.input == "-" ? "standard input" : a.input) << '\n';
    return 2;
  }
  run.finish();
  if (repo) run.commit(commit);

  const record::RunReport& report = run.report();
  if (a.format == "json") record::print_json(out, report);
  else if (a.format == "github") record::print_github(out, report);
  else record::print_text(out, report, use_colour());
  out.flush();
  return static_cast<int>(record::verdict(report));
}

int run_log(const LogArgs& a, std::ostream& out, std::ostream& err) {
  auto repo = editgit::Repository::open(a.root, {}, false);
  if (!repo) {
    err << "editgate: " << repo.error().message << '\n';
    return 2;
  }
  auto page = record::find_entries(*repo, a.query);
  if (!page) {
    err << "editgate: " << page.error().message << '\n';
    return 2;
  }
  if (a.format == "json") record::print_log_json(out, *page);
  else record::print_log_text(out, *page);
  return 0;
}

int run_undo(const UndoArgs& a, std::ostream& out, std::ostream& err) {
  auto ws = editproto::Workspace::open(a.root);
  if (!ws) {
    err << "editgate: " << ws.error().detail << '\n';
    return 2;
  }
  auto repo = editgit::Repository::open(ws->root(), {}, false);
  if (!repo) {
    err << "editgate: " << repo.error().message << '\n';
    return 2;
  }
  const std::string session = record::new_session_id();
  auto undone = record::undo_last(*ws, *repo, a.agent.empty() ? std::nullopt : std::optional(a.agent), session);
  if (a.format == "json") {
    boost::json::object o;
    if (undone) {
      o["undone"] = undone->reverted;
      o["commit"] = undone->commit.id ? boost::json::value(*undone->commit.id) : boost::json::value(nullptr);
      boost::json::array paths;
      for (const std::string& p : undone->commit.paths) paths.push_back(boost::json::string(p));
      o["paths"] = std::move(paths);
      o["error"] = nullptr;
    } else {
      o["undone"] = nullptr;
      o["commit"] = nullptr;
      o["paths"] = boost::json::array();
      o["error"] = boost::json::object{{"reason", editgit::to_string(undone.error().code)},
                                       {"message", undone.error().message}};
    }
    out << boost::json::serialize(o) << '\n';
  } else if (undone) {
    out << "undid " << undone->reverted.substr(0, 12) << " (" << undone->summary << ")";
    if (undone->commit.id) out << " in commit " << undone->commit.id->substr(0, 12);
    out << '\n';
  } else {
    err << "editgate undo: " << editgit::to_string(undone.error().code) << ": " << undone.error().message << '\n';
  }
  if (undone) return 0;
  return undone.error().code == editgit::Error::conflict || undone.error().code == editgit::Error::not_found ? 1 : 2;
}

// One function a subcommand: its options, bound to the arguments it fills.
// They are added to the app in the order `editgate --help` lists them.

CLI::App* add_check(CLI::App& app, EditArgs& a) {
  CLI::App* check = app.add_subcommand("check", "Validate edit blocks against the tree; writes nothing (exit 1 "
                                                "when any block would not apply)");
  add_edit_options(*check, a);
  return check;
}

CLI::App* add_apply(CLI::App& app, EditArgs& a) {
  CLI::App* apply = app.add_subcommand("apply", "Apply edit blocks to the tree (exit 1 when any block failed)");
  add_edit_options(*apply, a);
  apply->add_option("--agent", a.agent, "Name of the agent whose edits these are: the commit's author "
                                        "(default: agent)");
  apply->add_option("--session", a.session, "Session id for the commit's Editgate-Session trailer "
                                            "(default: a new random id)");
  apply->add_flag("--no-commit", a.no_commit, "Write the files but make no commit");
  apply->add_option("--lock-timeout", a.lock_timeout_ms,
                    "Milliseconds to wait for a lock another git process holds (default: 5000)");
  return apply;
}

CLI::App* add_log(CLI::App& app, LogArgs& a) {
  CLI::App* log = app.add_subcommand("log", "editgate's commits, newest first, with their blocks and trailers");
  log->add_option("--root", a.root, "Workspace root (default: the current folder)")->check(CLI::ExistingDirectory);
  log->add_flag("--repl", a.query.repl,
                "The REPL's history (every request and reply, on its own ref) instead of the branch's code changes");
  log->add_option("--kind", a.query.kind,
                  "Only commits of this kind: edit, undo, earlier-state, repl-aside (branch); exchange, request, "
                  "reply, page, repl, from-branch (--repl)");
  log->add_option("--agent", a.query.agent, "Only this agent's commits");
  log->add_option("--session", a.query.session, "Only this session's commits");
  log->add_option("--before", a.query.before,
                  "Only commits older than this one (the last one of the previous page), back to the first");
  log->add_option("--format", a.format, "Output: text (default) or json")->check(CLI::IsMember({"text", "json"}));
  log->add_option("-n", a.query.limit, "At most this many commits (default: 20)")->check(CLI::PositiveNumber);
  return log;
}

CLI::App* add_undo(CLI::App& app, UndoArgs& a) {
  CLI::App* undo = app.add_subcommand("undo", "Revert the newest editgate edit not undone yet, as a new commit; "
                                              "refused when its files changed since (exit 1)");
  undo->add_option("--root", a.root, "Workspace root (default: the current folder)")->check(CLI::ExistingDirectory);
  undo->add_option("--agent", a.agent, "Who undoes (default: the repository's user)");
  undo->add_option("--format", a.format, "Output: text (default) or json")->check(CLI::IsMember({"text", "json"}));
  return undo;
}

CLI::App* add_eval(CLI::App& app, EvalArgs& a) {
  CLI::App* evalc = app.add_subcommand("eval", "Run code in a page of the running gateway, as the eval op does: "
                                               "logged in debug/ and committed; exit 1 when the code throws");
  evalc->add_option("page", a.page, "The page: its name (node-1a2b), or a bare name with one live page (node)")
      ->required();
  evalc->add_option("code", a.code, "JavaScript: an expression or statements, top-level await allowed")->required();
  evalc->add_option("--root", a.root, gateway_root_help)->check(CLI::ExistingDirectory);
  evalc->add_option("--agent", a.agent, "Who asks, in the log and the commit (default: cli)");
  evalc->add_option("--timeout", a.timeout_ms, "Milliseconds before the log says timeout");
  evalc->add_flag("--silent", a.silent, "Do not write the exchange into the log");
  evalc->add_option("--format", a.format, "Output: text (default) or json")->check(CLI::IsMember({"text", "json"}));
  return evalc;
}

CLI::App* add_wait(CLI::App& app, WaitArgs& a) {
  CLI::App* waitc = app.add_subcommand("wait", "Block until a page's job or an inbox message is answered, reading "
                                               "only the agents' files (.git/editgate/); print the reply (exit 1 when it failed, 124 on "
                                               "--timeout)");
  waitc->add_option("--page", a.page, "The page: its name (node-1a2b), or a bare name with one page (node)");
  waitc->add_option("--inbox", a.inbox, "The name of a message dropped as .git/editgate/inbox/NAME.md");
  waitc->add_option("--job", a.job, "The job's sequence number (default: the newest job, once nothing "
                                    "waits in the log)");
  waitc->add_option("--timeout", a.timeout_s, "Seconds to wait at most (default: 120)")->check(CLI::PositiveNumber);
  waitc->add_option("--root", a.root, gateway_root_help)->check(CLI::ExistingDirectory);
  waitc->add_option("--format", a.format, "Output: text (default) or json")->check(CLI::IsMember({"text", "json"}));
  return waitc;
}

CLI::App* add_dashboard(CLI::App& app, DashboardArgs& a) {
  CLI::App* dash = app.add_subcommand("dashboard", "Print a new one-time URL that signs a browser in to the running "
                                                   "gateway's dashboard, to look: it cannot approve pages (only the "
                                                   "URL `serve` printed in its terminal can)");
  dash->add_option("--root", a.root, gateway_root_help)->check(CLI::ExistingDirectory);
  return dash;
}

CLI::App* add_stop(CLI::App& app, StopArgs& a) {
  CLI::App* stopc = app.add_subcommand("stop", "Stop the workspace's gateway (the shutdown op) and wait until it is "
                                               "gone; says so when none runs (exit 0 both ways)");
  stopc->add_option("--root", a.root, gateway_root_help)->check(CLI::ExistingDirectory);
  stopc->add_option("--timeout", a.timeout_s, "Seconds to wait for it to go (default: 30; exit 1 past it)")
      ->check(CLI::PositiveNumber);
  return stopc;
}

CLI::App* add_pages(CLI::App& app, PagesArgs& a) {
  CLI::App* pagesc = app.add_subcommand("pages", "List the running gateway's pages: name, kind, state, jobs queued, "
                                                 "log and URL");
  pagesc->add_option("--root", a.root, gateway_root_help)->check(CLI::ExistingDirectory);
  pagesc->add_option("--format", a.format, "Output: text (default) or json (GET /v1/pages)")
      ->check(CLI::IsMember({"text", "json"}));
  return pagesc;
}

CLI::App* add_where(CLI::App& app, WhereArgs& a) {
  CLI::App* wherec = app.add_subcommand("where", "Print every place editgate keeps something for the workspace: the "
                                                 "per-user state folder (cookie, server.json...) and the agents' "
                                                 "files in the git folder (inbox, pages' status files)");
  wherec->add_option("place", a.place, "Print only this place's path, for a shell: cookie, server_json, port, "
                                      "state, serve_log, agents, pages, inbox, outbox...");
  wherec->add_option("--root", a.root, gateway_root_help)->check(CLI::ExistingDirectory);
  wherec->add_option("--format", a.format, "Output: text (default) or json")->check(CLI::IsMember({"text", "json"}));
  return wherec;
}

CLI::App* add_serve(CLI::App& app, gateway::ServeArgs& a) {
  CLI::App* serve = app.add_subcommand("serve", "Run the gateway: edits over HTTP and WebSocket, until SIGINT, "
                                                "SIGTERM or the shutdown op");
  serve->add_option("--root", a.root, std::string(gateway_root_help) + "; a folder with no repository gets one, "
                                      "and outside any repository nothing is made unless --root names the folder")
      ->check(CLI::ExistingDirectory);
  serve->add_option("--port", a.port,
                    "Port (default: the workspace's own, 8400-8799 from its id, which the page tag it prints names; "
                    "0 for any free port)");
  serve->add_option("--bind", a.bind, "Address to listen on (default: 127.0.0.1; anything but "
                                      "loopback lets other machines in)");
  serve->add_option("--allow-origin", a.allow_origins,
                    "A browser origin allowed besides the gateway's own, e.g. http://localhost:3000 (repeatable)");
  serve->add_option("--header-timeout", a.header_timeout_ms,
                    "Milliseconds a client has to send a request's head (default: 10000)")
      ->check(CLI::Range(1u, 3'600'000u));
  serve->add_option("--body-timeout", a.body_timeout_ms,
                    "Milliseconds a streamed body may pause between two pieces (default: 60000)")
      ->check(CLI::Range(1u, 3'600'000u));
  serve->add_option("--auth-timeout", a.auth_timeout_ms,
                    "Milliseconds from a WebSocket upgrade to its auth message (default: 10000)")
      ->check(CLI::Range(1u, 3'600'000u));
  serve->add_option("--timeout", a.job_timeout_ms,
                    "Milliseconds a page's job may take before the log says timeout (default: 60000)");
  serve->add_option("--realm-idle", a.realm_idle_s,
                    "Seconds a realm (realm_open, clone) may go without a request before it is closed with its "
                    "session, whichever connection opened it (default: 600)")
      ->check(CLI::Range(1u, 604'800u));
  serve->add_flag("!--no-node", a.node, "Do not start the built-in Node page");
  serve->add_option("--browser", a.browser_program,
                    "The headless browser page-open starts at its first call, driven over a pipe (default: chromium "
                    "on PATH)");
  serve->add_flag("!--no-browser", a.browser, "Offer no page-open: the gateway never starts a browser");
  serve->add_option("--max-owned-pages", a.owned_pages,
                    "Pages the gateway's own browser holds open at once (page-open; default: 8)")
      ->check(CLI::Range(1u, 256u));
  serve->add_option("--settle", a.settle_ms,
                    "Milliseconds a saved chat log or inbox file must be quiet before it is read (default: 150)")
      ->check(CLI::Range(1u, 60'000u));
  serve->add_option("--pages-per-origin", a.pages_per_origin,
                    "New page instances one browser origin may make in this run, half of them (at least 32) connected at "
                    "once; a page coming back to its instance is not counted (default: 64)")
      ->check(CLI::Range(1u, 100'000u));
  serve->add_option("--pages-kept", a.pages_kept,
                    "Pages kept in memory; past it disconnected pages with no work left are forgotten until they "
                    "come back (default: 256)")
      ->check(CLI::Range(1u, 100'000u));
  serve->add_option("--registry-disconnected", a.registry_disconnected,
                    "Disconnected pages debug.md lists, the most recently seen first; the rest are counted in one "
                    "line (default: 10)")
      ->check(CLI::Range(0u, 1000u));
  serve->add_option("--push", a.push,
                    "Push the branch to this remote (a remote's name in the repository, a URL or a path) after "
                    "commits settle, fast-forward only, never forced; the push op pushes at once. No password in "
                    "the URL (refused: the command line is public): credentials come from EDITGATE_PUSH_USERNAME "
                    "and EDITGATE_PUSH_PASSWORD, a configured remote's URL or ssh-agent");
  serve->add_option("--push-timeout", a.push_timeout_s,
                    "Seconds a push may wait on a silent remote before it is stopped (remote_timeout) and tried "
                    "again later (default: 30)")
      ->check(CLI::Range(1u, 3600u));
  return serve;
}

// `editgate __push`: one push of the gateway's pusher, run in a process of
// its own so that it can be stopped (services/push_child.hpp). Not for people:
// hidden from --help.
struct PushChildArgs {
  std::string root, remote;
};

CLI::App* add_push_child(CLI::App& app, PushChildArgs& a) {
  CLI::App* child = app.add_subcommand("__push", "One push of serve --push, in a process of its own");
  child->group("");
  child->add_option("--root", a.root)->required();
  child->add_option("--remote", a.remote)->required();
  return child;
}

struct McpCommands {
  CLI::App* bridge = nullptr;
  CLI::App* config = nullptr;
  CLI::App* token = nullptr;
};

McpCommands add_mcp(CLI::App& app, McpArgs& a, McpConfigArgs& c, McpTokenArgs& t) {
  CLI::App* mcp = app.add_subcommand("mcp", "Serve the Model Context Protocol on standard input and output, through "
                                            "the workspace's gateway (started in the background when none runs)");
  mcp->add_option("--root", a.root, gateway_root_help)
      ->check(CLI::ExistingDirectory);
  mcp->add_option("--port", a.port, "Port of the gateway it starts when none serves the workspace (default: the "
                                    "workspace's own, or any free port when that is taken; 0: any free port)");
  CLI::App* config = mcp->add_subcommand("config", "Print the snippet that adds editgate to an agent client's MCP "
                                                   "servers (its file and keys)");
  config->add_option("--client", c.client, "The client: claude, codex, cursor, vscode or gemini")
      ->required()
      ->check(CLI::IsMember({"claude", "codex", "cursor", "vscode", "gemini"}));
  config->add_option("--root", c.root, "Pin the snippet to this workspace (default: the folder the client starts "
                                       "the server in decides)")
      ->check(CLI::ExistingDirectory);
  CLI::App* token = mcp->add_subcommand("token", "Print the token of the HTTP snippets (the gateway's cookie), "
                                                 "starting a gateway in the background when none serves the workspace");
  token->add_option("--root", t.root, gateway_root_help)->check(CLI::ExistingDirectory);
  token->add_option("--port", t.port, "Port of the gateway it starts (default: the workspace's own)");
  return {mcp, config, token};
}

}  // namespace

int run_cli(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err) {
  CLI::App app{"editgate: apply LLM edit blocks to a git workspace, safely"};
  app.set_version_flag("--version", std::string("editgate ") + EDITGATE_VERSION);
  app.require_subcommand(1);

  EditArgs check_args, apply_args;
  LogArgs log_args;
  UndoArgs undo_args;
  EvalArgs eval_args;
  WaitArgs wait_args;
  PagesArgs pages_args;
  PageArgs page_args;
  DashboardArgs dashboard_args;
  StopArgs stop_args;
  WhereArgs where_args;
  gateway::ServeArgs serve_args;
  LintArgs lint_args;
  McpArgs mcp_args;
  McpConfigArgs mcp_config_args;
  McpTokenArgs mcp_token_args;
  CLI::App* check = add_check(app, check_args);
  add_apply(app, apply_args);
  CLI::App* log = add_log(app, log_args);
  CLI::App* undo = add_undo(app, undo_args);
  CLI::App* evalc = add_eval(app, eval_args);
  CLI::App* waitc = add_wait(app, wait_args);
  CLI::App* pagesc = add_pages(app, pages_args);
  CLI::App* pagec = add_page(app, page_args);
  CLI::App* dashc = add_dashboard(app, dashboard_args);
  CLI::App* stopc = add_stop(app, stop_args);
  CLI::App* wherec = add_where(app, where_args);
  CLI::App* serve = add_serve(app, serve_args);
  CLI::App* lintc = add_lint(app, lint_args);
  const McpCommands mcpc = add_mcp(app, mcp_args, mcp_config_args, mcp_token_args);
  DescribeArgs describe_args;
  CLI::App* describec = add_describe(app, describe_args);
  PushChildArgs push_child_args;
  CLI::App* push_child = add_push_child(app, push_child_args);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e, out, err);
    return code == 0 ? 0 : 2;
  }
  if (check->parsed()) return run_edits(check_args, true, in, out, err);
  if (serve->parsed()) {
    struct stat st{};
    serve_args.person_url = !(::fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode));
    return gateway::run_serve(serve_args, out, err);
  }
  if (push_child->parsed()) return services::run_push_child(push_child_args.root, push_child_args.remote, out);
  if (evalc->parsed()) return run_eval(eval_args, out, err);
  if (waitc->parsed()) return run_wait(wait_args, out, err);
  if (pagesc->parsed()) return run_pages(pages_args, out, err);
  if (pagec->parsed()) return run_page(page_args, out, err);
  if (dashc->parsed()) return run_dashboard(dashboard_args, out, err);
  if (stopc->parsed()) return run_stop(stop_args, out, err);
  if (wherec->parsed()) return run_where(where_args, out, err);
  if (log->parsed()) return run_log(log_args, out, err);
  if (undo->parsed()) return run_undo(undo_args, out, err);
  if (lintc->parsed()) return run_lint(lint_args, out, err);
  if (describec->parsed()) return run_describe(describe_args, out);
  if (mcpc.config->parsed()) return run_mcp_config(mcp_config_args, out, err);
  if (mcpc.token->parsed()) return run_mcp_token(mcp_token_args, out, err);
  if (mcpc.bridge->parsed()) return run_mcp(mcp_args, err);
  return run_edits(apply_args, false, in, out, err);
}

}  // namespace cli
