// Benchmarks of the engine: the whole default scenario, raw event throughput (fixed durations
// and shared links), and the issue-4 scale target, 10 iterations of a 4096-GPU, 1000-table
// scenario. Run: scripts/bench.sh --benchmark_filter=Engine (docs/performance.md).
#include <benchmark/benchmark.h>

#include <numeric>

#include "shardsim/core/log.hpp"
#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/hw/level_table.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/planner.hpp"
#include "shardsim/run/run_scenario.hpp"
#include "shardsim/sim/engine.hpp"
#include "shardsim/sim/simulation.hpp"
#include "shardsim/trace/trace_source.hpp"

namespace shardsim {
namespace {

void BM_DefaultScenarioEndToEnd(benchmark::State& state) {
  setup_logging(Verbosity::quiet);
  for (auto _ : state) {
    const Scenario s = load_scenario_text(default_scenario_text(), "<default>");
    benchmark::DoNotOptimize(run_scenario(s));
  }
}
BENCHMARK(BM_DefaultScenarioEndToEnd)->Unit(benchmark::kMillisecond);

// A chain of tasks per GPU with a collective after every 4 tasks: events per second.
void BM_EngineEvents(benchmark::State& state) {
  const int gpus = static_cast<int>(state.range(0));
  TaskGraph g;
  std::vector<int> last(gpus, -1);
  std::vector<int> all(gpus);
  for (int i = 0; i < gpus; ++i) all[i] = i;
  for (int step = 0; step < 40; ++step) {
    if (step % 4 == 3) {
      std::vector<std::vector<int>> deps(gpus);
      for (int i = 0; i < gpus; ++i) deps[i] = {last[i]};
      const int c = g.add_collective(all, Stream::sparse_comm, Phase::alltoall_fwd, 1e-4, 0, deps);
      last = g.collectives[c].members;
      continue;
    }
    for (int i = 0; i < gpus; ++i) {
      Task t;
      t.gpu = i;
      t.stream = Stream::dense_compute;
      t.duration_s = 1e-4 * (1 + (i % 7));
      if (last[i] >= 0) t.deps = {last[i]};
      last[i] = g.add_task(std::move(t));
    }
  }
  std::uint64_t events = 0;
  for (auto _ : state) {
    const Timeline tl = run_engine(g, gpus);
    events += tl.events;
    benchmark::DoNotOptimize(tl.makespan_s);
  }
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EngineEvents)->Arg(16)->Arg(1024)->Unit(benchmark::kMillisecond);

// The same chains on a real topology (ZionEX nodes), where every fourth step is a network
// collective: an AlltoAllv whose senders differ in size (so flows end at different times),
// alternating with a hierarchical AllReduce on a second stream that overlaps the next
// AlltoAll. Events include every flow completion and stage start.
void BM_EngineSharedLinks(benchmark::State& state) {
  setup_logging(Verbosity::quiet);
  const int nodes = static_cast<int>(state.range(0));
  const Cluster cluster(builtin_preset("zionex"), nodes);
  const int gpus = cluster.num_gpus();
  const CostParams p = default_cost_params();
  LevelTraffic traffic(cluster);
  const LevelTable levels(cluster);
  for (int i = 0; i < gpus; ++i) {
    for (int j = 0; j < gpus; ++j) {
      if (i != j) traffic.add(i, j, levels.level(i, j), 1e3 * (1 + i % 13));
    }
  }
  std::vector<int> all(gpus);
  std::iota(all.begin(), all.end(), 0);
  TaskGraph g;
  const int a2a = g.add_demand(alltoallv_demand(cluster, traffic, p));
  const int ar = g.add_demand(allreduce_demand(cluster, all, 64e6, p));
  std::vector<int> last(gpus, -1);
  for (int step = 0; step < 40; ++step) {
    std::vector<std::vector<int>> deps(gpus);
    for (int i = 0; i < gpus; ++i) {
      if (last[i] >= 0) deps[i] = {last[i]};
    }
    if (step % 4 == 3) {
      const int c =
          g.add_collective(all, Stream::sparse_comm, Phase::alltoall_fwd, 0, 1, deps, a2a);
      g.add_collective(all, Stream::dense_comm, Phase::mlp_allreduce, 0, 1, deps, ar);
      last = g.collectives[c].members;
      continue;
    }
    for (int i = 0; i < gpus; ++i) {
      Task t;
      t.gpu = i;
      t.stream = Stream::dense_compute;
      t.duration_s = 1e-5 * (1 + (i % 7));
      t.deps = deps[i];
      last[i] = g.add_task(std::move(t));
    }
  }
  const std::vector<double> capacity = achievable_link_Bps(cluster, p);
  std::uint64_t events = 0, flows = 0;
  for (auto _ : state) {
    const Timeline tl = run_engine(g, gpus, capacity);
    events += tl.events;
    flows += tl.flows;
    benchmark::DoNotOptimize(tl.makespan_s);
  }
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["flows_per_s"] =
      benchmark::Counter(static_cast<double>(flows), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EngineSharedLinks)->Arg(2)->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond);

// Issue 4's scale target: bench/scenarios/engine-4096.yaml (512 ZionEX nodes = 4096 GPUs, 1000
// tables, table-wise, 2 warm-up + 10 measured iterations). Planned once; the loop simulates
// (builds every iteration's tasks from the trace, runs the engine with shared links).
void BM_EngineSimulate4096Gpus1000Tables(benchmark::State& state) {
  setup_logging(Verbosity::quiet);
  const Scenario s =
      load_scenario_file(std::string(SHARDSIM_SOURCE_DIR) + "/bench/scenarios/engine-4096.yaml");
  const Cluster cluster(s.cluster.preset, s.cluster.nodes);
  const auto trace = make_synthetic_trace_source(s.model, s.workload);
  Plan plan = make_planner("table_wise")->plan({cluster, s.model, s.workload, *trace});
  plan.planner = "table_wise";
  for (auto _ : state) {
    const SimulationResult r =
        simulate({cluster, s.model, s.workload, plan, *trace, s.cost, s.simulation});
    state.counters["events"] = static_cast<double>(r.timeline.events);
    state.counters["tasks"] = static_cast<double>(r.graph.tasks.size());
    benchmark::DoNotOptimize(r.timeline.makespan_s);
  }
}
BENCHMARK(BM_EngineSimulate4096Gpus1000Tables)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace shardsim
