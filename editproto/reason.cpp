#include "editproto/reason.hpp"

#include "base/named_codes.hpp"

#include <boost/system/system_error.hpp>

#include <ostream>

namespace editproto {

std::string_view to_string(Status s) {
  switch (s) {
    case Status::applied: return "applied";
    case Status::validated: return "validated";
    case Status::failed: return "failed";
    case Status::skipped: return "skipped";
    case Status::not_in_context: return "not_in_context";
  }
  return "failed";
}

std::string_view to_string(Reason r) {
  switch (r) {
    case Reason::none: return "none";
    case Reason::anchor_not_found: return "anchor_not_found";
    case Reason::ambiguous: return "ambiguous";
    case Reason::old_mismatch: return "old_mismatch";
    case Reason::whitespace: return "whitespace";
    case Reason::near_match: return "near_match";
    case Reason::file_not_found: return "file_not_found";
    case Reason::file_exists: return "file_exists";
    case Reason::missing_path: return "missing_path";
    case Reason::incomplete_block: return "incomplete_block";
    case Reason::malformed_block: return "malformed_block";
    case Reason::placeholder: return "placeholder";
    case Reason::no_change: return "no_change";
    case Reason::path_escape: return "path_escape";
    case Reason::protected_path: return "protected_path";
    case Reason::binary: return "binary";
    case Reason::encoding: return "encoding";
    case Reason::not_in_context: return "not_in_context";
    case Reason::too_large: return "too_large";
    case Reason::io_error: return "io_error";
  }
  return "io_error";
}

const boost::system::error_category& reason_category() noexcept {
  static const base::NamedCategory c("editproto", [](int code) { return to_string(static_cast<Reason>(code)); });
  return c;
}

boost::system::error_code make_error_code(Reason r) noexcept {
  return {static_cast<int>(r), reason_category()};
}

std::ostream& operator<<(std::ostream& os, const Failure& f) {
  return os << to_string(f.reason) << ": " << f.detail;
}

void throw_exception_from_error(const Failure& f, const boost::source_location& loc) {
  base::throw_failure(f.code(), f.detail, loc);
}

}  // namespace editproto
