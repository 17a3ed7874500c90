#include "record/run_report.hpp"

#include "editproto/unicode.hpp"

#include <boost/json.hpp>

#include <map>
#include <sstream>

namespace record {

using editproto::BlockResult;
using editproto::Reason;
using editproto::Status;

namespace {

bool ok(const BlockResult& r) {
  return r.status == Status::applied || r.status == Status::validated ||
         (r.status == Status::skipped && r.reason == Reason::no_change);
}

std::string indent(const std::string& text) {
  std::string out = "    ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "    ";
  }
  return out;
}

// GitHub workflow commands: data escapes %, CR, LF; properties also : and ,.
std::string gh_escape(std::string_view s, bool property) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '%': out += "%25"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      case ':': out += property ? "%3A" : ":"; break;
      case ',': out += property ? "%2C" : ","; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string counts(const std::vector<BlockResult>& blocks) {
  std::map<std::string_view, std::size_t> n;
  for (const BlockResult& r : blocks) ++n[editproto::to_string(r.status)];
  std::string out;
  for (std::string_view s : {"applied", "validated", "failed", "skipped", "not_in_context"}) {
    if (!n[s]) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(n[s]) + " " + std::string(s);
  }
  return out.empty() ? "no edit blocks found" : out;
}

bool all_ok(const RunReport& report) {
  for (const BlockResult& r : report.blocks)
    if (!ok(r)) return false;
  return true;
}

Verdict verdict(const RunReport& report) {
  if (report.commit_error) return Verdict::commit_failed;
  return all_ok(report) ? Verdict::ok : Verdict::blocks_failed;
}

std::string report_text(const RunReport& report) {
  std::ostringstream shown;
  print_text(shown, report, false);
  return editproto::unicode::to_valid_utf8(shown.str());
}

void print_text(std::ostream& out, const RunReport& report, bool colour) {
  auto paint = [colour](std::string_view s, const char* code) {
    return colour ? std::string("\x1b[") + code + "m" + std::string(s) + "\x1b[0m" : std::string(s);
  };
  for (const BlockResult& r : report.blocks) {
    out << (r.path.empty() ? "(no path)" : r.path);
    if (r.line) out << ':' << *r.line;
    const char* code = ok(r) ? "32" : r.status == Status::failed ? "31" : "33";
    out << ": " << paint(editproto::to_string(r.status), code);
    if (r.reason != Reason::none) out << " (" << editproto::to_string(r.reason) << ")";
    if (r.tolerance) out << " [tolerated: " << *r.tolerance << "]";
    out << "  block " << r.index + 1 << ", response line " << r.block_line;
    if (r.path_reused) out << ", path reused from block " << r.index;
    if (ok(r) && r.reason == Reason::none) out << ", -" << r.lines_removed << " +" << r.lines_added << " lines";
    out << '\n';
    if (!r.diagnostic.empty() && (!ok(r) || r.tolerance)) out << indent(r.diagnostic) << '\n';
  }
  for (const editproto::Warning& w : report.warnings)
    out << "response line " << w.line << ": " << paint("warning", "33") << " (" << editproto::to_string(w.code)
        << "): " << w.message << '\n';
  if (!report.files_auto_added.empty()) {
    out << "files added to your context (send the blocks for them again):";
    for (const std::string& f : report.files_auto_added) out << ' ' << f;
    out << '\n';
  }
  out << counts(report.blocks) << '\n';
  for (const Interrupted& i : report.interrupted) {
    if (i.commit)
      out << "committed " << i.commit->substr(0, 12) << " first: files an interrupted run of " << i.agent
          << " had left uncommitted\n";
    for (const std::string& p : i.changed_since)
      out << "left as it is: " << p << " (changed after an interrupted run of " << i.agent << " wrote it)\n";
  }
  if (report.earlier_commit)
    out << "committed " << report.earlier_commit->substr(0, 12)
        << " first: the uncommitted earlier state of the files edited\n";
  if (report.commit) out << "committed " << report.commit->substr(0, 12) << " (session " << report.session << ")\n";
  for (const editgit::NotCommitted& f : report.files_not_committed)
    out << "written but not committed: " << f.path << " (" << f.why << ")\n";
  if (report.commit_error) out << paint("commit failed: ", "31") << *report.commit_error << '\n';
  if (!report.commit_warning.empty()) out << paint("warning: ", "33") << report.commit_warning << '\n';
}

boost::json::object block_json(const BlockResult& r) {
  namespace json = boost::json;
  auto str = [](std::string_view s) { return json::string(editproto::unicode::to_valid_utf8(s)); };
  json::object b;
  b["index"] = r.index;
  b["path"] = str(r.path);
  b["path_reused"] = r.path_reused;
  b["status"] = editproto::to_string(r.status);
  b["reason"] = r.reason == Reason::none ? json::value(nullptr) : json::value(editproto::to_string(r.reason));
  b["line"] = r.line ? json::value(*r.line) : json::value(nullptr);
  b["diagnostic"] = str(r.diagnostic);
  b["tolerance"] = r.tolerance ? json::value(*r.tolerance) : json::value(nullptr);
  b["block_line"] = r.block_line;
  b["lines_removed"] = r.lines_removed;
  b["lines_added"] = r.lines_added;
  return b;
}

boost::json::object report_json(const RunReport& report, bool with_blocks) {
  namespace json = boost::json;
  auto str = [](std::string_view s) { return json::string(editproto::unicode::to_valid_utf8(s)); };
  json::object root;
  root["ok"] = all_ok(report);
  if (with_blocks) {
    json::array blocks;
    for (const BlockResult& r : report.blocks) blocks.push_back(block_json(r));
    root["blocks"] = std::move(blocks);
  } else {
    std::map<std::string_view, std::size_t> n;
    for (const BlockResult& r : report.blocks) ++n[editproto::to_string(r.status)];
    json::object by_status;
    for (std::string_view s : {"applied", "validated", "failed", "skipped", "not_in_context"}) by_status[s] = n[s];
    root["counts"] = std::move(by_status);
    root["summary"] = counts(report.blocks);
  }
  json::array warnings;
  for (const editproto::Warning& w : report.warnings)
    warnings.push_back(json::object{{"line", w.line}, {"code", editproto::to_string(w.code)}, {"message", str(w.message)}});
  root["warnings"] = std::move(warnings);
  json::array added;
  for (const std::string& f : report.files_auto_added) added.push_back(str(f));
  root["files_auto_added"] = std::move(added);
  auto opt = [](const std::optional<std::string>& v) { return v ? json::value(*v) : json::value(nullptr); };
  root["commit"] = opt(report.commit);
  json::array commits;
  for (const std::string& c : report.commits) commits.emplace_back(c);
  root["commits"] = std::move(commits);
  root["earlier_commit"] = opt(report.earlier_commit);
  json::array interrupted;
  for (const Interrupted& i : report.interrupted) {
    json::array paths, changed;
    for (const std::string& p : i.paths) paths.push_back(str(p));
    for (const std::string& p : i.changed_since) changed.push_back(str(p));
    interrupted.push_back(json::object{{"agent", str(i.agent)},
                                       {"session", str(i.session)},
                                       {"commit", opt(i.commit)},
                                       {"paths", std::move(paths)},
                                       {"changed_since", std::move(changed)}});
  }
  root["interrupted"] = std::move(interrupted);
  json::array left_out;
  for (const editgit::NotCommitted& f : report.files_not_committed)
    left_out.push_back(json::object{{"path", str(f.path)}, {"why", str(f.why)}});
  root["files_not_committed"] = std::move(left_out);
  root["commit_error"] = opt(report.commit_error);
  root["commit_warning"] = report.commit_warning.empty() ? json::value(nullptr) : json::value(report.commit_warning);
  root["session"] = report.session.empty() ? json::value(nullptr) : json::value(report.session);
  root["dry_run"] = report.dry_run;
  return root;
}

void print_json(std::ostream& out, const RunReport& report) {
  out << boost::json::serialize(report_json(report, true)) << '\n';
}

void print_github(std::ostream& out, const RunReport& report) {
  for (const BlockResult& r : report.blocks) {
    if (ok(r)) continue;
    const char* level = r.status == Status::failed ? "error" : "warning";
    out << "::" << level << ' ';
    std::string props;
    // A refused path names no file of the repository to annotate.
    bool real_file = r.reason != Reason::path_escape && r.reason != Reason::protected_path;
    if (!r.path.empty() && real_file) props += "file=" + gh_escape(r.path, true);
    if (r.line) props += ",line=" + std::to_string(*r.line);
    if (!props.empty() && props[0] == ',') props.erase(0, 1);
    if (!props.empty()) props += ",";
    props += "title=" + gh_escape("editgate " + std::string(editproto::to_string(r.reason)), true);
    out << props << "::" << gh_escape(r.diagnostic, false) << '\n';
  }
  // Stray markers are in the response, not in a file of the repository.
  for (const editproto::Warning& w : report.warnings)
    out << "::warning title=" << gh_escape("editgate " + std::string(editproto::to_string(w.code)), true)
        << "::" << gh_escape("response line " + std::to_string(w.line) + ": " + w.message, false) << '\n';
  if (report.commit_error) out << "::error title=editgate commit::" << gh_escape(*report.commit_error, false) << '\n';
  out << "editgate: " << counts(report.blocks) << '\n';
}

}  // namespace record
