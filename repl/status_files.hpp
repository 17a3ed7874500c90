// The status files of file-driven agents (status.json, the markers,
// chat_history.jsonl; AgentFiles writes them), and the commits of the
// pages' logs, whose callbacks bring the markers forward. One per REPL, on
// its executor; it reads the pages through a function the REPL gives it
// (StatusPage), so it knows nothing of the REPL's own state.
#pragma once

#include "repl/agent_files.hpp"
#include "repl/chatlog.hpp"
#include "repl/committer.hpp"
#include "repl/error.hpp"
#include "repl/job_progress.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace repl {

class PageLog;

// A page as its status files see it now: made by the REPL when asked.
struct StatusPage {
  std::string stem, log;  // its name and its log's path
  bool connected = false;
  std::size_t queued = 0;  // jobs waiting for it
  struct Running {
    std::uint64_t job;
    std::size_t block, blocks;  // the block running (from 0), of how many
  };
  std::optional<Running> running;
  std::function<bool(std::uint64_t job)> waits;  // the job is in its queue
  JobProgress* progress = nullptr;               // the page's own, never null
};

class StatusFiles {
 public:
  // `page`: the page of an instance id, nullopt once it is forgotten.
  // `changed`: called on every write of a page's status, with or without files.
  StatusFiles(Committer& committer, boost::asio::any_io_executor ex,
              std::function<std::optional<StatusPage>(const std::string& page_id)> page,
              std::function<void()> changed);

  // Where the files go; null: nowhere (the markers are not counted either).
  void set_files(AgentFiles* files) { files_ = files; }

  // The jobs a request opens or a reply closes, and its part of the
  // subject (repl/committer.hpp).
  struct Exchange {
    std::vector<std::string> opens, closes;  // "page/job"
    std::string headline;
    bool takes_save;  // a request read from a saved log (CommitItem::takes_save); false when left out
  };
  // What a reply's commit callback needs of its job.
  struct Answered {
    std::uint64_t job;
    std::string agent;
    std::size_t block;
    Answer done;
    bool last;
  };

  // A job accepted with `blocks` to run: counted, and ack.marker names it.
  void accepted(const std::string& stem, JobProgress& progress, std::uint64_t job, std::size_t blocks);
  // Blocks until what was asked is on disk (ack.marker before a reply).
  void flush();
  // status.json and ready.marker, from the page's state now.
  void write(const StatusPage& p);
  // A reply's commit is made (`commit` its id, "" when none was needed).
  void replied(const std::string& page_id, const Answered& a, const std::string& commit);
  // A request's commit is made: its record in the chat history.
  void requested(const std::string& page_id, std::uint64_t job, const std::string& agent,
                 const std::vector<std::string>& codes, const std::string& commit);

  // Commits the page's uncommitted log changes and `files` on the commit
  // queue; `committed` runs on the executor once it is made, with its id.
  void commit(const std::string& stem, PageLog& log, std::vector<FileChange> files, const std::string& author,
              const std::string& summary, std::vector<std::pair<std::string, std::string>> trailers,
              std::function<void(const std::string& id)> committed = {}, Exchange exchange = {});

 private:
  Committer& committer_;
  boost::asio::any_io_executor ex_;
  std::function<std::optional<StatusPage>(const std::string&)> page_;
  std::function<void()> changed_;
  AgentFiles* files_ = nullptr;
};

}  // namespace repl
