#include "gateway/inbox.hpp"

#include "ops/edit_message.hpp"
#include "services/places.hpp"

#include "record/run_report.hpp"
#include "repl/agent_files.hpp"
#include "repl/log.hpp"

#include <boost/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace gateway {

void apply_inbox(services::Worker& worker, const std::string& agents, const std::string& name,
                 const std::function<std::uint64_t()>& sequence) {
  const std::string stem = name.substr(0, name.size() - 3);
  const std::string in = agents + "/inbox/" + name;
  const std::string out = agents + "/outbox/" + stem;
  // A folder of its own, never a link (the answers would land where it led).
  if (auto made = services::private_folder(agents + "/outbox"); !made) {
    repl::log_line("cannot answer inbox/" + name + ": " + made.error().message);
    return;
  }
  std::remove((out + ".completed.marker").c_str());
  std::remove((out + ".json").c_str());

  struct stat st {};
  if (::lstat(in.c_str(), &st) != 0) return;  // taken already (a second event for one drop)
  boost::json::object answer;
  if (!S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) > ops::max_edit_text) {
    mark_final(answer, S_ISREG(st.st_mode) ? services::Failure{services::Error::payload_too_large,
                                                               "the message is over " + std::to_string(ops::max_edit_text) +
                                                                   " bytes"}
                                           : services::Failure{services::Error::bad_request, "not a file"});
  } else {
    std::ifstream f(in, std::ios::binary);
    std::stringstream text;
    text << f.rdbuf();
    ops::MessageRun run = ops::run_message(worker, services::EditParams{}, text.str(), "inbox " + name);
    if (!run.report) mark_final(answer, run.failure);
    else answer = record::outcome_json(*run.report);
  }
  answer["file"] = "outbox/" + stem + ".md";
  if (!repl::replace_file(out + ".json", boost::json::serialize(answer) + "\n") || std::rename(in.c_str(), (out + ".md").c_str()) != 0 ||
      !repl::replace_file(out + ".completed.marker", std::to_string(sequence()) + "\n"))
    repl::log_line("cannot answer inbox/" + name + " in " + agents + "/outbox");
}

}  // namespace gateway
