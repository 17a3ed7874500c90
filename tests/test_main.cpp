#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>

// Every gateway a test starts keeps its state in the build folder, not in
// the user's own ~/.local/state (tests that need another set their own).
int main(int argc, char* argv[]) {
  ::setenv("XDG_STATE_HOME", EDITGATE_TEST_STATE, 1);
  return Catch::Session().run(argc, argv);
}
