#include "shardsim/cli/app.hpp"

int main(int argc, char** argv) {
  return shardsim::run_cli(argc, argv);
}
