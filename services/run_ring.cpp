#include "services/run_ring.hpp"

#include <boost/json.hpp>

#include <ctime>

namespace services {

namespace json = boost::json;

namespace {

std::int64_t epoch_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// "2026-11-24T14:50:32Z"
std::string iso_utc(std::chrono::system_clock::time_point t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// `s` (valid UTF-8) cut to at most `max` bytes on a character boundary.
std::string cut_text(std::string_view s, std::size_t max) {
  if (s.size() <= max) return std::string(s);
  std::size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n)) + "…";
}

// The run's blocks within the ring's bounds: block_json's fields, the
// diagnostic cut, none past max_run_diagnostics.
json::array blocks_json(const record::RunReport& report) {
  json::array out;
  std::size_t diagnostics = 0;
  for (std::size_t i = 0; i < report.blocks.size() && i < RunRing::max_blocks; ++i) {
    json::object b = record::block_json(report.blocks[i]);
    const std::string_view d = b["diagnostic"].as_string();
    if (diagnostics >= RunRing::max_run_diagnostics) {
      b["diagnostic"] = nullptr;
    } else if (d.size() > RunRing::max_diagnostic) {
      b["diagnostic"] = cut_text(d, RunRing::max_diagnostic);
    }
    if (b["diagnostic"].is_string()) diagnostics += b["diagnostic"].as_string().size();
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace

void RunRing::record(const record::RunReport& report, const RunEnd& end) {
  const auto now = std::chrono::system_clock::now();
  json::object run;
  run["id"] = next_id_++;
  run["time"] = iso_utc(now);
  run["time_ms"] = epoch_ms(now);
  run["duration_ms"] = std::max<std::int64_t>(0, epoch_ms(now) - epoch_ms(end.started));
  run["agent"] = end.agent;
  run["session"] = report.session;
  run["door"] = end.door;
  run["summary"] = record::counts(report.blocks);
  run["commit"] = report.commit ? json::value(*report.commit) : json::value(nullptr);
  run["dry_run"] = report.dry_run;
  run["ok"] = record::all_ok(report) && !report.commit_error && !end.cut;
  run["cut"] = end.cut ? json::value(to_string(*end.cut)) : json::value(nullptr);
  run["commit_error"] = report.commit_error ? json::value(*report.commit_error) : json::value(nullptr);
  run["blocks"] = blocks_json(report);
  run["blocks_cut"] = report.blocks.size() > max_blocks ? report.blocks.size() - max_blocks : 0;
  Kept kept{std::move(run), report.commits};
  if (report.commit && kept.commits.empty()) kept.commits.push_back(*report.commit);
  if (runs_.size() >= max_runs) runs_.pop_front();
  runs_.push_back(std::move(kept));
  if (on_run) on_run(runs_.back().run);
}

json::array RunRing::newest(std::size_t limit) const {
  json::array out;
  for (auto it = runs_.rbegin(); it != runs_.rend() && out.size() < limit; ++it) out.push_back(it->run);
  return out;
}

const json::object* RunRing::made(std::string_view commit) const {
  for (auto it = runs_.rbegin(); it != runs_.rend(); ++it)
    for (const std::string& c : it->commits)
      if (c == commit) return &it->run;
  return nullptr;
}

}  // namespace services
