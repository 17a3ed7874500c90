// Dialogs in a tab (js/dialogs.js): one the running job's code opened, which
// the page answered at once as the eval asked, and one the page opened by
// itself outside jobs, which holds the page until a person (or a browser
// driver) closes it. Both are events of the page; a job's are in its reply
// too, and the page's own is its state while it is open.
#include "repl/page_input.hpp"
#include "repl/page_state.hpp"

#include <boost/json.hpp>

namespace repl {

namespace json = boost::json;

namespace {

constexpr std::size_t dialogs_listed = 100;  // in one reply; the rest are counted

std::string quoted(std::string_view s) { return json::serialize(json::string(s)); }

// How a dialog reads in the log: confirm("Delete all?"), prompt("Name?", "Ann").
std::string call_text(std::string_view kind, const std::string& message, const std::string& default_value) {
  return std::string(kind) + "(" + quoted(message) + (kind == "prompt" ? ", " + quoted(default_value) : "") + ")";
}

// What the dialog's call returned, as the page said: confirm's bool,
// prompt's string or null; none for alert.
std::optional<json::value> returned(std::string_view kind, const json::object& msg) {
  const json::value* v = msg.if_contains("value");
  if (kind == "confirm") return json::value(v && v->is_bool() && v->get_bool());
  if (kind != "prompt") return std::nullopt;
  if (v && v->is_string()) return json::value(json::string(page_line(v->get_string(), page_bounds::line)));
  return json::value(nullptr);
}

}  // namespace

std::string_view state_of(const Repl::Page& p) {
  if (!p.link) return "disconnected";
  if (p.dialog) return "dialog";
  return p.running ? "executing" : "idle";
}

json::value dialog_json(const Repl::Page& p) {
  if (!p.dialog) return nullptr;
  json::object d{{"kind", p.dialog->kind}, {"message", p.dialog->message}, {"since", clock_text(p.dialog->since)}};
  if (p.dialog->kind == "prompt") d["default"] = p.dialog->default_value;
  return d;
}

std::string held_by(const Repl::Page& p) {
  if (!p.dialog) return {};
  const OpenDialog& d = *p.dialog;
  return p.stem + " is held by its own dialog " + call_text(d.kind, d.message, d.default_value) + ", open since " +
         clock_text(d.since) + ": only the person (or a browser driver) can close it, and the page runs nothing until then";
}

void Repl::on_dialog(Page& p, const json::object& msg) {
  const std::string kind = str(msg, "kind");
  if (kind != "alert" && kind != "confirm" && kind != "prompt") return;
  const std::string message = str(msg, "message");
  const std::string default_value = str(msg, "default");
  const std::string call = call_text(kind, message, default_value);
  const std::string answer = str(msg, "answer") == "accept" ? "accept" : "dismiss";
  const std::optional<json::value> value = returned(kind, msg);
  const std::string answered = answer + (value ? " (" + json::serialize(*value) + ")" : "");
  const std::int64_t ts = event_time(msg);
  if (const auto job = job_of(msg)) {
    // The running job's code opened it, and the page answered at once.
    if (!p.running || p.running->id != *job) return;
    Job& j = *p.running;
    add_event(p, {"dialog", "Text", call + " answered " + answered, ts}, {}, false);
    if (j.dialogs.size() >= dialogs_listed) return void(++j.dialogs_dropped);
    json::object d{{"kind", kind}, {"message", message}, {"answer", answer}};
    if (kind == "prompt") d["default"] = default_value;
    if (value) d["value"] = *value;
    if (j.listener.out) j.listener.out({{"dialog", d}, {"page", p.stem}});
    j.dialogs.push_back(std::move(d));
    return;
  }
  const json::value* open = msg.if_contains("open");
  const bool opened = open && open->is_bool() && open->get_bool();
  if (opened)
    p.dialog = OpenDialog{kind, message, default_value, wall::now()};
  else
    p.dialog.reset();
  const std::string said = opened ? " opened by the page: it holds the page until it is closed" : " closed: " + answered;
  add_event(p, {"dialog", "Text", call + said, ts}, {}, false);
  flush_background(p);  // in the log at once: what holds a page is no detail to gather
  if (opened)
    refuse_held(p);
  else
    pump(p);
  registry_changed();
  write_status(p);
}

// Jobs waiting for a page its own dialog holds never start: they would wait
// for a person, with nothing to tell their agents why.
void Repl::refuse_held(Page& p) {
  if (!p.dialog) return;
  const std::vector<std::shared_ptr<Job>> queued(p.queue.begin(), p.queue.end());
  for (const auto& j : queued) fail_queued(p, *j, Error::dialog_open, held_by(p));
}

}  // namespace repl
