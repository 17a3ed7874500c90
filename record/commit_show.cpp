#include "record/commit_show.hpp"

#include "editproto/unicode.hpp"
#include "record/edit_log.hpp"
#include "record/trailers.hpp"

#include <boost/json.hpp>

namespace record {

namespace json = boost::json;

namespace {

json::string str(std::string_view s) { return json::string(editproto::unicode::to_valid_utf8(s)); }

// "" as null: a field the commit does not have.
json::value str_or_null(std::string_view s) { return s.empty() ? json::value(nullptr) : json::value(str(s)); }

json::object file_json(const editgit::FilePatch& f) {
  json::array hunks;
  for (const editgit::DiffHunk& h : f.hunks) {
    json::array lines;
    for (const editgit::DiffLine& l : h.lines) {
      json::object o;
      o["t"] = std::string(1, l.type);
      o["old"] = l.old_line ? json::value(*l.old_line) : json::value(nullptr);
      o["new"] = l.new_line ? json::value(*l.new_line) : json::value(nullptr);
      o["text"] = str(l.text);
      lines.push_back(std::move(o));
    }
    hunks.push_back(json::object{{"header", h.header}, {"lines", std::move(lines)}});
  }
  return {{"path", str(f.path)},
          {"old_path", str_or_null(f.old_path)},
          {"status", editgit::to_string(f.status)},
          {"binary", f.binary},
          {"hunks", std::move(hunks)},
          {"lines_cut", f.lines_cut}};
}

// null when nothing was left out; else what was, and the bounds.
json::value cut_json(const editgit::CommitPatch& patch, const editgit::DiffBounds& bounds) {
  std::size_t lines = 0;
  for (const editgit::FilePatch& f : patch.files) lines += f.lines_cut;
  if (!patch.files_cut && !lines && !patch.bytes_cut) return nullptr;
  return json::object{{"files", patch.files_cut},
                      {"lines", lines},
                      {"bytes", patch.bytes_cut},
                      {"limits", json::object{{"files", bounds.max_files},
                                              {"lines_per_file", bounds.max_lines_per_file},
                                              {"bytes", bounds.max_bytes},
                                              {"file_bytes", bounds.max_file_bytes}}}};
}

}  // namespace

json::object show_json(const editgit::CommitInfo& commit, const editgit::CommitPatch& patch,
                       const editgit::DiffBounds& bounds) {
  const std::optional<LogEntry> entry = read_entry(commit);
  json::object o;
  o["commit"] = commit.id;
  json::array parents;
  for (const std::string& p : commit.parents) parents.emplace_back(p);
  o["parents"] = std::move(parents);
  o["author"] = json::object{{"name", str(commit.author.name)}, {"email", str(commit.author.email)}};
  o["time"] = iso_time(commit);
  o["summary"] = str(commit.summary);
  o["kind"] = str_or_null(entry ? entry->kind : "");
  o["agent"] = str_or_null(entry ? entry->agent : "");
  o["session"] = str_or_null(entry ? entry->session : "");
  o["page"] = str_or_null(commit.trailer(trailer::page));
  json::object trailers;
  for (const auto& [k, v] : commit.trailers) trailers[str(k)] = str(v);
  o["trailers"] = std::move(trailers);
  json::array files;
  for (const editgit::FilePatch& f : patch.files) files.push_back(file_json(f));
  o["files"] = std::move(files);
  json::array blocks;
  if (entry)
    for (const LoggedBlock& b : entry->blocks)
      blocks.push_back(json::object{{"index", b.index},
                                    {"status", str(b.status)},
                                    {"reason", str_or_null(b.reason)},
                                    {"path", str(b.path)},
                                    {"line", b.line ? json::value(*b.line) : json::value(nullptr)},
                                    {"diagnostic", nullptr}});
  o["blocks"] = std::move(blocks);
  o["cut"] = cut_json(patch, bounds);
  return o;
}

}  // namespace record
