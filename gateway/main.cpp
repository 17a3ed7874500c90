#include "gateway/cli.hpp"

#include <iostream>

int main(int argc, char** argv) { return editgate::run_cli(argc, argv, std::cin, std::cout, std::cerr); }
