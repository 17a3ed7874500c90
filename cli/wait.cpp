#include "cli/wait.hpp"

#include "services/places.hpp"
#include "services/state_dir.hpp"
#include "repl/agent_files.hpp"
#include "repl/format.hpp"
#include "repl/markdown.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace cli {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr auto poll_every = std::chrono::milliseconds(5);

std::optional<std::string> slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return std::nullopt;
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

json::object object_in(const fs::path& p) {
  auto text = slurp(p);
  boost::system::error_code ec;
  json::value v = text ? json::parse(*text, ec) : json::value();
  return !ec && v.is_object() ? v.get_object() : json::object{};
}

std::string str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// What the log holds below the page's last reply or background: a closed
// runnable block is a request the gateway has not taken yet, an announcement
// a job that runs (the log is written before the status files, which the
// gateway writes off its path); an open fence is a draft, which never runs,
// and a request with the gateway's note that it came with git never will.
enum class Tail { settled, request, draft };

Tail log_tail(const fs::path& log, const std::string& page) {
  auto text = slurp(log);
  if (!text) return Tail::settled;
  const repl::Lines lines = repl::split_lines(*text);
  const std::vector<repl::Fence> blocks = repl::fences(*text, lines);
  bool pending = false;
  auto block = blocks.begin();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (block != blocks.end() && block->first == i) {
      if (!block->closed) return Tail::draft;
      pending = pending || block->runs();
      i = block->last;
      ++block;
      continue;
    }
    // The page's lines: an announcement (no duration yet) means a job runs,
    // a reply or background that everything above is answered.
    auto h = repl::parse_header(lines[i]);
    if (h && h->from == page)
      pending = h->suffix.empty();
    else if (lines[i].rfind("> **" + page + "** background at ", 0) == 0 || repl::is_not_run_note(lines[i], page))
      pending = false;  // a request that came with git is left unanswered, for good
  }
  return pending ? Tail::request : Tail::settled;
}

// The page's folder under the agents' pages/ (.git/editgate/pages): the name, or the folder of a bare
// name (node) when one page has it, or one connected page does, as the
// gateway resolves a bare name. More than one is `ambiguous`, at once: no
// wait makes it less so.
struct PageDir {
  std::optional<fs::path> dir;
  bool ambiguous = false;
  std::string why;
};

PageDir page_dir(const fs::path& pages, const std::string& name) {
  std::error_code ec;
  if (fs::is_directory(pages / name, ec)) return {pages / name, false, ""};
  std::vector<fs::path> all, candidates;
  for (const auto& e : fs::directory_iterator(pages, ec)) {
    const std::string n = e.path().filename().string();
    all.push_back(e.path());
    if (n.rfind(name + "-", 0) == 0 && n.find('-', name.size() + 1) == std::string::npos) candidates.push_back(e.path());
  }
  std::sort(all.begin(), all.end());
  std::sort(candidates.begin(), candidates.end());
  auto names = [](const std::vector<fs::path>& dirs) {
    std::string out;
    for (const fs::path& d : dirs) out += (out.empty() ? "" : ", ") + d.filename().string();
    return out;
  };
  if (candidates.size() > 1) {
    std::vector<fs::path> connected;
    for (const fs::path& d : candidates) {
      const json::value* c = object_in(d / "status.json").if_contains("connected");
      if (c && c->is_bool() && c->get_bool()) connected.push_back(d);
    }
    if (connected.size() == 1) return {connected.front(), false, ""};
    return {std::nullopt, true,
            "ambiguous: '" + name + "' names more than one page (" + names(connected.size() > 1 ? connected : candidates) +
                "); give the full name"};
  }
  if (candidates.size() == 1) return {candidates.front(), false, ""};
  return {std::nullopt, false,
          "no page '" + name + "' in " + pages.string() +
              (all.empty() ? " (no page has connected)" : " (pages: " + names(all) + ")")};
}

// What every wait checks between two looks at the files.
struct Waiting {
  fs::path root, agents;
  std::chrono::steady_clock::time_point until;
  std::ostream& err;

  // A gateway holds the workspace's lock; a port file alone may be left by
  // one that was killed, which would answer nothing ever.
  bool not_running() const {
    auto running = services::gateway_running(root.string());
    if (running) return false;
    err << "editgate wait: " << running.error().message << '\n';
    return true;
  }
  bool timed_out() const { return std::chrono::steady_clock::now() >= until; }
};

int wait_inbox(const WaitArgs& a, const Waiting& w, std::ostream& out) {
  std::error_code ec;
  const fs::path in = w.agents / "inbox" / (a.inbox + ".md"), marker = w.agents / "outbox" / (a.inbox + ".completed.marker"),
                 taken = w.agents / "outbox" / (a.inbox + ".md");
  for (;;) {
    // The message has left the inbox and its answer is complete.
    if (!fs::exists(in, ec) && fs::exists(marker, ec)) break;
    // The gateway moves the message to the outbox, then writes the marker:
    // between the two, the message is in neither place but is answered.
    if (!fs::exists(in, ec) && !fs::exists(marker, ec) && !fs::exists(taken, ec)) {
      w.err << "editgate wait: no message " << in.string() << " and no answer to it in " << (w.agents / "outbox").string() << '\n';
      return 2;
    }
    if (w.not_running()) return 2;
    if (w.timed_out()) {
      w.err << "editgate wait: timed out: " << in.string() << " is not answered yet\n";
      return 124;
    }
    std::this_thread::sleep_for(poll_every);
  }
  json::object answer = object_in(w.agents / "outbox" / (a.inbox + ".json"));
  // The blocks as `editgate apply` prints them, diagnostics and all; an
  // answer without them (a message refused whole) says why.
  if (a.format == "json")
    out << json::serialize(answer) << '\n';
  else if (answer.contains("text"))
    out << str(answer, "text");
  else
    out << (answer.contains("summary") ? str(answer, "summary") : str(answer, "error")) << '\n';
  const json::value* status = answer.if_contains("status");
  return status && status->is_array() && status->get_array().size() == 1 ? 0 : 1;
}

