#include "gateway/edit_run.hpp"

#include "gateway/history.hpp"
#include "gateway/record.hpp"

#include <boost/json.hpp>

#include <iostream>

namespace editgate {

namespace {

editproto::Options options_for(const EditParams& p) {
  editproto::Options opt;
  opt.dry_run = p.dry_run;
  opt.fuzz_whitespace = p.fuzz_whitespace;
  opt.context = p.context;
  return opt;
}

}  // namespace

boost::json::object block_message(const editproto::BlockResult& r) { return {{"block", block_json(r)}}; }

boost::json::object done_message(const RunReport& report, std::optional<Failure> failure) {
  boost::json::object body = report_json(report, false);
  if (!failure && report.commit_error)
    failure = Failure{Error::commit_failed, *report.commit_error + "; the files are written but not committed"};
  if (failure) {
    body["error"] = std::string(to_string(failure->code)) + ": " + failure->message;
    body["reason"] = to_string(failure->code);
    body["status"] = boost::json::array{"done", "error"};
  } else {
    body["status"] = boost::json::array{"done"};
  }
  return body;
}

Result<std::unique_ptr<EditRun>> EditRun::start(const editproto::Workspace& ws, editgit::Repository& repo,
                                                EditParams params) {
  if (!params.dry_run) {
    if (auto ready = repo.ready_to_commit(); !ready) return Failure{Error::conflict, ready.error().message};
  }
  editproto::Options opt = options_for(params);
  return std::unique_ptr<EditRun>(new EditRun(ws, repo, std::move(params), std::move(opt)));
}

EditRun::EditRun(const editproto::Workspace& ws, editgit::Repository& repo, EditParams params,
                 editproto::Options opt)
    : repo_(repo), params_(std::move(params)), limits_(opt.limits), session_(ws, opt), parser_(opt.limits) {
  report_.dry_run = params_.dry_run;
  report_.session = params_.session.empty() ? new_session_id() : params_.session;
}

std::vector<editproto::BlockResult> EditRun::apply(std::vector<editproto::Block>& blocks) {
  std::vector<editproto::BlockResult> out;
  for (const editproto::Block& b : blocks) {
    session_.submit(b);
    // Flushing per block writes its file now: a block is applied the moment
    // it is complete, whatever happens to the rest of the stream.
    for (editproto::BlockResult& r : session_.flush()) out.push_back(std::move(r));
  }
  report_.blocks.insert(report_.blocks.end(), out.begin(), out.end());
  return out;
}

std::vector<editproto::BlockResult> EditRun::feed(std::string_view chunk) {
  std::vector<editproto::Block> blocks;
  bytes_ += chunk.size();
  if (bytes_ > limits_.max_response_bytes) overflowed_ = true;
  parser_.feed(chunk, blocks);
  return apply(blocks);
}

std::vector<editproto::BlockResult> EditRun::finish() {
  std::vector<editproto::Block> blocks;
  parser_.finish(blocks);
  return apply(blocks);
}

const RunReport& EditRun::commit() {
  if (committed_) return report_;
  committed_ = true;
  report_.files_auto_added = session_.files_auto_added();
  if (!params_.dry_run) record_edits(repo_, session_, report_, params_.agent);
  return report_;
}

void EditRun::log(std::string_view door, std::optional<Error> cut) const {
  std::string line = "editgate: " + std::string(door) + ", agent " + params_.agent + ", session " + report_.session +
                     (params_.dry_run ? " (dry run)" : "") + ": " + counts(report_.blocks);
  if (report_.commit) line += ", committed " + report_.commit->substr(0, 12);
  if (report_.commit_error) line += ", commit failed: " + *report_.commit_error;
  if (cut) line += " (cut off: " + std::string(to_string(*cut)) + ")";
  std::cerr << line + "\n" << std::flush;
}

}  // namespace editgate
