// A chat log read back for people (repl/log_render.hpp): entries split at
// headers outside fences and given their kind, paged back from the end in
// windows that resync at an entry so none is cut, bounds that cut only an
// entry bigger than a window (and say so), and page text rendered inert.
#include "editproto/unicode.hpp"
#include "repl/format.hpp"
#include "repl/log_render.hpp"
#include "support.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <string>
#include <vector>

namespace {

using repl::EntryKind;

struct LogFile {
  test::TempDir dir;
  std::string text;
  int fd = -1;
  explicit LogFile(std::string t) : text(std::move(t)) {
    test::write_file(dir / "node.md", text);
    fd = ::open((dir / "node.md").c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
  }
  ~LogFile() { ::close(fd); }
};

std::string join(const repl::Lines& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// One exchange as the gateway writes it: a request, its reply, a blank line.
std::string exchange(int i, std::string value = "") {
  if (value.empty()) value = std::to_string(i * 7);
  repl::Lines l{repl::request_header("agent", "node", "12:00:00")};
  for (std::string& x : repl::fenced("js", "compute(" + std::to_string(i) + ")")) l.push_back(std::move(x));
  l.push_back("");
  l.push_back(repl::reply_header("node", "agent", "12:00:01", "17ms"));
  for (std::string& x : repl::fenced("json", value)) l.push_back(std::move(x));
  l.push_back("");
  return join(l);
}

// A new log's title and instructive header, without its footer.
std::string title() {
  repl::Lines l = repl::new_log("node", "node", "debug/node.events.log");
  l.pop_back();
  return join(l);
}

// Every entry of the log, paging back from its end with `limits`, oldest first.
std::vector<repl::LogEntry> all(const LogFile& log, const repl::LogLimits& limits, std::size_t* pages = nullptr) {
  std::vector<repl::LogEntry> out;
  std::uint64_t before = log.text.size();
  for (std::size_t n = 1;; ++n) {
    auto r = repl::read_log_back(log.fd, before, log.text.size(), limits);
    REQUIRE(r.has_value());
    REQUIRE(!r->entries.empty());
    out.insert(out.begin(), r->entries.begin(), r->entries.end());
    if (!r->next_before) {
      if (pages) *pages = n;
      return out;
    }
    REQUIRE(*r->next_before < before);  // paging always moves on
    before = *r->next_before;
  }
}

// Whether an attribute of `html` holds a script or data address.
bool unsafe_address(std::string html) {
  for (char& c : html) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* scheme : {"=\"javascript:", "=\"vbscript:", "=\"data:"})
    if (html.find(scheme) != std::string::npos) return true;
  return false;
}

bool valid_utf8(const std::string& s) { return editproto::unicode::find_invalid_utf8(s) == std::string::npos; }

}  // namespace

TEST_CASE("a chat log splits into entries at its headers, each with its kind", "[unit][log_render]") {
  std::string text = title();  // the title and the instructive header: a note
  text += exchange(1);
  text += join({repl::request_header("agent", "node", "12:00:02"), "```js", "throw new Error('x')", "```", "",
                repl::reply_header("node", "agent", "12:00:03", "**ERROR** after 16ms"), "```Error", "x", "```", "",
                "> **node** background at 12:00:04", "```Text console.log", "tick", "```", "",
                repl::reply_header("node", "agent", "12:00:05", ""), repl::placeholder(3), "",
                std::string(repl::footer)});
  const auto entries = repl::split_entries(text, 100);
  REQUIRE(entries.size() == 8);
  const std::vector<EntryKind> kinds{EntryKind::note,    EntryKind::request, EntryKind::reply, EntryKind::request,
                                     EntryKind::error,   EntryKind::event,   EntryKind::reply, EntryKind::note};
  for (std::size_t i = 0; i < kinds.size(); ++i) CHECK(entries[i].kind == kinds[i]);
  CHECK(entries[0].offset == 100);
  CHECK(entries[0].text.starts_with("# node\n"));
  // Every header's entry starts at its header line, the offset in the file.
  CHECK(entries[1].offset == 100 + title().size());
  CHECK(text.substr(entries[2].offset - 100).starts_with("> **node** to agent at 12:00:01 (17ms)\n"));
  CHECK(entries[1].from == "agent");
  CHECK(entries[1].to == "node");
  CHECK(entries[1].clock == "12:00:00");
  CHECK(entries[1].text == "```js\ncompute(1)\n```\n\n");
  CHECK(entries[2].suffix == "17ms");
  CHECK(entries[4].suffix == "**ERROR** after 16ms");
  CHECK(entries[5].from == "node");
  CHECK(entries[5].clock == "12:00:04");
  CHECK(entries[7].text == std::string(repl::footer) + "\n");
}

TEST_CASE("a header inside a fenced block is text of its entry, never an entry", "[unit][log_render]") {
  const std::string text = join({repl::reply_header("node", "agent", "12:00:01", "1ms"), "```json",
                                 "> **node** to agent at 12:00:09 (1ms)", "> **agent** to node at 12:00:09",
                                 "> **x** background at 12:00:09", "```", ""});
  const auto entries = repl::split_entries(text, 0);
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].kind == EntryKind::reply);
  CHECK(entries[0].text.find("12:00:09 (1ms)") != std::string::npos);
}

