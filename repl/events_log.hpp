// Reading a page's events log back, newest first. The log is what
// Repl::log_events appends (transcript.hpp's events_log_text): one event a
// line, "HH:MM:SS source: text", the text's further lines indented by four
// spaces. A log grows to tens of MiB, so it is read backwards from an
// offset in blocks, never whole, and every reply is bounded.
#pragma once

#include "repl/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace repl {

struct LoggedEvent {
  std::string time;    // the log's clock text ("12:04:05"); "" for lines that had no event line above them
  std::string source;  // console.log, window.onerror, ...; "" likewise
  std::string text;    // as the log holds it (control characters escaped), cut at EventsLimits::text_bytes
  std::uint64_t offset = 0;     // where its first line starts in the log
  std::size_t text_bytes = 0;   // the whole text's length
  bool truncated = false;       // text is a head of it
};

struct EventsLimits {
  std::size_t events = 100;             // the most a read returns
  std::size_t text_bytes = 2048;        // of one event's text
  std::size_t reply_bytes = 16 * 1024;  // of all the events' texts together
  std::size_t scan_bytes = 4u << 20;    // how far back one read goes in the file
};

// Why a read returned fewer events than EventsLimits::events while older
// ones are left: the reply's bound or the scan's.
enum class EventsCut { none, reply_bytes, scan_bytes };

struct EventsRead {
  std::vector<LoggedEvent> events;  // oldest first
  std::uint64_t next_before = 0;    // where the older ones end; 0 when there are none
  EventsCut cut = EventsCut::none;
};

// The events of the log open on `fd` that end at or before byte `end`
// (the file's size, or an earlier read's next_before), the newest ones.
// At least one event comes back while there is one within the scan bound,
// whatever its size, so paging always moves on.
Result<EventsRead> read_events_back(int fd, std::uint64_t end, const EventsLimits& limits);

}  // namespace repl
