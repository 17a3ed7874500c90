// What an agent reads of the workspace: a file's lines (file_read), a
// folder's entries (file_list) and the lines that hold a text (file_search).
// Every path goes through the edit engine's own rules (editproto::Workspace:
// normalize, resolve, and its reads by descriptor), and a file is text by the
// engine's own test (editproto::not_text), so an agent reads exactly what its
// edit blocks may change. Each answer is bounded and says how to go on.
// Synchronous; the ops run them on the worker thread.
#pragma once

#include "editproto/workspace.hpp"
#include "services/error.hpp"

#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace services {

// The most bytes of file text one read answers with (the numbers included):
// about 32,000 tokens, a good part of a model's context and no more.
inline constexpr std::size_t max_read_bytes = 128 * 1024;
// The lines a read answers with when it names no limit.
inline constexpr std::size_t default_read_lines = 2000;

struct ReadRequest {
  std::string path{};
  std::int64_t offset = 1;                  // the first line (1-based; 0 reads as 1)
  std::optional<std::int64_t> limit{};      // how many lines; default_read_lines
  std::optional<std::int64_t> tail{};       // the last lines instead of offset
  bool line_numbers = true;                 // "   12→" before each line
};

// The lines asked for: path, text, first_line, lines, total_lines, more,
// next_offset, line_numbers, bytes. Refusals: path_refused, not_found,
// binary_file, file_too_large, conflict (the file kept changing while it was
// read), io.
Result<boost::json::object> read_file(const editproto::Workspace& ws, const ReadRequest& req);

// Whether .gitignore ignores a workspace path (a folder when `folder`).
using IgnoreTest = std::function<bool(const std::string& path, bool folder)>;

struct ListRequest {
  std::string path{};      // a folder; "" or "." the workspace root
  std::size_t depth = 2;   // 1: the folder's own entries
  std::size_t limit = 500; // entries
};

// The folder's entries, depth first in name order: path, entries
// ({path, kind, size, ignored}), cut, text. An ignored folder is listed and
// not entered; .git is never listed.
Result<boost::json::object> list_files(const editproto::Workspace& ws, const ListRequest& req, const IgnoreTest& ignored);

struct SearchRequest {
  std::string pattern{};    // a fixed string, never a regular expression
  std::string path{};       // a folder or a file; "" the workspace root
  std::string glob{};       // only files whose name (or path, with a '/') matches
  bool ignore_case = false; // ASCII letters only
  std::size_t limit = 100;  // matches
};

// The bounds of a search, named so the reply can say which one stopped it.
inline constexpr std::size_t max_search_files = 20000;
inline constexpr std::size_t max_search_bytes = 64u << 20;
inline constexpr std::size_t max_search_file_bytes = 4u << 20;
inline constexpr std::size_t max_match_text = 400;
// Entries a search or a listing looks at (files the glob passes over, ones
// too large, folders): the walk's own time on the worker is bounded too.
inline constexpr std::size_t max_walk_entries = 200000;

// The lines that hold the pattern, in the files file_list would show
// (ignored folders and files left out unless `path` names them) that are
// text: pattern, matches ({path, line, text}), files, skipped, cut, text.
Result<boost::json::object> search_files(const editproto::Workspace& ws, const SearchRequest& req,
                                         const IgnoreTest& ignored);

// The file at `real` (a resolved path) as one version of it: read again
// when its stamp moved while it was read (an editor saving in place),
// conflict past a few tries; not_found, file_too_large past `max_bytes`,
// io. A save by rename never tears a read: the descriptor keeps the old file.
Result<editproto::FileContent> read_whole(const editproto::Workspace& ws, const std::string& real, std::size_t max_bytes);

// An edit engine refusal as the gateway's code: path_refused, not_found,
// binary_file, file_too_large, io; its message starts with the engine's
// reason ("path_escape: ...").
Failure from_engine(const editproto::Failure& f);

}  // namespace services
