// Benchmarks of the walking skeleton: the whole default scenario (load, plan, simulate, report)
// and the engine alone. Run: scripts/bench.sh
#include <benchmark/benchmark.h>

#include "shardsim/cli/pipeline.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/sim/engine.hpp"

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

}  // namespace
}  // namespace shardsim
