#include "shardsim/cli/app.hpp"
#include "shardsim/core/huge_pages.hpp"
#include "shardsim/core/standard_streams.hpp"

// The heap goes on transparent huge pages first (core/huge_pages.hpp): 25-45% less time at 16,384
// GPUs, where a third of the run went to page faults and TLB misses
// (docs/notes/performance-scale-59.md, "Huge pages").
int main(int argc, char** argv) {
  shardsim::restart_with_huge_pages(argv);
  return shardsim::finish_standard_streams(shardsim::run_cli(argc, argv));
}
