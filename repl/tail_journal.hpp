// The redo record of the chat logs' in-place writes. A log the gateway
// writes is rewritten in place from the first byte that changes
// (editproto::Workspace::write_tail); a crash in the middle of that write
// (between its write and its cut, or a write the kernel cut short) would
// leave the new tail's start over the old tail's end. So before each such
// write its whole record (which file, where, the old tail and the new) goes
// to one journal file, and at the next start a log torn exactly that way is
// finished from it. Only the last write needs a record: the writes are made
// one after another on one thread, and each is over before the next starts.
#pragma once

#include "editproto/workspace.hpp"
#include "repl/error.hpp"

#include <string>
#include <string_view>

namespace repl {

class TailJournal {
 public:
  // The journal at `path` (created when missing; its folder must exist).
  static Result<TailJournal> open(const std::string& path);
  TailJournal(TailJournal&&) = default;
  TailJournal& operator=(TailJournal&&) = default;

  // Records the write about to be made: `rel` from `offset` on goes from
  // `old_tail` to `new_tail`.
  Result<void> record(const std::string& rel, std::size_t offset, std::string_view old_tail, std::string_view new_tail);

  // At start, before the logs are read: a log the last recorded write left
  // torn is finished. What it did, for the gateway's log; empty when there
  // was nothing to do. The record is cleared afterwards either way.
  enum class Found { nothing, complete, repaired, changed_since };
  struct Recovery {
    Found found = Found::nothing;
    std::string path;
  };
  Result<Recovery> recover(const editproto::Workspace& ws);

  // The largest write that gets a record (old and new tail together); a
  // larger one is written by a whole replace instead.
  static constexpr std::size_t max_record_bytes = 4u << 20;

 private:
  explicit TailJournal(editproto::Fd fd) : fd_(std::move(fd)) {}
  editproto::Fd fd_;
};

}  // namespace repl
