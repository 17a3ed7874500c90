#include "ops/edit_message.hpp"

#include "services/worker.hpp"

namespace ops {

MessageRun run_message(services::Worker& worker, services::EditParams params, std::string_view text,
                       std::string_view door) {
  MessageRun m;
  auto run = worker.start_run(std::move(params));
  if (!run) {
    m.failure = run.error();
    return m;
  }
  (*run)->feed(text);
  (*run)->finish();
  if ((*run)->overflowed())
    m.failure = services::Failure{services::Error::payload_too_large,
                                  "the text is over " + std::to_string(max_edit_text) + " bytes; the blocks before it stay applied"};
  m.report = (*run)->commit();
  (*run)->log(door);
  return m;
}

}  // namespace ops
