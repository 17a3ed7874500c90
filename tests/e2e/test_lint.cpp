// editgate lint: chat logs read back. The gateway's per-instance logs are
// paired by order; the single debug.md by names and clocks, with its
// minimal test matrix. Every problem is checked by code and line.
#include "repl/format.hpp"
#include "repl/lint.hpp"
#include "support.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <ctime>

using namespace repl;
using Catch::Contains;
using Catch::EndsWith;
using Catch::StartsWith;
using Strings = std::vector<std::string>;

namespace {

const std::string kLint = FIXTURES "/lint/";

LintReport lint_fixture(const std::string& rel,
                        std::optional<std::chrono::system_clock::time_point> mtime = std::nullopt) {
  return lint_log(rel, test::read_file(kLint + rel), mtime);
}

// "line code" per problem.
Strings problems(const LintReport& r) {
  Strings out;
  for (const LintProblem& p : r.problems) out.push_back(std::to_string(p.line) + " " + std::string(to_string(p.code)));
  return out;
}

const LintProblem& problem_at(const LintReport& r, std::size_t line) {
  for (const LintProblem& p : r.problems)
    if (p.line == line) return p;
  FAIL("no problem at line " << line);
  static const LintProblem none;
  return none;
}

// "request->reply" and the flags, per pair.
Strings pairs(const LintReport& r) {
  Strings out;
  for (const LintPair& p : r.pairs) {
    std::string s = std::to_string(p.request_line) + "->" + std::to_string(p.reply_line);
    for (PairFlag f : p.flags) s += " " + std::string(to_string(f));
    out.push_back(s);
  }
  return out;
}

// Today at a local time of day, as a file's modification time.
std::chrono::system_clock::time_point today_at(int h, int m, int s) {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  tm.tm_hour = h;
  tm.tm_min = m;
  tm.tm_sec = s;
  tm.tm_isdst = -1;
  return std::chrono::system_clock::from_time_t(std::mktime(&tm));
}

test::Proc editgate(std::vector<std::string> args) {
  args.insert(args.begin(), EDITGATE_BIN);
  return test::run(std::move(args));
}

}  // namespace

// ---- per-instance logs ---------------------------------------------------------

TEST_CASE("lint: a per-instance log as the gateway writes it is clean", "[lint]") {
  // Written by a running gateway and its Node page (the late reply added as it writes one).
  LintReport r = lint_fixture("good/debug/node-7e1e.md");
  CHECK(r.form == LogForm::per_instance);
  CHECK(r.requests == 8);
  CHECK(r.replies == 9);
  CHECK(problems(r).empty());
  // An error reply, console output after a result, a background block (line
  // 50: neither request nor reply), two blocks of one request, a timeout and
  // its late reply.
  CHECK(pairs(r) ==
        Strings{"6->11", "16->21", "27->32", "40->45", "55->61", "66->70", "75->80", "75->85 late", "90->95"});
  CHECK_THAT(r.pairs[7].note, Contains("late") && Contains("line 80"));
  CHECK(r.pairs[0].note.empty());
}

TEST_CASE("lint: a per-instance log with every problem code", "[lint]") {
  LintReport r = lint_fixture("bad/debug/page-1a2b.md");
  CHECK(r.form == LogForm::per_instance);
  CHECK(problems(r) == Strings{"3 orphan_reply", "8 malformed_header", "18 duplicate_footer", "20 malformed_header",
                               "28 executing", "32 unanswered", "37 unclosed_fence"});
  // The block under the malformed header is a request of its own; the open
  // fence's header runs nothing.
  CHECK(pairs(r) == Strings{"9->13", "22->27"});
  CHECK(r.requests == 3);
  CHECK(r.replies == 3);
  CHECK_THAT(problem_at(r, 3).message, Contains("no runnable block above it"));
  CHECK_THAT(problem_at(r, 8).message, Contains("25:61:07 is not a time of day"));
  CHECK_THAT(problem_at(r, 18).message, Contains("line 30") && Contains("delete this one"));
  CHECK_THAT(problem_at(r, 20).message, Contains("no ' to <name>'"));
  CHECK_THAT(problem_at(r, 28).message, Contains("line 27") && Contains("line 22") && Contains("'executing (5s)'"));
  CHECK_THAT(problem_at(r, 32).message, Contains("below the footer"));
  CHECK_THAT(problem_at(r, 37).message, Contains("line 38 is its text") && Contains("not run") && Contains("```"));
}

