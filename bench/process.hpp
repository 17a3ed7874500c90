// Running and timing whole processes for the benchmark.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bench {

// The absolute path of a program found on PATH; throws when there is none.
std::string find_program(std::string_view name);

// TMPDIR for every child; call before the first run_process.
void set_child_tmpdir(const std::string& dir);

// Runs argv (argv[0] an absolute path) with standard input from /dev/null and
// standard output and error to `log` (to /dev/null when empty). The child
// gets a fixed environment: the caller's, minus variables that change how
// git or patch behave, plus LC_ALL=C and git's system and global config
// switched off. Returns the exit status, or 128 + signal number.
int run_process(const std::vector<std::string>& argv, const std::string& log = {});

// argv as a shell-quoted line, for messages.
std::string shell_line(const std::vector<std::string>& argv);

}  // namespace bench
