// The 2D sparse-parallelism scale target (issue 7): plan and simulate 5 iterations (3 measured
// + 2 warm-up) of a 4096-GPU, 4000-table training scenario, 16 groups of 256 GPUs with
// `hybrid` inside each (bench/scenarios/two-d-4096.yaml). One benchmark iteration is the whole
// pipeline after loading: the two_d plan, the memory check, the simulation and the report.
// Run: scripts/bench.sh --benchmark_filter=TwoD (docs/performance.md).
#include <benchmark/benchmark.h>

#include "shardsim/core/log.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/run/run_scenario.hpp"

namespace shardsim {
namespace {

void BM_TwoD4096Gpus4000TablesPlanAndSimulate(benchmark::State& state) {
  setup_logging(Verbosity::quiet);
  const Scenario s =
      load_scenario_file(std::string(SHARDSIM_SOURCE_DIR) + "/bench/scenarios/two-d-4096.yaml");
  for (auto _ : state) {
    const auto reports = run_scenario(s);
    benchmark::DoNotOptimize(reports);
  }
}
BENCHMARK(BM_TwoD4096Gpus4000TablesPlanAndSimulate)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace shardsim
