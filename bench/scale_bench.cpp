// Issue 21's speed target: any planner at 4096 GPUs in seconds. bench/scenarios/hybrid-4096.yaml
// (1000 generated tables on 512 DGX H100 nodes, 10 + 2 iterations, expected-mode traces) planned
// by `hybrid` (about 390 k shards, most of them data-parallel replicas) and by `table_wise`. One
// benchmark iteration is the whole pipeline after loading: plan, plan analysis and statistics,
// memory check, simulation, report. Goal: < 5 s each on one core.
// Run: scripts/bench.sh --benchmark_filter=Scale (docs/performance.md, "Speed (issue 21)").
#include <benchmark/benchmark.h>

#include <string>

#include "shardsim/core/log.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/run/run_scenario.hpp"

namespace shardsim {
namespace {

void BM_Scale4096Gpus1000Tables(benchmark::State& state, const std::string& planner) {
  setup_logging(Verbosity::quiet);
  const Scenario s =
      load_scenario_file(std::string(SHARDSIM_SOURCE_DIR) + "/bench/scenarios/hybrid-4096.yaml",
                         {{"placement.planner", planner}});
  for (auto _ : state) {
    const auto reports = run_scenario(s);
    benchmark::DoNotOptimize(reports);
  }
}
BENCHMARK_CAPTURE(BM_Scale4096Gpus1000Tables, hybrid, std::string("hybrid"))
    ->Unit(benchmark::kSecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Scale4096Gpus1000Tables, table_wise, std::string("table_wise"))
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

}  // namespace
}  // namespace shardsim
