// file_read: a range of a workspace file's lines, numbered or exact.
#include "services/files.hpp"

#include "editproto/block.hpp"
#include "editproto/text_file.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <string_view>

namespace services {

namespace json = boost::json;

Failure from_engine(const editproto::Failure& f) {
  using editproto::Reason;
  Error code = Error::io;
  switch (f.reason) {
    case Reason::path_escape:
    case Reason::protected_path: code = Error::path_refused; break;
    case Reason::file_not_found: code = Error::not_found; break;
    case Reason::binary:
    case Reason::encoding: code = Error::binary_file; break;
    case Reason::too_large: code = Error::file_too_large; break;
    default: break;
  }
  return {code, std::string(editproto::to_string(f.reason)) + ": " + f.detail};
}

// How often a file that changes while it is read is read again.
constexpr int read_attempts = 3;

Result<editproto::FileContent> read_whole(const editproto::Workspace& ws, const std::string& real, std::size_t max_bytes) {
  for (int attempt = 0; attempt < read_attempts; ++attempt) {
    auto content = ws.read(real, max_bytes);
    if (!content) return from_engine(content.error());
    if (!content->stamp.exists) return Failure{Error::not_found, "'" + real + "' does not exist"};
    auto after = ws.stat(real);
    if (!after) return from_engine(after.error());
    if (*after == content->stamp) return std::move(*content);
  }
  return Failure{Error::conflict, "'" + real + "' kept changing while it was read; read it again"};
}

namespace {

// How many lines `text` has (a last line without its newline counts).
std::size_t count_lines(std::string_view text) {
  const auto n = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  return n + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

// Where line `index` (0-based) starts, or text.size() past the last. No
// index of every line is built: a file of 250 MiB of empty lines would
// make gigabytes of them to answer 128 KiB.
std::size_t line_start(std::string_view text, std::size_t index) {
  std::size_t at = 0;
  for (; index > 0 && at < text.size(); --index) {
    const std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) return text.size();
    at = nl + 1;
  }
  return at;
}

// The line at `at`, with its newline when it has one.
std::string_view line_from(std::string_view text, std::size_t at) {
  const std::size_t nl = text.find('\n', at);
  return text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl + 1 - at);
}

// "    12→": the number right-aligned in six columns, then the arrow that
// ends it (whatever follows the first arrow on the line is the file's).
std::string number(std::size_t n) {
  std::string s = std::to_string(n);
  if (s.size() < 6) s.insert(0, 6 - s.size(), ' ');
  return s + "\xE2\x86\x92";
}

}  // namespace

Result<json::object> read_file(const editproto::Workspace& ws, const ReadRequest& req) {
  auto normal = ws.normalize(req.path);
  if (!normal) return from_engine(normal.error());
  auto real = ws.resolve(*normal);
  if (!real) return from_engine(real.error());
  auto content = read_whole(ws, *real, editproto::Limits{}.max_file_bytes);
  if (!content) return content.error();
  if (auto refused = editproto::not_text(*normal, content->bytes)) return from_engine(*refused);

  const std::string_view bytes = content->bytes;
  const std::size_t total = count_lines(bytes);
  std::size_t first = req.offset > 1 ? static_cast<std::size_t>(req.offset - 1) : 0;
  if (req.tail) first = total - std::min(total, static_cast<std::size_t>(*req.tail));
  const std::size_t limit = req.limit ? static_cast<std::size_t>(*req.limit) : default_read_lines;

  std::string text;
  std::size_t end = first;
  for (std::size_t at = line_start(bytes, first); end < total && end - first < limit; ++end) {
    const std::string_view whole = line_from(bytes, at);
    at += whole.size();
    std::string_view line = whole;
    if (req.line_numbers && line.ends_with('\n')) line.remove_suffix(1);
    const std::string head = req.line_numbers ? number(end + 1) : std::string();
    const std::size_t adds = head.size() + line.size() + (req.line_numbers ? 1 : 0);
    if (text.size() + adds > max_read_bytes) {
      if (end == first)
        return Failure{Error::file_too_large, "line " + std::to_string(end + 1) + " of " + *normal + " is " +
                                                  std::to_string(whole.size()) + " bytes, over the " +
                                                  std::to_string(max_read_bytes) + " one read carries"};
      break;
    }
    text += head;
    text += line;
    if (req.line_numbers) text += '\n';
  }
  const bool more = end < total;
  if (req.line_numbers) {
    if (total == 0) text = "(the file is empty)\n";
    else if (first >= total)
      text = "(no line " + std::to_string(first + 1) + ": the file has " + std::to_string(total) + " lines)\n";
    else if (more)
      text += "(lines " + std::to_string(first + 1) + "-" + std::to_string(end) + " of " + std::to_string(total) +
              "; more from offset " + std::to_string(end + 1) + ")\n";
  }
  const auto integer = [](std::size_t n) { return static_cast<std::int64_t>(n); };
  return json::object{{"path", *normal},
                      {"text", std::move(text)},
                      {"first_line", end > first ? integer(first + 1) : 0},
                      {"lines", integer(end - std::min(first, end))},
                      {"total_lines", integer(total)},
                      {"more", more},
                      {"next_offset", more ? json::value(integer(end + 1)) : json::value(nullptr)},
                      {"line_numbers", req.line_numbers},
                      {"bytes", integer(content->bytes.size())}};
}

}  // namespace services