TEST_CASE("lint: per-instance pairs by order and never compares clocks", "[lint]") {
  const std::string log =
      "> **claude** to node-1a2b at 23:59:59\n```js\nslow()\n```\n\n"
      "> **node-1a2b** to claude at 00:00:01 (1.9s)\n```JSON\n1\n```\n";
  LintReport r = lint_log("debug/node-1a2b.md", log, std::nullopt);
  CHECK(r.form == LogForm::per_instance);
  CHECK(pairs(r) == Strings{"1->6"});
  CHECK(problems(r).empty());

  // Headers without "> " pair the same; a block with no header of its own
  // after a reply continues the request, and a second reply has nothing left.
  const std::string bare =
      "**claude** to node-1a2b at 10:00:00\n```js\n1\n```\n"
      "**node-1a2b** to claude at 10:00:00 (1ms)\n```JSON\n1\n```\n"
      "and then\n```javascript\n2\n```\n"
      "**node-1a2b** to claude at 10:00:01 (1ms)\n```JSON\n2\n```\n"
      "**node-1a2b** to claude at 10:00:02 (1ms)\n```JSON\n3\n```\n";
  LintReport b = lint_log("debug/node-1a2b.md", bare, std::nullopt);
  CHECK(pairs(b) == Strings{"1->5", "10->13"});
  CHECK(problems(b) == Strings{"17 orphan_reply"});
  CHECK_THAT(b.problems[0].message, Contains("the last, at line 10, by the reply at line 13"));
}

TEST_CASE("lint: a request ended by a timeout leaves its later blocks unanswered", "[lint]") {
  const std::string log =
      "> **claude** to node-1a2b at 10:00:00\n```js\nawait forever()\n```\n\n"
      "> **node-1a2b** to claude at 10:00:00 (**ERROR** timeout after 60.0s)\n```Error\ntimeout: no reply\n```\n"
      "Then:\n```js\nnext()\n```\n\n"
      "> Write code in a fenced JS block below to execute against this page.\n";
  LintReport r = lint_log("debug/node-1a2b.md", log, std::nullopt);
  CHECK(pairs(r) == Strings{"1->6"});
  CHECK(problems(r) == Strings{"11 unanswered"});
  CHECK_THAT(r.problems[0].message, Contains("never run") && Contains("line 6"));

  // A late reply with no timeout above it belongs to nothing.
  LintReport late = lint_log("debug/node-1a2b.md",
                             "> **node-1a2b** to claude at 10:00:03 (late, 3.0s after the request)\n```JSON\n5\n```\n",
                             std::nullopt);
  CHECK(problems(late) == Strings{"1 orphan_reply"});
  CHECK_THAT(late.problems[0].message, Contains("late reply"));
}

TEST_CASE("lint: the footer counts once and only outside fences", "[lint]") {
  const std::string f(footer);
  LintReport one = lint_log("debug/p-1a2b.md", "# p\n\n```Text\n" + f + "\n```\n\n" + f + "\n", std::nullopt);
  CHECK(problems(one).empty());
  LintReport three = lint_log("debug/p-1a2b.md", f + "\n\n" + f + "\n\n" + f + "\n", std::nullopt);
  CHECK(problems(three) == Strings{"1 duplicate_footer", "3 duplicate_footer"});
  CHECK_THAT(three.problems[0].message, Contains("line 5 (and 1 more)"));
}

TEST_CASE("lint: header-like lines that do not parse are malformed and prose is not", "[lint]") {
  const std::string log =
      "**a** to b at 12:00\n"                    // 1: not HH:MM:SS
      "> **a** to b c at 12:00:00\n"             // 2: a name with a space
      "**a** to b at 12:00:00 oops\n"            // 3: not a (...) suffix
      "> **b** background at 12:00:61\n"         // 4
      "**a** to (12:00:00)\n"                    // 5: no name after "to"
      "````md\n> **x** to p at 99:99:99\n````\n"  // inside a fence
      "**Note:** be careful\n"                   // prose
      "**Tip** to avoid this, run it twice\n"    // prose
      "**Note** to self\n";                      // a bare form with no block after it: prose
  LintReport r = lint_log("debug/p-1a2b.md", log, std::nullopt);
  CHECK(problems(r) == Strings{"1 malformed_header", "2 malformed_header", "3 malformed_header",
                               "4 malformed_header", "5 malformed_header"});
  CHECK_THAT(r.problems[0].message, Contains("'12:00' is not a time written HH:MM:SS"));
  CHECK_THAT(r.problems[1].message, Contains("'b c' after ' to ' is not one name"));
  CHECK_THAT(r.problems[2].message, Contains("'oops' after the time"));
  CHECK_THAT(r.problems[3].message, Contains("12:00:61 is not a time of day"));
  CHECK_THAT(r.problems[4].message, Contains("no name after ' to '"));
  CHECK(r.headers == 0);
}

