// Pages the gateway's own browser opens: reserved before they exist, noted
// in their logs, and their screenshots saved beside the log and committed
// with the note that links them.
#include "record/trailers.hpp"
#include "repl/format.hpp"
#include "repl/log.hpp"
#include "repl/markdown.hpp"
#include "repl/names.hpp"
#include "repl/page_state.hpp"
#include "repl/secrets.hpp"

#include <string_view>

namespace repl {

namespace {
// The most screenshots a page row lists (the files stay).
constexpr std::size_t screenshots_listed = 20;
}  // namespace

Repl::Reserved Repl::reserve_owned(const std::string& name) {
  const std::string stem_name = sanitize_name(name);
  std::string id;
  for (int tries = 0; tries < 100; ++tries) {
    id = random_hex(id_digits);
    auto st = ws_.stat("debug/" + stem_name + "-" + id + ".md");
    if (!pages_.count(id) && !reserved_.count(id) && st && !st->exists) break;
  }
  Reserved r{id, keys_.issue(id, "browser"), stem_name + "-" + id};
  reserved_[id] = r.stem;
  return r;
}

// The reserved instance as a page, at its first hello.
Repl::Page* Repl::reserved_page(const std::string& id) {
  auto it = reserved_.find(id);
  if (it == reserved_.end()) return nullptr;
  forget_pages();
  auto page = std::make_unique<Page>();
  page->id = id;
  page->stem = it->second;
  page->owned = true;
  reserved_.erase(it);
  Page* p = page.get();
  pages_[id] = std::move(page);
  return p;
}

bool Repl::restart(Page& p) {
  if (p.link->restart()) return true;
  return p.owned && restart_owned && restart_owned(p.id);
}

std::string Repl::restarted_as(const Page& p) {
  return p.owned ? "its script stopped and its document loaded again, its globals gone" : "a new process, its globals gone";
}

void Repl::release_owned(const std::string& id, const std::string& why) {
  if (reserved_.erase(id)) return;
  auto it = pages_.find(id);
  if (it == pages_.end() || !it->second->owned) return;
  Page& p = *it->second;
  p.owned = false;
  note_owned(id, why, "page " + p.stem + ": " + why);
}

void Repl::note_owned(const std::string& id, const std::string& text, const std::string& summary) {
  auto it = pages_.find(id);
  if (it == pages_.end() || !it->second->log) return;
  Page& p = *it->second;
  p.held_notes.push_back({{"> _" + markdown_inline(text) + " at " + clock_text(wall::now()) + "_"}, summary, "editgate", {}});
  if (!p.running) flush_notes(p);
}

Result<std::string> Repl::add_screenshot(const std::string& id, std::string png, const std::string& agent,
                                         const std::string& what) {
  auto it = pages_.find(id);
  if (it == pages_.end() || !it->second->log)
    return Failure{Error::not_found, "the page has not connected yet, so it has no log to keep a screenshot beside"};
  Page& p = *it->second;
  if (p.last_screenshot >= max_screenshots)
    return Failure{Error::too_many_screenshots, "page " + p.stem + " has " + std::to_string(max_screenshots) +
                                                    " screenshots from this gateway run, the most it keeps"};
  // Numbers go on from the files there: a page that came back to its log.
  std::string name;
  do {
    name = p.stem + ".screenshots/" + std::to_string(++p.last_screenshot) + ".png";
    auto st = ws_.stat("debug/" + name);
    if (!st) return Failure{Error::io, "cannot look at debug/" + name + ": " + st.error().detail};
    if (!st->exists) break;
  } while (p.last_screenshot < max_screenshots);
  const std::string path = "debug/" + name;
  const std::string_view chunk = png;
  if (auto written = ws_.write_atomic(path, std::span<const std::string_view>(&chunk, 1)); !written)
    return Failure{Error::io, "cannot write " + path + ": " + written.error().detail};
  const std::string n = std::to_string(p.last_screenshot);
  Page::HeldNote note;
  note.lines = {"> _screenshot " + n + " by " + markdown_inline(agent) + " at " + clock_text(wall::now()) + " (" +
                    markdown_inline(what) + ")_",
                ">", "> ![screenshot " + n + "](" + name + ")"};
  note.summary = "screenshot " + n + " of " + p.stem;
  note.agent = agent;
  note.files.emplace_back(path, nullptr, std::make_shared<const std::string>(std::move(png)));
  p.held_notes.push_back(std::move(note));
  p.screenshots.push_back(path);
  if (p.screenshots.size() > screenshots_listed) p.screenshots.pop_front();
  if (!p.running) flush_notes(p);
  // The page's row lists it: the dashboard shows it at once.
  if (pages_changed) pages_changed();
  return path;
}

// Written once no job runs: a note never lands inside a reply being written.
void Repl::flush_notes(Page& p) {
  while (!p.held_notes.empty()) {
    Page::HeldNote note = std::move(p.held_notes.front());
    p.held_notes.pop_front();
    p.log->note(note.lines);
    p.log->place_footer(false);
    commit(p, std::move(note.files), note.agent, note.summary, {{record::trailer::kind, "page"}});
  }
}

}  // namespace repl
