// The benchmarks' main: Google Benchmark's own, after the same restart onto transparent huge pages
// as the command-line tool (core/huge_pages.hpp), so that they time what users run. On 4 KB pages
// BM_EngineSharedLinks/512 ran 2.5-3.7 M events/s; on huge pages 5.4-6.3 M/s
// (docs/notes/performance-scale-59.md, "Huge pages").
#include <benchmark/benchmark.h>

#include "shardsim/core/huge_pages.hpp"

int main(int argc, char** argv) {
  shardsim::restart_with_huge_pages(argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
