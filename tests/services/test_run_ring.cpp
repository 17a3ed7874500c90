// The gateway's recent edit runs (services/run_ring.hpp): bounded, newest
// first, found by any of their commits, each one handed to on_run.
#include "services/run_ring.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

using services::RunRing;
namespace json = boost::json;

namespace {

record::RunReport report_with(std::size_t blocks, const std::string& diagnostic) {
  record::RunReport r;
  r.dry_run = false;
  r.session = "s1";
  for (std::size_t i = 0; i < blocks; ++i) {
    editproto::BlockResult b;
    b.index = i;
    b.path = "a.txt";
    b.status = editproto::Status::failed;
    b.reason = editproto::Reason::old_mismatch;
    b.diagnostic = diagnostic;
    r.blocks.push_back(b);
  }
  return r;
}

services::RunEnd end_of(const std::string& door) { return {door, "agent", std::chrono::system_clock::now(), {}}; }

}  // namespace

TEST_CASE("the run ring keeps the newest runs, newest first, and tells on_run of each", "[unit][services]") {
  RunRing ring;
  std::vector<std::int64_t> told;
  ring.on_run = [&](const json::object& run) { told.push_back(run.at("id").as_int64()); };
  for (std::size_t i = 0; i < RunRing::max_runs + 5; ++i) {
    record::RunReport r = report_with(1, "why");
    r.commit = std::string(40, 'a' + static_cast<char>(i % 6));
    r.commits = {std::string(40, '0' + static_cast<char>(i % 10)), *r.commit};
    ring.record(r, end_of("door " + std::to_string(i)));
  }
  CHECK(told.size() == RunRing::max_runs + 5);
  const json::array all = ring.newest(10000);
  REQUIRE(all.size() == RunRing::max_runs);
  CHECK(all.front().at("id") == RunRing::max_runs + 5);
  CHECK(all.back().at("id") == 6);  // the first five are gone
  CHECK(ring.newest(3).size() == 3);
  CHECK(all.front().at("blocks").at(0).at("diagnostic") == "why");
  // By any of its commits: the newest run that made it.
  const json::object* made = ring.made(std::string(40, '4'));
  REQUIRE(made);
  CHECK(made->at("id") == RunRing::max_runs + 5);  // i = 204, the newest with 204 % 10 == 4
  CHECK(ring.made(std::string(40, '9') + "0") == nullptr);
  CHECK(ring.made(std::string(40, 'e').substr(0, 39) + "1") == nullptr);
}

TEST_CASE("the run ring bounds a run's blocks and diagnostics", "[unit][services]") {
  RunRing ring;
  ring.record(report_with(RunRing::max_blocks + 3, std::string(RunRing::max_diagnostic + 100, 'x')), end_of("ws edit"));
  const json::object run = ring.newest(1).at(0).as_object();
  CHECK(run.at("blocks").as_array().size() == RunRing::max_blocks);
  CHECK(run.at("blocks_cut") == 3);
  const std::string first(run.at("blocks").at(0).at("diagnostic").as_string());
  CHECK(first.size() <= RunRing::max_diagnostic + 3);
  CHECK(first.ends_with("…"));
  std::size_t kept = 0;
  for (const json::value& b : run.at("blocks").as_array())
    if (b.at("diagnostic").is_string()) kept += b.at("diagnostic").as_string().size();
  CHECK(kept <= RunRing::max_run_diagnostics + RunRing::max_diagnostic + 3);
  CHECK(run.at("blocks").at(RunRing::max_blocks - 1).at("diagnostic").is_null());
  CHECK(run.at("ok") == false);
  CHECK(run.at("commit").is_null());
}
