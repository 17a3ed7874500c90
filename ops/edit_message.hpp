// One whole message of edit blocks run to its end: the edit op's text, an
// inbox message. Started, fed, finished, committed and logged as the
// streamed runs are (services/edit_run.hpp). Worker thread only.
#pragma once

#include "record/run_report.hpp"
#include "services/edit_run.hpp"
#include "services/error.hpp"

#include <optional>
#include <string_view>

namespace services {
class Worker;
}

namespace ops {

// The most bytes of edit text one run takes, on every door: a whole
// message (the edit op, the inbox) and a streamed one (a POST /v1/edits
// body, edit-chunks). The parser's own bound, named once.
inline constexpr std::size_t max_edit_text = editproto::Limits{}.max_response_bytes;

struct MessageRun {
  std::optional<record::RunReport> report;  // none when the run could not start
  // Why it could not start, or the text's end it never read (payload_too_large).
  std::optional<services::Failure> failure;
};

// Runs `text` as one edit run of `worker`; `door` names it in the log line
// and the recent runs.
MessageRun run_message(services::Worker& worker, services::EditParams params, std::string_view text,
                       std::string_view door);

}  // namespace ops