TEST_CASE("lint: fences in quotes close and messages stay valid UTF-8", "[lint]") {
  LintReport quoted = lint_log("debug/p-1a2b.md", "> ```Text\n> **p** to a at 12:00:00\n> ```\n", std::nullopt);
  CHECK(problems(quoted).empty());

  // A bad byte, and an é where the quote is cut (its 78th byte).
  const std::string name = "\xff" + std::string(71, 'x') + "\xc3\xa9\xc3\xa9\xc3\xa9";
  LintReport r = lint_log("debug/p-1a2b.md", "> **" + name + "** to p at 99:00:00\n", std::nullopt);
  REQUIRE(problems(r) == Strings{"1 malformed_header"});
  CHECK(boost::json::parse(boost::json::serialize(lint_json(r))).at("problems").as_array().size() == 1);
  CHECK_THAT(r.problems[0].message, Contains("x...'") && !Contains("\xc3."));
  CHECK(r.problems[0].message.find('\xff') == std::string::npos);
}

// ---- the single debug.md: its minimal test matrix -----------------------------

TEST_CASE("lint: single debug.md: happy path - one request and its immediate reply", "[lint]") {
  LintReport r = lint_fixture("seed000/happy/debug.md");
  CHECK(r.form == LogForm::single_file);  // by its name, though it names one page
  CHECK(pairs(r) == Strings{"4->9"});
  CHECK(problems(r).empty());
  CHECK(r.requests == 1);
  CHECK(r.replies == 1);
}

TEST_CASE("lint: single debug.md: same-second requests answered in reverse order are ambiguous", "[lint]") {
  LintReport r = lint_fixture("seed000/same-second/debug.md");
  // Nearest prior by time, FIFO within the second: the first reply goes to
  // the first request, and both matches are flagged for a human.
  CHECK(pairs(r) == Strings{"1->13 ambiguous", "7->18 ambiguous"});
  CHECK(problems(r).empty());
  CHECK_THAT(r.pairs[0].note, Contains("2 requests to 12-dove at 22:52:47 (lines 1, 7)") && Contains("FIFO"));
  CHECK(lint_text(r) ==
        "seed000/same-second/debug.md:13: note: " + r.pairs[0].note + "\n" +
            "seed000/same-second/debug.md:18: note: " + r.pairs[1].note + "\n");
}

TEST_CASE("lint: single debug.md: an incomplete fence is not a request and is reported", "[lint]") {
  LintReport r = lint_fixture("seed000/draft/debug.md");
  CHECK(r.requests == 1);
  CHECK(pairs(r) == Strings{"1->6"});
  CHECK(problems(r) == Strings{"12 unclosed_fence"});
  CHECK_THAT(r.problems[0].message, Contains("'```JS'") && Contains("line 13 is its text"));
}

TEST_CASE("lint: single debug.md: a reply without a time falls back to the file time", "[lint]") {
  LintReport after = lint_fixture("seed000/no-time/debug.md", today_at(22, 53, 0));
  CHECK(pairs(after) == Strings{"1->6 fallback_timestamp"});
  CHECK_THAT(after.pairs[0].note, Contains("22:53:00"));
  CHECK(problems(after).empty());

  // A file time before the request: no prior request, so the latest one (clock skew).
  LintReport before = lint_fixture("seed000/no-time/debug.md", today_at(22, 50, 0));
  CHECK(pairs(before) == Strings{"1->6 fallback_timestamp heuristic"});

  LintReport unknown = lint_fixture("seed000/no-time/debug.md");
  CHECK(pairs(unknown) == Strings{"1->6 fallback_timestamp"});
  CHECK_THAT(unknown.pairs[0].note, Contains("unknown"));
}

TEST_CASE("lint: single debug.md: a reply for a page nobody asked is an orphan", "[lint]") {
  LintReport r = lint_fixture("seed000/orphan/debug.md");
  CHECK(pairs(r) == Strings{"1->6"});
  CHECK(problems(r) == Strings{"11 orphan_reply"});
  CHECK_THAT(r.problems[0].message, Contains("to 7-zen-1201-03"));
}

