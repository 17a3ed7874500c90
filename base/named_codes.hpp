// What every layer's named error codes share. Each layer keeps its own enum
// of codes, their wire names and its Failure; this carries a code inside a
// boost::system::error_code (the category, whose message for a code is its
// wire name) and makes the exception boost::system::result throws when a
// Failure is taken for a value.
#pragma once

#include <boost/assert/source_location.hpp>
#include <boost/system/error_category.hpp>
#include <boost/system/error_code.hpp>
#include <boost/system/system_error.hpp>
#include <boost/throw_exception.hpp>

#include <ostream>
#include <string>
#include <string_view>

namespace base {

class NamedCategory final : public boost::system::error_category {
 public:
  using NameOf = std::string_view (*)(int code);
  NamedCategory(const char* name, NameOf name_of) noexcept : name_(name), name_of_(name_of) {}
  const char* name() const noexcept override { return name_; }
  std::string message(int code) const override { return std::string(name_of_(code)); }

 private:
  const char* name_;
  NameOf name_of_;
};

[[noreturn]] inline void throw_failure(boost::system::error_code code, const std::string& message,
                                       const boost::source_location& loc) {
  boost::throw_exception(boost::system::system_error(code, message), loc);
}

// A layer's failure: a named code and what happened, for a person or a
// model to read. `Code`'s make_error_code is found beside it.
template <class Code, Code Default>
struct Failure {
  Code code = Default;
  std::string message;
};

// "<code>: <message>", for logs and test output.
template <class Code, Code Default>
std::ostream& operator<<(std::ostream& os, const Failure<Code, Default>& f) {
  return os << to_string(f.code) << ": " << f.message;
}

// What boost::system::result throws when a Failure is taken for a value.
template <class Code, Code Default>
[[noreturn]] void throw_exception_from_error(const Failure<Code, Default>& f, const boost::source_location& loc) {
  throw_failure(make_error_code(f.code), f.message, loc);
}

}  // namespace base
