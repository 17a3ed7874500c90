// Private to lint (lint*.cpp): the Linter, one chat log's reading and
// pairing. lint.cpp runs its steps in order; lint_read.cpp reads the log as
// requests and replies; lint_pairing.cpp pairs them, by order in a
// per-instance log and by names and clocks in the single file.
#pragma once

#include "repl/format.hpp"
#include "repl/lint.hpp"
#include "repl/lint_headers.hpp"
#include "repl/markdown.hpp"

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace repl::lint {

enum class Role { none, request, reply, background };

struct Req {
  std::size_t line = 0;   // its header, or its block when it has none of its own
  std::size_t block = 0;  // the opening fence
  std::optional<std::size_t> header;      // the request header it is under, if any
  std::optional<Head> head;               // that header
  std::optional<std::size_t> after_reply;  // the last reply above it, when nothing started a request since
  bool below_footer = false;
  std::optional<std::size_t> reply;  // the reply that answered it
  std::optional<std::size_t> timeout_reply;
  bool late_taken = false;
  std::string tie;  // set when it shared its second with other requests
};

struct Rep {
  std::size_t line = 0;
  Head head;
  std::optional<std::size_t> placeholder;
  bool gateway_late = false;  // "(late, 3.0s after the request)"
  bool timeout = false;       // "(**ERROR** timeout after 60.0s)"
  bool ends_request = false;  // the gateway ran no later block of its request
};

class Linter {
 public:
  Linter(std::string_view path, std::string_view text, std::optional<std::chrono::system_clock::time_point> mtime);

  LintReport run();

 private:
  // lint.cpp
  void problem(std::size_t line, LintCode code, std::string message);
  std::string quote(std::size_t line) const;
  void decide_form();

  // lint_read.cpp
  // What follows a header up to the next one: whether it is a request, a
  // reply or the gateway's announcement of a running job.
  struct Section {
    std::optional<std::size_t> placeholder;
    std::optional<bool> first_fence_runs;
    bool content_first = false;  // a fence or the placeholder comes before any text
  };
  // Where read() is in the log.
  struct Reading {
    std::vector<std::size_t> footers;
    std::optional<std::size_t> header_line;  // of the request whose first block is still to come
    std::optional<Head> context;             // the last request header
    std::optional<std::size_t> context_line, last_reply;
  };
  Section section(std::size_t at) const;
  Role role(const Head& h, const Section& s) const;
  void read();
  void read_fence(std::size_t i, const Fence& f, Reading& at);
  void read_header_line(std::size_t i, Reading& at);
  void read_reply(std::size_t i, const Head& h, const Section& s, Reading& at);
  void read_footers(const std::vector<std::size_t>& footers);

  // lint_pairing.cpp
  void pair(Req& q, Rep& r, std::vector<PairFlag> flags, std::vector<std::string> why);
  Req* timed_out(const Rep& r, bool by_name);
  bool late_pair(Rep& r, bool by_name);
  void orphan(const Rep& r, const std::string& why);
  void pair_by_order();
  bool candidate(const Req& q, const Rep& r) const;
  void pair_by_time();
  void unanswered(const Req& q);
  bool ends(std::size_t reply_line) const;

  std::string_view text_;
  Lines lines_;
  std::optional<std::chrono::system_clock::time_point> mtime_;
  LintReport report_;
  std::vector<Fence> fences_;
  std::vector<const Fence*> fence_at_;
  std::vector<bool> in_fence_;
  std::vector<Req> requests_;
  std::vector<Rep> replies_;
  std::vector<std::pair<bool, std::size_t>> order_;  // (is a reply, index), in file order
  std::vector<std::string> pages_;                   // every page a header names
};

}  // namespace repl::lint
