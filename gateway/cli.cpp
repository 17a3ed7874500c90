#include "gateway/cli.hpp"

#include "editproto/parser.hpp"
#include "editproto/session.hpp"
#include "editproto/workspace.hpp"
#include "gateway/report.hpp"

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>

#ifndef EDITGATE_VERSION
#define EDITGATE_VERSION "0.0.0"
#endif

namespace editgate {

namespace {

struct EditArgs {
  std::string root = ".";
  std::string format = "text";
  std::vector<std::string> context;
  std::string fuzz;
  std::string input = "-";
  std::string agent = "agent";
};

void add_edit_options(CLI::App& cmd, EditArgs& a) {
  cmd.add_option("--root", a.root, "Workspace root (default: the current folder)")->check(CLI::ExistingDirectory);
  cmd.add_option("--format", a.format, "Output: text (default), json or github (workflow annotations)")
      ->check(CLI::IsMember({"text", "json", "github"}));
  cmd.add_option("--context", a.context,
                 "A file the agent has seen (repeatable); blocks for other files are not_in_context");
  cmd.add_option("--fuzz", a.fuzz, "Tolerance: 'whitespace' applies a block that matches uniquely once "
                                   "indentation and trailing white space are ignored")
      ->check(CLI::IsMember({"whitespace"}));
  cmd.add_option("FILE", a.input, "The LLM response holding edit blocks ('-' or none: standard input)");
}

bool use_colour() {
  const char* no = std::getenv("NO_COLOR");
  if (no && *no) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string_view(term) == "dumb") return false;
  return ::isatty(STDOUT_FILENO) != 0;
}

int run_edits(const EditArgs& a, bool dry_run, std::istream& in, std::ostream& out, std::ostream& err) {
  auto ws = editproto::Workspace::open(a.root);
  if (!ws) {
    err << "editgate: " << ws.error().detail << '\n';
    return 2;
  }
  std::ifstream file;
  std::istream* src = &in;
  if (a.input != "-") {
    file.open(a.input, std::ios::binary);
    if (!file) {
      err << "editgate: cannot read " << a.input << '\n';
      return 2;
    }
    src = &file;
  }

  editproto::Options opt;
  opt.dry_run = dry_run;
  opt.fuzz_whitespace = a.fuzz == "whitespace";
  if (!a.context.empty()) opt.context = a.context;
  editproto::Session session(*ws, opt);
  editproto::Parser parser(opt.limits);

  // The whole response is parsed first, so each file is indexed once for
  // exactly the lines its blocks look for; files are written once, at the end.
  std::vector<editproto::Block> blocks;
  std::vector<char> buf(1 << 16);
  while (*src) {
    src->read(buf.data(), static_cast<std::streamsize>(buf.size()));
    std::streamsize n = src->gcount();
    if (n <= 0) break;
    parser.feed(std::string_view(buf.data(), static_cast<std::size_t>(n)), blocks);
  }
  if (src->bad()) {
    err << "editgate: error reading " << (a.input == "-" ? "standard input" : a.input) << '\n';
    return 2;
  }
  parser.finish(blocks);
  session.prepare(blocks);
  for (const editproto::Block& b : blocks) session.submit(b);

  RunReport report;
  report.dry_run = dry_run;
  report.blocks = session.flush();
  report.files_auto_added = session.files_auto_added();

  if (a.format == "json") print_json(out, report);
  else if (a.format == "github") print_github(out, report);
  else print_text(out, report, use_colour());
  out.flush();
  return all_ok(report) ? 0 : 1;
}

}  // namespace

int run_cli(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err) {
  CLI::App app{"editgate: apply LLM edit blocks to a git workspace, safely"};
  app.set_version_flag("--version", std::string("editgate ") + EDITGATE_VERSION);
  app.require_subcommand(1);

  EditArgs check_args, apply_args;
  CLI::App* check = app.add_subcommand("check", "Validate edit blocks against the tree; writes nothing (exit 1 "
                                                "when any block would not apply)");
  add_edit_options(*check, check_args);
  CLI::App* apply = app.add_subcommand("apply", "Apply edit blocks to the tree (exit 1 when any block failed)");
  add_edit_options(*apply, apply_args);
  apply->add_option("--agent", apply_args.agent, "Name of the agent whose edits these are (default: agent)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e, out, err);
    return code == 0 ? 0 : 2;
  }
  if (check->parsed()) return run_edits(check_args, true, in, out, err);
  return run_edits(apply_args, false, in, out, err);
}

}  // namespace editgate
