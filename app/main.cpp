#include "shardsim/cli/app.hpp"
#include "shardsim/core/standard_streams.hpp"

int main(int argc, char** argv) {
  return shardsim::finish_standard_streams(shardsim::run_cli(argc, argv));
}