TEST_CASE("paging back from the end gives every entry once, whatever the window", "[unit][log_render]") {
  std::string text = title();
  for (int i = 0; i < 300; ++i) text += exchange(i);
  text += join({std::string(repl::footer)});
  const LogFile log(text);
  const auto whole = repl::split_entries(text, 0);
  REQUIRE(whole.size() == 602);  // the title, 300 requests and replies, the footer
  for (std::size_t window : {1024u, 3001u, 65536u, 1u << 22}) {
    repl::LogLimits limits;
    limits.window_bytes = window;
    std::size_t pages = 0;
    const auto paged = all(log, limits, &pages);
    REQUIRE(paged.size() == whole.size());
    for (std::size_t i = 0; i < whole.size(); ++i) {
      CHECK(paged[i].offset == whole[i].offset);
      CHECK(paged[i].kind == whole[i].kind);
      CHECK(paged[i].text == whole[i].text);  // resynced at an entry: none is cut
      CHECK(!paged[i].cut_head);
      CHECK(!paged[i].cut_tail);
    }
    if (window < text.size()) CHECK(pages > 1);
  }
}

TEST_CASE("a window that starts inside an entry resyncs at the next one, and the read starts there",
          "[unit][log_render]") {
  const std::string text = exchange(1) + exchange(2);
  const LogFile log(text);
  // The window's first byte is inside the first exchange's reply.
  repl::LogLimits limits;
  limits.window_bytes = text.size() - exchange(1).size() + 10;
  auto r = repl::read_log_back(log.fd, text.size(), text.size(), limits);
  REQUIRE(r.has_value());
  REQUIRE(r->entries.size() == 2);
  CHECK(r->entries[0].offset == exchange(1).size());
  CHECK(r->entries[0].kind == EntryKind::request);
  REQUIRE(r->next_before);
  CHECK(*r->next_before == exchange(1).size());
  // The previous page ends there, its last entry whole.
  auto older = repl::read_log_back(log.fd, *r->next_before, text.size(), limits);
  REQUIRE(older.has_value());
  REQUIRE(older->entries.size() == 2);
  CHECK(!older->entries.back().cut_tail);
  CHECK(!older->next_before);
}

TEST_CASE("an entry bigger than the window comes cut, marked, and paging goes on past it", "[unit][log_render]") {
  const std::string big(100 * 1024, 'y');
  const std::string text = exchange(1) + exchange(2, big) + exchange(3);
  const LogFile log(text);
  repl::LogLimits limits;
  limits.window_bytes = 8 * 1024;
  std::size_t pages = 0;
  const auto paged = all(log, limits, &pages);
  CHECK(pages > 10);
  std::size_t cut = 0;
  for (const repl::LogEntry& e : paged) {
    CHECK(e.text.size() <= limits.window_bytes);
    if (e.cut_head || e.cut_tail) ++cut;
  }
  CHECK(cut > 10);
  // The newest read: the third exchange whole, then the big reply's tail
  // on the next, cut at its head and marked so in its HTML.
  auto r = repl::read_log_back(log.fd, text.size(), text.size(), limits);
  REQUIRE(r.has_value());
  REQUIRE(r->entries.size() == 2);
  CHECK(r->entries[0].offset == exchange(1).size() + exchange(2, big).size());
  r = repl::read_log_back(log.fd, *r->next_before, text.size(), limits);
  REQUIRE(r.has_value());
  REQUIRE(r->entries.size() == 1);
  CHECK(r->entries[0].cut_head);
  CHECK(!r->entries[0].cut_tail);
  CHECK(r->entries[0].text.ends_with("yyy\n```\n\n"));
  const boost::json::object o = repl::entry_json(r->entries[0]);
  CHECK(o.at("cut") == "head");
  CHECK(o.at("html").as_string().starts_with("<p class=\"log-cut\">"));
  // The big reply's header comes back cut at its tail.
  bool header_cut_tail = false;
  for (const repl::LogEntry& e : paged)
    if (e.kind == EntryKind::reply && !e.cut_head && e.cut_tail) header_cut_tail = true;
  CHECK(header_cut_tail);
}

