#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "shardsim/cli/app.hpp"
#include "shardsim/core/huge_pages.hpp"
#include "shardsim/core/standard_streams.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SHARDSIM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SHARDSIM_SANITIZED 1
#endif
#endif

namespace {

// Restarts the process once with glibc's heap on transparent huge pages when the kernel grants
// them on request only (core/huge_pages.hpp): 25-45% less time at 16,384 GPUs, where a third of
// the run went to page faults and TLB misses (docs/notes/performance-scale-59.md, "Huge pages").
// Nothing has been read or written yet; if the restart fails the run goes on as it is. Sanitizer
// builds use their own allocator and are left alone.
void restart_with_huge_pages(char** argv) {
#ifdef SHARDSIM_SANITIZED
  (void)argv;
#else
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  const std::string mode((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto tunables = shardsim::huge_page_tunables(mode, std::getenv("GLIBC_TUNABLES"));
  if (!tunables) return;
  if (setenv("GLIBC_TUNABLES", tunables->c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  restart_with_huge_pages(argv);
  return shardsim::finish_standard_streams(shardsim::run_cli(argc, argv));
}
