#include "repl/page_log.hpp"

#include "repl/page_state.hpp"
#include "repl/secrets.hpp"
#include "repl/transcript.hpp"

#include <span>

namespace repl {

namespace json = boost::json;

PageLog::PageLog(const editproto::Workspace& ws, const std::string& stem, TailJournal* journal,
                 std::function<void(const std::string& path)> before_write, std::size_t inline_result_bytes)
    : chat(ws, "debug/" + stem + ".md", journal),
      ws_(ws),
      stem_(stem),
      events_path_("debug/" + stem + ".events.log"),
      before_write_(std::move(before_write)),
      inline_result_bytes_(inline_result_bytes) {}

void PageLog::will_write() const {
  if (before_write_) before_write_(chat.path());
}

void PageLog::keep(std::vector<FileChange> changes) {
  for (FileChange& c : changes) uncommitted_.push_back(std::move(c));
}

void PageLog::note(const Lines& lines, const std::string& what) {
  will_write();
  if (!what.empty()) noted_ += (noted_.empty() ? "" : "; ") + what;
  Result<FileChange> done = Failure{};
  if (ends_with_footer(chat.tail())) {
    Lines with = lines;
    with.push_back("");
    with.emplace_back(footer);
    done = chat.replace({std::string(footer)}, with);
  }
  if (!done) {
    Lines with = lines;
    with.insert(with.begin(), "");
    done = chat.append(with);
  }
  if (done) keep(std::move(*done));
}

void PageLog::place_footer(bool running) {
  if (running || ends_with_footer(chat.tail())) return;
  will_write();
  if (auto done = chat.append({"", std::string(footer)})) keep(std::move(*done));
}

std::vector<FileChange> PageLog::log_events(const std::vector<Event>& events) {
  if (events.empty()) return {};
  auto now = ws_.read(events_path_, 64u << 20);
  if (!now) return {};
  auto after = std::make_shared<const std::string>(now->bytes + events_log_text(events));
  const std::string_view bytes = *after;
  if (!ws_.write_atomic(events_path_, std::span<const std::string_view>(&bytes, 1))) return {};
  FileChange c{events_path_, now->stamp.exists ? std::make_shared<const std::string>(std::move(now->bytes)) : nullptr,
               std::move(after)};
  return {std::move(c)};
}

Lines PageLog::render_result(std::uint64_t job, const json::object& msg, std::vector<FileChange>& extra) {
  if (!ok_result(msg)) return error_block(msg);
  const std::string text = result_text(msg);
  if (text.size() <= inline_result_bytes_) return fenced("JSON", text);
  // Too long for a log an LLM reads whole: the value goes to a side file.
  const std::string file = "debug-archive/" + stem_ + "-job" + std::to_string(job) + "-" + random_hex(4) + ".json";
  ChatLog archive(ws_, file);
  if (auto made = archive.create(split_lines(text + "\n"))) extra.push_back(std::move(*made));
  return archived_value(text, file);
}

}  // namespace repl
