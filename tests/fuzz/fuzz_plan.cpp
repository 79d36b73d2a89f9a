// libFuzzer target: plan file text (YAML or JSON) -> read_plan against a fixed model on 8 GPUs
// -> memory, statistics and one simulated iteration of a valid plan, and a round trip: a plan
// that was read, written and read again must come back shard for shard.
#include <sstream>

#include "fuzz_support.hpp"
#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/io/plan_file.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/plan_stats.hpp"
#include "shardsim/run/run_scenario.hpp"
#include "shardsim/sim/simulation.hpp"
#include "shardsim/trace/synthetic_trace_source.hpp"

namespace shardsim::fuzz {
namespace {

// The model the fuzzed plans place (its names are in tests/fuzz/plan.dict and the seeds).
constexpr std::string_view kScenario = R"(
name: fuzz-plan
cluster: {preset: dgx-a100, nodes: 1}
model:
  tables:
    - {name: t0, rows: 100, dim: 16, pooling: 2, alpha: 1.1}
    - {name: t1, rows: 10, dim: 8, pooling: 1}
    - {name: "user id", rows: 10000000, dim: 128, pooling: 20, alpha: 1.05}
  bottom_mlp: [64, 16]
  top_mlp: [64, 1]
workload: {batch_per_gpu: 64, iterations: 1, warmup: 0}
placement: {planner: table_wise}
)";

struct World {
  Scenario scenario = load_scenario_text(kScenario, "fuzz-plan.yaml");
  Cluster cluster{scenario.cluster.preset, scenario.cluster.nodes};
  std::unique_ptr<TraceSource> trace =
      make_synthetic_trace_source(scenario.model, scenario.workload);
};

bool same_shards(const Plan& a, const Plan& b) {
  if (a.shards.size() != b.shards.size() || a.groups != b.groups ||
      a.fetch_overrides.size() != b.fetch_overrides.size())
    return false;
  for (std::size_t i = 0; i < a.shards.size(); ++i) {
    const Shard& x = a.shards[i];
    const Shard& y = b.shards[i];
    if (x.table != y.table || !(x.rows == y.rows) || x.row_space != y.row_space ||
        !(x.cols == y.cols) || x.gpu != y.gpu || x.replica != y.replica || x.kind != y.kind)
      return false;
  }
  for (std::size_t k = 0; k < a.fetch_overrides.size(); ++k) {
    if (a.fetch_overrides[k].shard != b.fetch_overrides[k].shard ||
        a.fetch_overrides[k].requesting_gpu != b.fetch_overrides[k].requesting_gpu)
      return false;
  }
  return true;
}

}  // namespace
}  // namespace shardsim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  fuzz::quiet_once();
  static const fuzz::World w;
  const DlrmModel& model = w.scenario.model;
  fuzz::expect_clean([&] {
    const Plan plan = read_plan_text(fuzz::text_of(data, size), "fuzz-plan.yaml", model, w.cluster);
    for (const PlanFormat format : {PlanFormat::yaml, PlanFormat::json}) {
      std::ostringstream text;
      write_plan(text, plan, model, w.cluster, format);
      Plan again;
      try {
        again = read_plan_text(text.str(), "written", model, w.cluster);
      } catch (const InputError& e) {
        std::fprintf(stderr, "%s\n%s\n", e.what(), text.str().c_str());
        fuzz::invariant_failed("a written plan does not read back");
      }
      if (!fuzz::same_shards(plan, again) || plan.bottom_mlp_gpu != again.bottom_mlp_gpu) {
        fuzz::invariant_failed("a plan changed in a round trip");
      }
    }
    const auto memory = plan_memory(plan, w.cluster, model, w.scenario.workload);
    (void)compute_plan_stats(plan, w.cluster, model, w.scenario.workload, *w.trace,
                             w.scenario.cost);
    check_fits(memory, w.cluster);
    const SimulationInputs inputs{w.cluster, model,    w.scenario.workload,
                                  plan,      *w.trace, w.scenario.cost};
    (void)simulate(inputs);
  });
  return 0;
}