TEST_CASE("one line bigger than the window is read a window at a time", "[unit][log_render]") {
  std::string text = "é" + std::string(20000, 'z') + "é" + std::string(20000, 'q');  // no line break
  const LogFile log(text);
  repl::LogLimits limits;
  limits.window_bytes = 4096 + 1;  // cuts through a two-byte character somewhere
  const auto paged = all(log, limits);
  std::string joined;
  for (const repl::LogEntry& e : paged) joined += e.text;
  CHECK(joined == text);
  for (const repl::LogEntry& e : paged) CHECK(valid_utf8(boost::json::value_to<std::string>(repl::entry_json(e).at("html"))));
}

TEST_CASE("a read returns at most LogLimits::entries, the newest, and pages back to the rest", "[unit][log_render]") {
  std::string text;
  for (int i = 0; i < 40; ++i) text += exchange(i);
  const LogFile log(text);
  repl::LogLimits limits;
  limits.entries = 7;
  auto r = repl::read_log_back(log.fd, text.size(), text.size(), limits);
  REQUIRE(r.has_value());
  REQUIRE(r->entries.size() == 7);
  REQUIRE(r->next_before);
  CHECK(*r->next_before == r->entries.front().offset);
  CHECK(all(log, limits).size() == 80);
}

TEST_CASE("page text renders inert: no raw HTML, no script links, valid UTF-8, no NUL", "[unit][log_render]") {
  const std::string hostile = std::string("<script>alert(1)</script>\n\n") +
                              "<img src=x onerror=alert(1)>\n\n"
                              "[click](javascript:alert(1)) and <JavaScript:alert(2)> and ![i](javascript:alert(3))\n\n"
                              "[v](vbscript:x) [d](data:text/html,<script>x</script>) [ok](https://example.com/)\n\n"
                              "bad \xff\xfe bytes and a NUL " + std::string(1, '\0') + " here\n\n" +
                              "| a | b |\n|---|---|\n| <b onmouseover=x>1</b> | ~~2~~ |\n";
  std::string with_nul = hostile;
  with_nul.push_back('\0');
  const std::string html = repl::render_markdown_safe(with_nul);
  INFO(html);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<b ") == std::string::npos);
  CHECK(html.find("onerror") == std::string::npos);
  // A link or image keeps its text, never an unsafe address.
  CHECK(!unsafe_address(html));
  CHECK(html.find("href=\"https://example.com/\"") != std::string::npos);
  CHECK(html.find('\0') == std::string::npos);
  CHECK(valid_utf8(html));
  CHECK(html.find("<table>") != std::string::npos);  // GFM's extensions are on
  CHECK(html.find("<del>2</del>") != std::string::npos);

  // The same through a log read: the reply's entry and its fields.
  // Written as a person or a broken writer might: the header's name is not UTF-8.
  const std::string text = join({"> **node** to ag\xff at 12:00:01 (1ms)", "", with_nul});
  const LogFile log(text);
  auto r = repl::read_log_back(log.fd, text.size(), text.size(), {});
  REQUIRE(r.has_value());
  REQUIRE(r->entries.size() == 1);
  const boost::json::object o = repl::entry_json(r->entries[0]);
  const std::string h(o.at("html").as_string());
  CHECK(h.find("<script") == std::string::npos);
  CHECK(!unsafe_address(h));
  CHECK(valid_utf8(h));
  CHECK(valid_utf8(std::string(o.at("to").as_string())));
}
