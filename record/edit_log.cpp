#include "record/edit_log.hpp"

#include "editproto/unicode.hpp"
#include "record/repl_ref.hpp"
#include "record/trailers.hpp"

#include <boost/json.hpp>

#include <cstdio>
#include <ctime>

namespace record {

namespace {

std::string when(std::int64_t time, int offset_minutes, bool iso) {
  std::time_t local = static_cast<std::time_t>(time + offset_minutes * 60);
  std::tm tm{};
  ::gmtime_r(&local, &tm);
  char date[32];
  std::strftime(date, sizeof date, iso ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &tm);
  const int off = offset_minutes < 0 ? -offset_minutes : offset_minutes;
  char zone[16];
  std::snprintf(zone, sizeof zone, iso ? "%c%02d:%02d" : " %c%02d%02d", offset_minutes < 0 ? '-' : '+', off / 60,
                off % 60);
  return std::string(date) + zone;
}

// "block 3 failed (old_mismatch): src/b.py:30"
std::optional<LoggedBlock> parse_block(std::string_view line) {
  if (!line.starts_with("block ")) return std::nullopt;
  line.remove_prefix(6);
  LoggedBlock b;
  std::size_t digits = 0;
  while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
  if (digits == 0 || digits > 9 || digits >= line.size() || line[digits] != ' ') return std::nullopt;
  b.index = std::stoul(std::string(line.substr(0, digits))) - 1;
  line.remove_prefix(digits + 1);
  std::size_t colon = line.find(": ");
  std::string_view head = line.substr(0, colon);
  std::size_t paren = head.find(" (");
  b.status = head.substr(0, paren);
  if (paren != std::string_view::npos && head.ends_with(')')) b.reason = head.substr(paren + 2, head.size() - paren - 3);
  if (colon != std::string_view::npos) {
    std::string_view where = line.substr(colon + 2);
    std::size_t c = where.rfind(':');
    if (c != std::string_view::npos && c + 1 < where.size() &&
        where.find_first_not_of("0123456789", c + 1) == std::string_view::npos) {
      b.line = std::stoul(std::string(where.substr(c + 1)));
      where = where.substr(0, c);
    }
    b.path = where;
  }
  if (b.status.empty()) return std::nullopt;
  return b;
}

}  // namespace

std::optional<LogEntry> read_entry(const editgit::CommitInfo& commit) {
  LogEntry e;
  e.kind = commit.trailer(trailer::kind);
  if (e.kind.empty()) return std::nullopt;
  e.commit = commit;
  e.agent = commit.trailer(trailer::agent);
  e.session = commit.trailer(trailer::session);
  std::string_view msg = commit.message;
  while (!msg.empty()) {
    std::size_t nl = msg.find('\n');
    if (auto b = parse_block(msg.substr(0, nl))) e.blocks.push_back(std::move(*b));
    msg.remove_prefix(nl == std::string_view::npos ? msg.size() : nl + 1);
  }
  return e;
}

std::string iso_time(const editgit::CommitInfo& commit) { return when(commit.time, commit.offset_minutes, true); }

void print_log_text(std::ostream& out, const LogPage& page) {
  for (const LogEntry& e : page.entries) {
    out << e.commit.id.substr(0, 12) << "  " << when(e.commit.time, e.commit.offset_minutes, false) << "  "
        << e.kind << "  " << (e.agent.empty() ? e.commit.author.name : e.agent);
    if (!e.session.empty()) out << "  session " << e.session;
    out << "\n    " << e.commit.summary << '\n';
    for (const LoggedBlock& b : e.blocks) {
      out << "    block " << b.index + 1 << ' ' << b.status;
      if (!b.reason.empty()) out << " (" << b.reason << ')';
      if (!b.path.empty()) out << ": " << b.path;
      if (b.line) out << ':' << *b.line;
      out << '\n';
    }
    if (std::string undone = e.commit.trailer(trailer::undoes); !undone.empty())
      out << "    reverts " << undone << '\n';
    if (std::string repl = e.commit.trailer(trailer::repl); !repl.empty())
      out << "    the REPL then: " << repl.substr(0, 12) << '\n';
    if (std::string branch = e.commit.trailer(trailer::branch); !branch.empty())
      out << "    its pages saw: " << branch.substr(0, 12) << '\n';
  }
  if (page.entries.empty()) out << "no editgate commits" << (page.ref == "HEAD" ? "" : " on " + page.ref) << "\n";
  if (!page.next_before.empty())
    out << "older: the same command with --before " << page.next_before.substr(0, 12) << "\n";
}

editgit::Result<LogPage> find_entries(const editgit::Repository& repo, const LogQuery& q) {
  LogPage page;
  page.ref = q.repl ? repl_ref(repo) : "HEAD";
  std::string from = q.repl ? page.ref : "";
  if (!q.before.empty()) {
    auto at = repo.find_commit(q.before);
    if (!at) return at.error();
    if (at->parents.empty()) return page;  // the first commit: nothing older
    from = at->parents.front();
  }
  // One more than asked: whether another page follows.
  bool more = false;
  auto found = repo.history(
      [&](const editgit::CommitInfo& c) {
        auto e = read_entry(c);
        if (!e || (!q.agent.empty() && e->agent != q.agent) || (!q.session.empty() && e->session != q.session) ||
            (!q.kind.empty() && e->kind != q.kind))
          return false;
        if (page.entries.size() == q.limit) {
          more = true;
          return true;
        }
        page.entries.push_back(std::move(*e));
        return true;
      },
      q.limit + 1, from);
  if (!found) return found.error();
  if (more && !page.entries.empty()) page.next_before = page.entries.back().commit.id;
  return page;
}

boost::json::array log_json(const std::vector<LogEntry>& entries) {
  namespace json = boost::json;
  auto str = [](std::string_view s) { return json::string(editproto::unicode::to_valid_utf8(s)); };
  auto who = [&](const editgit::Identity& i) { return json::object{{"name", str(i.name)}, {"email", str(i.email)}}; };
  json::array commits;
  for (const LogEntry& e : entries) {
    json::object c;
    c["commit"] = e.commit.id;
    json::array parents;
    for (const std::string& p : e.commit.parents) parents.push_back(json::string(p));
    c["parents"] = std::move(parents);
    c["kind"] = str(e.kind);
    c["agent"] = str(e.agent);
    c["session"] = str(e.session);
    c["author"] = who(e.commit.author);
    c["committer"] = who(e.commit.committer);
    c["time"] = iso_time(e.commit);
    c["summary"] = str(e.commit.summary);
    json::array blocks;
    for (const LoggedBlock& b : e.blocks) {
      json::object o;
      o["index"] = b.index;
      o["status"] = str(b.status);
      o["reason"] = b.reason.empty() ? json::value(nullptr) : json::value(str(b.reason));
      o["path"] = str(b.path);
      o["line"] = b.line ? json::value(*b.line) : json::value(nullptr);
      blocks.push_back(std::move(o));
    }
    c["blocks"] = std::move(blocks);
    json::object tr;
    for (const auto& [k, v] : e.commit.trailers) tr[k] = str(v);
    c["trailers"] = std::move(tr);
    commits.push_back(std::move(c));
  }
  return commits;
}

boost::json::object log_page_json(const LogPage& page) {
  return {{"ref", page.ref},
          {"commits", log_json(page.entries)},
          {"next_before", page.next_before.empty() ? boost::json::value(nullptr) : boost::json::value(page.next_before)}};
}

void print_log_json(std::ostream& out, const LogPage& page) {
  out << boost::json::serialize(log_page_json(page)) << '\n';
}

}  // namespace record