TEST_CASE("lint: single debug.md: example - several pages in one file and a job still executing", "[lint]") {
  LintReport r = lint_fixture("seed000/example/debug.md");
  CHECK(r.form == LogForm::single_file);
  CHECK(pairs(r) == Strings{"5->10", "15->20", "29->34"});
  CHECK(problems(r) == Strings{"35 executing"});
  CHECK_THAT(r.problems[0].message, Contains("'executing ...'"));
  CHECK(r.requests == 3);
  CHECK(r.replies == 3);
}

TEST_CASE("lint: single debug.md: names - short page names and the generic agent", "[lint]") {
  const std::string head = "**claude** to 12-dove at 10:00:00\n```JS\n1\n```\n\n";
  // Another agent's reply is not claude's; a reply to "agent" is anyone's.
  LintReport other = lint_log("debug.md", head + "**12-dove-1631-13** to gpt at 10:00:01 (1ms)\n```JSON\n1\n```\n",
                              std::nullopt);
  CHECK(problems(other) == Strings{"1 unanswered", "6 orphan_reply"});
  LintReport generic = lint_log(
      "debug.md", head + "**12-dove-1631-13** to agent at 10:00:01 (1ms)\n```JSON\n1\n```\n", std::nullopt);
  CHECK(pairs(generic) == Strings{"1->6"});
  // "12-dove" does not name "12-doves-1".
  LintReport prefix = lint_log("debug.md", head + "**12-doves-1** to agent at 10:00:01 (1ms)\n```JSON\n1\n```\n",
                               std::nullopt);
  CHECK(problems(prefix) == Strings{"1 unanswered", "6 orphan_reply"});
}

TEST_CASE("lint: single debug.md: the late form and clock skew", "[lint]") {
  const std::string log =
      "**agent** to 12-dove at 22:52:47\n```JS\nslow()\n```\n\n"
      "**agent** to 7-zen at 22:52:50\n```JS\n1\n```\n\n"
      "**7-zen-1201-03** to agent at 22:52:40 (2ms)\n```JSON\n1\n```\n\n"
      "**12-dove-1631-13** to agent(22:53:10)\n```JSON\n2\n```\n";
  LintReport r = lint_log("debug.md", log, std::nullopt);
  CHECK(pairs(r) == Strings{"6->11 heuristic", "1->16 late"});
  CHECK(problems(r).empty());
  CHECK_THAT(r.pairs[0].note, Contains("clock skew"));
  CHECK_THAT(r.pairs[1].note, Contains("22:53:10"));
}

TEST_CASE("lint: the form follows the file name and the pages its headers name", "[lint]") {
  const std::string one = test::read_file(kLint + "seed000/happy/debug.md");
  CHECK(lint_log("debug/12-dove-1631-13.md", one, std::nullopt).form == LogForm::per_instance);
  CHECK(lint_log("debug.md", one, std::nullopt).form == LogForm::single_file);
  const std::string two = test::read_file(kLint + "seed000/orphan/debug.md");
  CHECK(lint_log("debug/x.md", two, std::nullopt).form == LogForm::single_file);
}

TEST_CASE("lint: a per-instance log is named by its file, whatever page a request header names", "[lint]") {
  // The gateway runs what is appended to node-5a87's log in node-5a87, so
  // its reply answers the request whatever page the header named.
  const std::string log = "# node-5a87\n\n"
                          "> **shell** to page at 10:00:00\n```js\n6 * 7\n```\n\n"
                          "> **node-5a87** to shell at 10:00:00 (3ms)\n```JSON\n42\n```\n\n" +
                          std::string(footer) + "\n";
  LintReport r = lint_log("debug/node-5a87.md", log, std::nullopt);
  CHECK(r.form == LogForm::per_instance);
  CHECK(problems(r).empty());
  CHECK(pairs(r) == Strings{"3->8"});
  // A file not named for an instance still goes by the pages its headers name.
  CHECK(lint_log("debug/notes.md", log, std::nullopt).form == LogForm::single_file);
}