// The page's folder and the job to print, once it is complete; or the exit
// code when the wait ends without one.
struct JobWait {
  std::optional<int> exit;
  std::optional<fs::path> dir;
  unsigned long long job = 0;
};

JobWait exit_with(int code) { return {code, std::nullopt, 0}; }

JobWait wait_job(const WaitArgs& a, const Waiting& w) {
  std::optional<fs::path> dir;
  std::optional<unsigned long long> job = a.job;
  for (;;) {
    PageDir named;
    if (!dir) {
      named = page_dir(w.agents / "pages", a.page);
      if (named.ambiguous) {
        w.err << "editgate wait: " << named.why << '\n';
        return exit_with(2);
      }
      dir = named.dir;
    }
    if (dir) {
      const json::object status = object_in(*dir / "status.json");
      const std::uint64_t acked = repl::marker_number((*dir / "ack.marker").string()),
                          completed = repl::marker_number((*dir / "completed.marker").string());
      if (job) {
        if (completed >= *job) break;
      } else if (!status.empty() && str(status, "state") != "processing" && completed >= acked) {
        // Nothing runs: the newest job is the one, once nothing waits in the log.
        const Tail tail = log_tail(w.root / str(status, "log"), dir->filename().string());
        if (tail == Tail::draft) {
          w.err << "editgate wait: " << str(status, "log") << " ends in a draft: a fenced block is not closed, so "
                << "nothing runs; close it with a line of backticks\n";
          return exit_with(2);
        }
        if (tail == Tail::settled) {
          job = acked;
          break;
        }
      }
      if (w.not_running()) return exit_with(2);
      if (w.timed_out()) {
        w.err << "editgate wait: timed out; " << a.page << ": " << str(status, "state") << ": "
              << str(status, "message") << '\n';
        return exit_with(124);
      }
    } else {
      // The page may connect yet, while a gateway runs.
      if (w.not_running()) return exit_with(2);
      if (w.timed_out()) {
        w.err << "editgate wait: " << named.why << '\n';
        return exit_with(2);
      }
    }
    std::this_thread::sleep_for(poll_every);
  }
  return {std::nullopt, dir, *job};
}

// The job's replies (one per block), from the chat history.
json::array replies_of(const fs::path& dir, unsigned long long job) {
  json::array replies;
  auto history = slurp(dir / "chat_history.jsonl");
  if (!history) return replies;
  std::istringstream lines(*history);
  for (std::string line; std::getline(lines, line);) {
    boost::system::error_code pec;
    json::value v = json::parse(line, pec);
    if (pec || !v.is_object()) continue;
    const json::object& rec = v.get_object();
    const json::value* j = rec.if_contains("job");
    if (str(rec, "type") == "reply" && j && j->is_number() && j->to_number<unsigned long long>() == job)
      replies.push_back(rec);
  }
  return replies;
}

}  // namespace

int run_wait(const WaitArgs& a, std::ostream& out, std::ostream& err) {
  if (a.page.empty() == a.inbox.empty()) {
    err << "editgate wait: give either --page NAME or --inbox NAME\n";
    return 2;
  }
  auto found = services::find_workspace(a.root);
  if (!found) {
    err << "editgate wait: " << found.error().message << '\n';
    return 2;
  }
  const fs::path root = *found;
  auto places = services::places_of(root.string());
  if (!places || places->agents.empty()) {
    err << "editgate wait: " << (places ? root.string() + " has no git repository" : places.error().message) << '\n';
    return 2;
  }
  const Waiting w{root, places->agents,
                  std::chrono::steady_clock::now() +
                      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                          std::chrono::duration<double>(a.timeout_s)),
                  err};
  if (!a.inbox.empty()) return wait_inbox(a, w, out);

  const JobWait waited = wait_job(a, w);
  if (waited.exit) return *waited.exit;
  const fs::path& dir = *waited.dir;
  const unsigned long long job = waited.job;
  if (job == 0) {
    err << "editgate wait: " << a.page << " has run no job yet\n";
    return 2;
  }
  const json::array replies = replies_of(dir, job);
  bool failed = replies.empty();
  for (const auto& r : replies) failed = failed || str(r.get_object(), "status") != "ok";
  if (a.format == "json") {
    out << json::serialize(json::object{{"page", dir.filename().string()}, {"job", job}, {"replies", replies}}) << '\n';
  } else {
    for (const auto& r : replies) {
      const json::object& o = r.get_object();
      if (const json::value* v = o.if_contains("result"))
        out << repl::pretty_json(*v) << '\n';
      else
        err << str(o, "error") << '\n';
    }
    if (replies.empty()) err << "editgate wait: job " << job << " has no reply in the chat history\n";
  }
  return failed ? 1 : 0;
}

}  // namespace cli
