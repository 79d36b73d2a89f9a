// Issue 59's `trace stats` at the production batch: the 856 tables fitted to Meta's
// dlrm_datasets 2021 statistics (bench/scenarios/trace-stats-t856.yaml), one batch of 65 536
// samples, about 887 M lookups. Goal: under 30 s on the 2-core machine.
//   BM_TraceStatsTable/<class>/<path>: one table of each fitted class (the scenario's first of
//     the class) at that batch; path 0 counts its ranks exactly (synthetic_table_counts, what
//     `trace stats SCENARIO` runs), path 1 builds the empirical profile of its row ids (what it
//     ran before). Items: lookups.
//   BM_TraceStatsFitted856/<jobs>: every table, as `trace stats` counts them.
// Run: scripts/bench.sh --benchmark_filter=TraceStats (docs/performance.md).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "shardsim/core/log.hpp"
#include "shardsim/core/parallel_for.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/trace/table_counts.hpp"
#include "shardsim/trace/trace_stats.hpp"

namespace shardsim {
namespace {

const Scenario& fitted_scenario() {
  static const Scenario s = [] {
    setup_logging(Verbosity::quiet);
    return load_scenario_file(std::string(SHARDSIM_SOURCE_DIR) +
                              "/bench/scenarios/trace-stats-t856.yaml");
  }();
  return s;
}

SyntheticTraceShape shape_of(const Scenario& s) {
  return {s.cluster.nodes * s.cluster.preset.gpus_per_node, s.workload.batch_per_gpu,
          s.workload.warmup + s.workload.iterations};
}

void BM_TraceStatsTable(benchmark::State& state) {
  const Scenario& s = fitted_scenario();
  const std::string prefix = "fit" + std::to_string(state.range(0)) + "_";
  std::size_t t = 0;
  while (s.model.tables[t].name.rfind(prefix, 0) != 0) ++t;
  const BagGenerator gen(s.model.tables[t], t, s.workload);
  const SyntheticTraceShape shape = shape_of(s);
  std::uint64_t lookups = 0;
  for (auto _ : state) {
    const TableCounts c =
        state.range(1) == 0
            ? synthetic_table_counts(gen, shape)
            : table_counts(*build_empirical_profile(gen.layout().rows(), [&](const auto& sink) {
                stream_synthetic_table(gen, shape, [&](const Bags& b) { sink(b.rows); });
              }));
    lookups += c.lookups;
    benchmark::DoNotOptimize(c.groups.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(lookups));
}
BENCHMARK(BM_TraceStatsTable)
    ->ArgsProduct({{0, 1, 2, 3, 4, 5}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

void BM_TraceStatsFitted856(benchmark::State& state) {
  const Scenario& s = fitted_scenario();
  const SyntheticTraceShape shape = shape_of(s);
  const std::vector<std::string> names(s.model.tables.size());
  std::uint64_t lookups = 0;
  for (auto _ : state) {
    std::vector<TableCounts> counts(s.model.tables.size());
    parallel_for(counts.size(), static_cast<int>(state.range(0)), [&](std::size_t t) {
      counts[t] = synthetic_table_counts(BagGenerator(s.model.tables[t], t, s.workload), shape);
    });
    const TraceStats st = compute_trace_stats(counts, names, shape.samples());
    lookups += st.overall.lookups;
    benchmark::DoNotOptimize(st.overall.hist_distinct_by_count.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(lookups));
}
BENCHMARK(BM_TraceStatsFitted856)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace
}  // namespace shardsim
