// Markdown made to be slow for cmark-gfm 0.29.0.gfm.6 (its parser is
// quadratic in runs of "![[]()", its table extension in a row's cells)
// never takes long where the gateway reads it: fences() for the requests an
// agent appends and a log read's entries (repl/markdown.cpp), the
// dashboard's rendering (repl/log_render.hpp, repl/log_rendering.hpp).
// Each bound is generous: the unbounded code takes ten times longer or more.
#include "repl/format.hpp"
#include "repl/log_render.hpp"
#include "repl/log_rendering.hpp"
#include "repl/markdown.hpp"
#include "repl/render_thread.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::string repeat(std::string_view unit, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += unit;
  return out;
}

}  // namespace

TEST_CASE("requests are found in linear time after 480 KiB of image-link openers, their code as written", "[unit][markdown]") {
  std::string controls;
  for (char c = 1; c < 32; ++c)
    if (c != '\n' && c != '\r') controls += c;  // cmark ends lines at both
  // The brackets are hidden from cmark behind two control bytes the text
  // does not hold; with every one held, 1 and 2 in a fence read as brackets.
  for (const std::string& around : {std::string(), controls}) {
    const std::string text = around + "\n\n> **a** to p at 12:00:00\n> ```js\n> x[\x01] = [y]\x02;\n> ```\n\n" +
                             repeat("![[]()", 80'000) + "\n\n> **b** to p at 12:00:01\n- ````[a]\n  [b]\n  ````\n" +
                             "```js\nb[0]\n```\n";
    const auto start = Clock::now();
    const repl::Scan scan = repl::scan_requests(text);
    CHECK(Clock::now() - start < 2s);  // unbounded: about 20 s
    REQUIRE(scan.requests.size() == 2);
    CHECK(scan.requests[0].blocks.at(0).code == (around.empty() ? "x[\x01] = [y]\x02;\n" : "x[[] = [y]];\n"));
    CHECK(scan.requests[1].blocks.at(0).code == "b[0]\n");
    const auto fs = repl::fences(text, repl::split_lines(text));
    REQUIRE(fs.size() == 3);
    CHECK(fs[1].lang == "[a]");
    CHECK(fs[1].code == "[b]\n");
  }
}

TEST_CASE("a table header of 32,000 cells renders as text, fast; a table renders as one", "[unit][markdown]") {
  const std::string wide = repeat("|a", 32'000) + "|\n" + repeat("|-", 32'000) + "|\n";
  const auto start = Clock::now();
  const std::string html = repl::render_markdown_safe(wide);
  CHECK(Clock::now() - start < 1s);  // with the table extension: about 4 s
  CHECK(html.find("<table>") == std::string::npos);
  CHECK(repl::render_markdown_safe("| a | b |\n|---|---|\n| 1 | 2 |\n").find("<table>") != std::string::npos);
}

TEST_CASE("a log's rendering gives what it has when taken, and never an entry over 64 KiB", "[unit][markdown]") {
  std::vector<repl::LogEntry> entries(3);
  entries[0].text = "**bold** <b>x</b>\n";
  entries[1].text = repeat("a", repl::render_entry_bytes + 1);
  entries[2].text = "_last_\n";

  repl::LogRendering untouched(entries);
  for (const auto& html : untouched.take()) CHECK_FALSE(html);
  const std::atomic<bool> going{false}, stopping{true};
  untouched.run(going);  // abandoned: renders nothing more

  repl::LogRendering stopped(entries);
  stopped.run(stopping);  // the render thread stops: nothing more either
  for (const auto& html : stopped.take()) CHECK_FALSE(html);

  repl::LogRendering whole(entries);
  whole.run(going);
  const auto html = whole.take();
  REQUIRE(html.size() == 3);
  CHECK(html[0] == repl::render_markdown_safe(entries[0].text));
  CHECK_FALSE(html[1]);
  CHECK(html[2] == repl::render_markdown_safe(entries[2].text));

  const boost::json::object reply = repl::log_json(repl::LogTail{"node", "debug/node.md", 9, {}}, entries, html);
  const auto& out = reply.at("entries").as_array();
  REQUIRE(out.size() == 3);
  CHECK(out[0].at("rendered") == true);
  CHECK(out[0].at("html").as_string().find("<strong>bold</strong>") != std::string::npos);
  CHECK(out[1].at("rendered") == false);
  const boost::json::object plain = repl::entry_json(entries[0], std::nullopt);
  CHECK(plain.at("html") == "<pre class=\"log-plain\">**bold** &lt;b&gt;x&lt;/b&gt;\n</pre>\n");
  CHECK(plain.at("rendered") == false);
}

TEST_CASE("the render thread's end stops its running job at its next step, not at its end", "[unit][markdown]") {
  std::atomic<bool> started{false}, saw_stop{false};
  {
    repl::RenderThread thread(1);
    REQUIRE(thread.submit([&](const std::atomic<bool>& stopping) {
      started = true;
      // A job of 10,000 steps of 1 ms: the thread's end must not wait for all of them.
      for (int step = 0; step < 10000 && !stopping; ++step) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      saw_stop = stopping.load();
    }));
    while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(saw_stop);
}
