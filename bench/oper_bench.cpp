// Benchmarks of the `oper` planner (issue 6). Goals: the Criteo-Kaggle-shaped task (26 tables,
// 30.8 M rows, 8 GPUs, threshold 0.1%) in under 1 s (OPER Table 3 reports 120 s), and a
// 2.5-billion-row task on 64 GPUs in under 10 s. Each iteration starts from a fresh trace source
// (the access profiles' lazy state is built inside the timing, as for a user's `shardsim plan`).
// Run: scripts/bench.sh --benchmark_filter=Oper
#include <benchmark/benchmark.h>

#include <vector>

#include "shardsim/core/log.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/plan/plan_stats.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim {
namespace {

struct Task {
  Cluster cluster;
  DlrmModel model;
  Workload workload;
  CostParams cost = default_cost_params();
};

DlrmModel model_of(const std::vector<std::uint64_t>& rows, std::uint32_t dim, double pooling) {
  DlrmModel m;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EmbeddingTable t;
    t.name = "t" + std::to_string(i);
    t.rows = rows[i];
    t.dim = dim;
    t.pooling.value = pooling;
    t.alpha = 1.05;
    m.tables.push_back(t);
  }
  m.dense_features = 13;
  m.bottom_mlp = {512, 256, 64, dim};
  m.top_mlp = {512, 256, 1};
  return m;
}

// scenarios/papers/oper-*/criteo-kaggle.yaml: the Criteo Kaggle cardinalities of
// scenarios/default.yaml, the large ones scaled to OPER Table 1's 30.8 M rows; DGX A100.
Task kaggle_task(Mode mode) {
  const std::vector<std::uint64_t> rows = {
      1460,  583,     9226992, 2006020, 305,  24, 12517,   633, 3,  93145,  5683, 7606194, 3194, 27,
      14992, 4973872, 10,      5652,    2173, 4,  6417626, 18,  15, 286181, 105,  142572};
  Task t{Cluster(builtin_preset("dgx-a100"), 1), model_of(rows, 16, 1), Workload{}};
  t.workload.mode = mode;
  t.workload.batch_per_gpu = 16384;
  return t;
}

// OPER Table 1's Syn_Large: 300 tables of 2^23 rows (2.5 B rows, 600 GiB at dim 64) on 16 nodes
// of 4 A100s (OPER §6.1's multi-node cluster).
Task syn_large_task(Mode mode) {
  Task t{Cluster(builtin_preset("hpc-a100x4"), 16),
         model_of(std::vector<std::uint64_t>(300, 1ull << 23), 64, 10), Workload{}};
  t.workload.mode = mode;
  t.workload.batch_per_gpu = 16384;
  return t;
}

void run_oper(benchmark::State& state, const Task& t) {
  setup_logging(Verbosity::quiet);
  const auto planner = make_planner("oper", {{"threshold", 0.001}});
  std::size_t shards = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const auto trace = make_synthetic_trace_source(t.model, t.workload);
    state.ResumeTiming();
    const Plan plan =
        planner->plan(PlanningContext{t.cluster, t.model, t.workload, *trace, &t.cost});
    shards = plan.shards.size();
    benchmark::DoNotOptimize(shards);
  }
  state.counters["shards"] = static_cast<double>(shards);
}

void BM_OperKaggle8Gpus(benchmark::State& state) {
  run_oper(state, kaggle_task(state.range(0) ? Mode::inference : Mode::training));
}
BENCHMARK(BM_OperKaggle8Gpus)->ArgName("inference")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_OperSynLarge64Gpus(benchmark::State& state) {
  run_oper(state, syn_large_task(state.range(0) ? Mode::inference : Mode::training));
}
BENCHMARK(BM_OperSynLarge64Gpus)
    ->ArgName("inference")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);

// Plan statistics of an OPER plan (one-sided traffic; in every run report).
void BM_PlanStatsOfOperKaggle(benchmark::State& state) {
  setup_logging(Verbosity::quiet);
  const Task t = kaggle_task(Mode::training);
  const auto trace = make_synthetic_trace_source(t.model, t.workload);
  const Plan plan =
      make_planner("oper")->plan(PlanningContext{t.cluster, t.model, t.workload, *trace, &t.cost});
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        compute_plan_stats(plan, t.cluster, t.model, t.workload, *trace, t.cost));
  }
}
BENCHMARK(BM_PlanStatsOfOperKaggle)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace shardsim
