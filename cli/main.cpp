#include "cli/cli.hpp"

#include <iostream>

int main(int argc, char** argv) { return cli::run_cli(argc, argv, std::cin, std::cout, std::cerr); }