TEST_CASE("lint: text and json output", "[lint]") {
  LintReport r = lint_fixture("bad/debug/page-1a2b.md");
  const std::string text = lint_text(r);
  CHECK_THAT(text, StartsWith("bad/debug/page-1a2b.md:3: orphan_reply: this reply has no request: "));
  CHECK_THAT(text, Contains("\nbad/debug/page-1a2b.md:37: unclosed_fence: the fence '```js' opened here"));
  CHECK(std::count(text.begin(), text.end(), '\n') == 7);

  const boost::json::object o = lint_json(r);
  CHECK(o.at("path").as_string() == "bad/debug/page-1a2b.md");
  CHECK(o.at("form").as_string() == "per-instance");
  CHECK(o.at("requests").to_number<int>() == 3);
  CHECK(o.at("replies").to_number<int>() == 3);
  const auto& ps = o.at("pairs").as_array();
  REQUIRE(ps.size() == 2);
  CHECK(ps[1].at("request_line").to_number<int>() == 22);
  CHECK(ps[1].at("reply_line").to_number<int>() == 27);
  CHECK(ps[1].at("flags").as_array().empty());
  const auto& pr = o.at("problems").as_array();
  REQUIRE(pr.size() == 7);
  CHECK(pr[4].at("line").to_number<int>() == 28);
  CHECK(pr[4].at("code").as_string() == "executing");
}

// ---- the command -----------------------------------------------------------------

TEST_CASE("cli: lint reads debug/ under --root and skips the registry (exit 0)", "[lint]") {
  test::Proc r = editgate({"lint", "--root", kLint + "good"});
  CHECK(r.exit_code == 0);
  CHECK(r.out ==
        "debug/node-7e1e.md:85: note: reply matched the request at line 75 (late: it came after the timeout reply "
        "at line 80)\n1 file, 8 requests, 9 replies, 0 problems\n");
  CHECK(r.err.empty());
}

TEST_CASE("cli: lint exits 1 on problems - text and json", "[lint]") {
  test::Proc text = editgate({"lint", "--root", kLint + "bad"});
  CHECK(text.exit_code == 1);
  CHECK_THAT(text.out, StartsWith("debug/page-1a2b.md:3: orphan_reply: "));
  CHECK_THAT(text.out, Contains("\ndebug/page-1a2b.md:28: executing: "));
  CHECK_THAT(text.out, EndsWith("\n1 file, 3 requests, 3 replies, 7 problems\n"));

  test::Proc json = editgate({"lint", "--root", kLint + "bad", "--format", "json"});
  CHECK(json.exit_code == 1);
  const boost::json::value v = boost::json::parse(json.out);
  CHECK(v.at("problems").to_number<int>() == 7);
  const auto& files = v.at("files").as_array();
  REQUIRE(files.size() == 1);
  CHECK(files[0].at("path").as_string() == "debug/page-1a2b.md");
  CHECK(files[0].at("form").as_string() == "per-instance");
  CHECK(files[0].at("problems").as_array()[0].at("code").as_string() == "orphan_reply");

  // Files named on the command line; a debug.md with exchanges under --root.
  test::Proc named = editgate({"lint", kLint + "seed000/same-second/debug.md", kLint + "seed000/orphan/debug.md"});
  CHECK(named.exit_code == 1);
  CHECK_THAT(named.out,
             Contains("seed000/same-second/debug.md:13: note: reply matched the request at line 1 (ambiguous: "));
  CHECK_THAT(named.out, Contains("seed000/orphan/debug.md:11: orphan_reply: "));
  CHECK_THAT(named.out, EndsWith("\n2 files, 3 requests, 4 replies, 1 problem\n"));
  test::Proc example = editgate({"lint", "--root", kLint + "seed000/example", "--format", "json"});
  CHECK(example.exit_code == 1);
  CHECK(boost::json::parse(example.out).at("files").as_array()[0].at("form").as_string() == "single-file");
}

TEST_CASE("cli: lint exits 2 on an unreadable file or bad arguments", "[lint]") {
  test::TempDir dir;
  test::Proc empty = editgate({"lint", "--root", dir.str()});
  CHECK(empty.exit_code == 0);
  CHECK(empty.out == "0 files, 0 requests, 0 replies, 0 problems\n");

  test::Proc missing = editgate({"lint", (dir / "nope.md").string(), kLint + "seed000/happy/debug.md"});
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Contains("editgate lint: cannot read " + (dir / "nope.md").string() + ": "));
  CHECK_THAT(missing.out, EndsWith("1 file, 1 request, 1 reply, 0 problems\n"));  // the others are still read

  CHECK(editgate({"lint", dir.str()}).exit_code == 2);  // a folder
  CHECK(editgate({"lint", "--format", "xml"}).exit_code == 2);
  CHECK(editgate({"lint", "--root", (dir / "nope").string()}).exit_code == 2);
}
