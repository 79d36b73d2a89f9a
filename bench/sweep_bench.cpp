// Expanding a sweep whose points are whole table lists (scripts/reproduce/neuroshard.py writes
// one such file per setting: 100 tasks of 10-119 tables, about 500 kB). Each point's document is
// built from the input's nodes (io/yaml_path.hpp); the cost must grow with the points, not with
// the points times the input's size. Before YamlArena, 100 points of 60 tables took 9.1 s to
// expand and 400 points 147 s; after, 0.18 s and 0.66 s (docs/performance.md, "Sweep
// expansion", where validating one NeuroShard task file fell from 28 s to 1.3 s).
// Run: scripts/bench.sh --benchmark_filter=Sweep
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "shardsim/core/log.hpp"
#include "shardsim/io/scenario_document.hpp"
#include "shardsim/io/scenario_loader.hpp"

namespace shardsim {
namespace {

// A scenario with a sweep over `points` table lists of `tables` tables each.
std::string sweep_of_table_lists(std::int64_t points, std::int64_t tables) {
  std::string text =
      "name: sweep-bench\n"
      "cluster: {preset: dgx-a100, nodes: 1}\n"
      "model:\n"
      "  tables: [{name: t, rows: 1000, dim: 16, pooling: 2}]\n"
      "  bottom_mlp: [64, 16]\n"
      "  top_mlp: [64, 1]\n"
      "workload: {batch_per_gpu: 512}\n"
      "placement: {planner: table_wise}\n"
      "sweep:\n"
      "  model.tables:\n";
  for (std::int64_t p = 0; p < points; ++p) {
    text += "    - [";
    for (std::int64_t t = 0; t < tables; ++t) {
      text += (t ? ", " : "") + std::string("{name: t") + std::to_string(t) +
              ", rows: " + std::to_string(1000 + 7 * p + t) +
              ", dim: 16, pooling: 2.5, alpha: 1.05}";
    }
    text += "]\n";
  }
  return text;
}

void BM_SweepExpandTableLists(benchmark::State& state) {
  setup_logging(Verbosity::quiet);
  const std::int64_t points = state.range(0);
  const ScenarioDocument document =
      ScenarioDocument::parse(sweep_of_table_lists(points, 60), "sweep-bench.yaml");
  for (auto _ : state) {
    const auto expanded = expand_sweep(document, 100000);
    benchmark::DoNotOptimize(expanded);
  }
  state.counters["points"] = static_cast<double>(points);
}
BENCHMARK(BM_SweepExpandTableLists)->Arg(25)->Arg(100)->Arg(400)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace shardsim
