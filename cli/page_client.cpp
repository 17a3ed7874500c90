#include "cli/page_client.hpp"

#include "cli/remote.hpp"
#include "services/base64.hpp"
#include "services/places.hpp"

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <ostream>

namespace cli {

namespace json = boost::json;

namespace {

std::string text_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// The request's parameters, as the op table names them (ops/table.cpp).
json::object body_of(const PageArgs& a) {
  json::object body;
  if (a.command == "open") {
    body["url"] = a.url;
    if (!a.page.empty()) body["page"] = a.page;
    if (!a.name.empty()) body["name"] = a.name;
  } else {
    body["page"] = a.page;
  }
  if (a.command == "go") body["to"] = a.to;
  if (a.command == "screenshot") {
    if (!a.selector.empty()) body["selector"] = a.selector;
    if (a.full_page) body["full_page"] = true;
  }
  if (a.timeout_ms) body["timeout"] = a.timeout_ms;
  if (a.command != "go") body["agent"] = a.agent;
  return body;
}

// The screenshot's PNG (the reply's `png`, base64) written to `file`; the
// reason on `err` when it cannot be.
bool write_png(const json::object& reply, const std::string& file, std::ostream& err) {
  const std::optional<std::string> png = services::base64_decode(text_at(reply, "png"));
  if (!png || png->empty()) {
    err << "editgate page screenshot: bad_json: the gateway's answer holds no PNG to write to " << file << '\n';
    return false;
  }
  errno = 0;
  std::ofstream f(file, std::ios::binary | std::ios::trunc);
  if (f) f.write(png->data(), static_cast<std::streamsize>(png->size()));
  if (f) f.close();
  if (!f) {
    err << "editgate page screenshot: io: cannot write " << file << " ("
        << (errno ? std::strerror(errno) : "the write failed") << ")\n";
    return false;
  }
  return true;
}

// What a person or a script wants of each reply: the page's name after
// open (for `page=$(editgate page open URL)`), the URL it shows after go,
// the screenshot's path in the workspace.
void print_text(const PageArgs& a, const json::object& reply, std::ostream& out) {
  if (a.command == "open") out << text_at(reply, "page") << '\n';
  else if (a.command == "go") out << text_at(reply, "url") << '\n';
  else if (a.command == "screenshot") out << text_at(reply, "path") << '\n';
  else out << "closed " << text_at(reply, "page") << '\n';
}

// A subcommand with what they all take (--root, --format), --agent for the
// ops that write to the page's log, and the owned page for all but open.
CLI::App* add_command(CLI::App& page, PageArgs& a, std::string name, std::string help, bool agent) {
  CLI::App* sub = page.add_subcommand(name, std::move(help));
  sub->callback([&a, name] { a.command = name; });
  if (name != "open") sub->add_option("page", a.page, "The owned page (its name, as open printed it)")->required();
  if (agent) sub->add_option("--agent", a.agent, "Who asks, in the log and the commit (default: cli)");
  sub->add_option("--root", a.root, gateway_root_help)->check(CLI::ExistingDirectory);
  sub->add_option("--format", a.format, "Output: text (default) or json (the op's reply as it is)")
      ->check(CLI::IsMember({"text", "json"}));
  return sub;
}

void add_timeout(CLI::App& sub, PageArgs& a) {
  sub.add_option("--timeout", a.timeout_ms, "Milliseconds the page may take to load and connect (default: 30000)");
}

}  // namespace

CLI::App* add_page(CLI::App& app, PageArgs& a) {
  CLI::App* page = app.add_subcommand("page", "Open, navigate, screenshot and close pages in the headless Chromium "
                                              "the running gateway owns: pages like any other (eval, chat log, "
                                              "commits); exit 1 when the op failed");
  page->require_subcommand(1);
  CLI::App* open = add_command(*page, a, "open", "Open URL in a new owned page (or load it in one with --page); "
                                                 "print the page's name", true);
  open->add_option("url", a.url, "The address: http or https")->required();
  open->add_option("--page", a.page, "An owned page to load the URL in instead of opening a new one");
  open->add_option("--name", a.name, "The new page's name, before its id (default: the URL's host)");
  add_timeout(*open, a);

  CLI::App* go = add_command(*page, a, "go", "Go back, forward or reload an owned page; print the URL it shows", false);
  go->add_option("to", a.to, "back, forward or reload")->required()->check(CLI::IsMember({"back", "forward", "reload"}));
  add_timeout(*go, a);

  CLI::App* shot = add_command(*page, a, "screenshot", "Take a PNG of an owned page, saved in the workspace and "
                                                       "linked from its log; print its path", true);
  shot->add_option("--selector", a.selector, "A CSS selector: that element only");
  shot->add_flag("--full-page", a.full_page, "The whole page, not only what the window shows");
  shot->add_option("--out", a.out_file, "Also write the PNG to this file");

  add_command(*page, a, "close", "Close an owned page (its log and screenshots stay in the history)", true);
  return page;
}

int run_page(const PageArgs& a, std::ostream& out, std::ostream& err) {
  const std::string who = "editgate page " + a.command + ": ";
  auto root = services::find_workspace(a.root);
  if (!root) {
    err << who << root.error().message << '\n';
    return 2;
  }
  auto answer = call_gateway(*root, "POST", "/v1/pages/" + a.command, json::serialize(body_of(a)));
  if (!answer) {
    err << who << answer.error().message << '\n';
    return 2;
  }
  const json::object& reply = answer->body;
  // The gateway's HTTP errors: "error" the code, "message" why.
  const std::string code = text_at(reply, "error");
  if (!code.empty() || answer->status != 200) {
    const std::string message = text_at(reply, "message");
    err << who << (code.empty() ? "HTTP " + std::to_string(answer->status) : code)
        << (message.empty() ? "" : ": " + message) << '\n';
    return 1;
  }
  if (a.format == "json") out << json::serialize(reply) << '\n';
  else print_text(a, reply, out);
  if (!a.out_file.empty() && !write_png(reply, a.out_file, err)) return 2;
  return 0;
}

}  // namespace cli
