// The editgate command line. main() only calls run_cli.
#pragma once

#include <iosfwd>

namespace cli {

// Parses argv, runs the command and returns the process exit code:
// 0 success, 1 when a block did not validate or apply, 2 for usage errors.
int run_cli(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace cli
