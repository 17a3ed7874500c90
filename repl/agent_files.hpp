// The files an agent that can only read and write files watches,
// in the agents' folder (<gitdir>/editgate/, where no commit can put a file):
//   pages/<page>/status.json         state, phase, progress, message, job, updated_at
//   pages/<page>/ready.marker        the page is connected and idle
//   pages/<page>/ack.marker          the newest request the gateway accepted
//   pages/<page>/completed.marker    the newest reply written and committed
//   pages/<page>/chat_history.jsonl  one JSON record per request and per reply
// A marker holds a job's sequence number, and numbers only grow (across
// restarts too), so a marker an earlier job left is never taken for the
// current one. Files are replaced atomically by a thread of their own, in
// the order asked, so the REPL never waits on them: each file has a hidden
// spare beside it (.status.json.spare) that the update writes and swaps in
// (renameat2 RENAME_EXCHANGE), so no update creates or frees an inode.
#pragma once

#include "editproto/workspace.hpp"
#include "git/worker_loop.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace repl {

class AgentFiles {
 public:
  // `dir`: the workspace's agents' folder (services/places.hpp).
  explicit AgentFiles(std::string dir);
  ~AgentFiles();  // writes what is queued
  AgentFiles(const AgentFiles&) = delete;
  AgentFiles& operator=(const AgentFiles&) = delete;

  const std::string& dir() const { return dir_; }
  // The highest sequence number a marker held when this started (0: none).
  std::uint64_t last_sequence() const { return last_; }

  // A file appended to past this many bytes is moved to <name>.1 (the one
  // before goes): at most twice this per file.
  static constexpr std::uint64_t append_limit = 1 << 20;

  // Paths are relative to dir(). put replaces a file, append adds a line to
  // one, erase removes one.
  void put(std::string rel, std::string content);
  void append(std::string rel, std::string line);
  void erase(std::string rel);
  // Blocks until everything asked so far is on disk.
  void flush();

  // The page's files, by page name.
  void status(const std::string& page, boost::json::object status);  // adds updated_at
  void marker(const std::string& page, std::string_view name, std::uint64_t sequence);
  void record(const std::string& page, boost::json::object record);  // adds at

 private:
  struct Op {
    enum Kind { put, append, erase } kind;
    std::string rel, content;
  };
  // On the thread: every op waiting, each file replaced once.
  void write(std::vector<Op>& batch);
  void run(const Op& op);
  void append_to(const std::string& path, const Op& op);
  static constexpr std::size_t max_remembered = 1024, max_open_appends = 64;
  bool folder_ready(const std::string& folder);

  std::string dir_;
  std::uint64_t last_ = 0;
  // On the thread, each bounded (cleared when full): folders made and
  // checked, files erased and not written since, and the open appends.
  std::unordered_set<std::string> ready_folders_, absent_;
  std::unordered_map<std::string, editproto::Fd> appending_;
  editgit::WorkerLoop<Op> loop_;  // last: its thread uses dir_
};

// An ISO 8601 UTC time with milliseconds, "2026-11-23T10:04:05.123Z".
std::string iso_now();

// Replaces `path` with `bytes` atomically (a temp file beside it, renamed):
// a reader sees the old file or the new one, never half.
bool replace_file(const std::string& path, std::string_view bytes);
// The sequence number a marker file holds; 0 when it is missing or holds none.
std::uint64_t marker_number(const std::string& path);

}  // namespace repl
