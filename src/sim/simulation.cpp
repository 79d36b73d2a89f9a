#include "shardsim/sim/simulation.hpp"

#include "shardsim/core/cancellation.hpp"
#include "shardsim/core/log.hpp"

namespace shardsim {

SimulationResult simulate(const SimulationInputs& inputs) {
  return simulate(inputs, analyze_plan(inputs.plan, inputs.cluster, inputs.model, inputs.workload,
                                       inputs.trace, inputs.cost));
}

SimulationResult simulate(const SimulationInputs& inputs, const PlanAnalysis& analysis) {
  SimulationResult r;
  const IterationBuilder builder(inputs, analysis);
  const int total = inputs.workload.warmup + inputs.workload.iterations;
  r.warmup = inputs.workload.warmup;
  r.iterations.reserve(total);
  Progress progress("building iterations", static_cast<std::uint64_t>(total));
  for (int i = 0; i < total; ++i) {
    throw_if_cancelled();  // a stop request (core/cancellation.hpp) between iterations
    r.iterations.push_back(builder.append(r.graph, i, i > 0 ? &r.iterations.back() : nullptr));
    progress.advance();
  }
  progress.finish();
  log_debug("simulating {} tasks ({} collectives) on {} GPUs", r.graph.tasks.size(),
            r.graph.collectives.size(), inputs.cluster.num_gpus());
  r.timeline = run_engine(r.graph, inputs.cluster.num_gpus(), builder.link_capacity_Bps(),
                          inputs.network(), inputs.cost);
  r.comm = builder.comm();
  r.syncs = builder.replica_syncs();
  return r;
}

}  // namespace shardsim
