// One iteration at a time: the per-plan traffic once, then per iteration the draw and its DAG
// (sim/iteration_builder.hpp).
#include "shardsim/sim/iteration_builder.hpp"

#include <cmath>

#include "shardsim/core/rng.hpp"

namespace shardsim {

namespace {
// Purpose key of the jitter stream (stream_seed(seed, {kJitterStream, iteration, gpu})).
constexpr std::uint64_t kJitterStream = 0x6a6974746572ULL;  // "jitter"
}  // namespace

IterationBuilder::IterationBuilder(const SimulationInputs& in, const PlanAnalysis& analysis)
    : cost_(in.cost),
      in_{in.cluster, in.model, in.workload, in.plan, in.trace, cost_, in.options, in.collectives},
      analysis_(analysis),
      levels_(in.cluster),
      traffic_(plan_traffic(in_, analysis_)),
      distinct_memo_(analysis_.serving.sets.size()) {
  slowdown_by_gpu_.assign(static_cast<std::size_t>(in.cluster.num_gpus()), 1.0);
  for (const Straggler& s : in.options.stragglers) {
    slowdown_by_gpu_[static_cast<std::size_t>(s.gpu)] *= s.slowdown;
  }
}

IterationBuilder::IterationBuilder(const SimulationInputs& in)
    : cost_(in.cost),
      in_{in.cluster, in.model, in.workload, in.plan, in.trace, cost_, in.options, in.collectives},
      owned_analysis_(analyze_plan(in.plan, in.cluster, in.model, in.workload, in.trace, in.cost)),
      analysis_(*owned_analysis_),
      levels_(in.cluster),
      traffic_(plan_traffic(in_, analysis_)),
      distinct_memo_(analysis_.serving.sets.size()) {
  slowdown_by_gpu_.assign(static_cast<std::size_t>(in.cluster.num_gpus()), 1.0);
  for (const Straggler& s : in.options.stragglers) {
    slowdown_by_gpu_[static_cast<std::size_t>(s.gpu)] *= s.slowdown;
  }
}

// Stragglers multiply a GPU's kernel times by their slowdown; jitter by a lognormal factor of
// mean 1 and coefficient of variation cv (σ² = ln(1 + cv²), μ = −σ²/2), drawn per iteration and
// GPU from the workload seed.
double IterationBuilder::slowdown(int gpu, int iteration) const {
  double f = slowdown_by_gpu_[static_cast<std::size_t>(gpu)];
  const double cv = in_.options.jitter_cv;
  if (cv > 0) {
    const double sigma2 = std::log1p(cv * cv);
    Rng rng(stream_seed(in_.workload.seed, {kJitterStream, static_cast<std::uint64_t>(iteration),
                                            static_cast<std::uint64_t>(gpu)}));
    f *= rng.lognormal(-0.5 * sigma2, std::sqrt(sigma2));
  }
  return f;
}

IterationTasks IterationBuilder::append(TaskGraph& graph, int iteration,
                                        const IterationTasks* previous) const {
  const int n = in_.cluster.num_gpus();
  std::vector<double> factor(static_cast<std::size_t>(n));
  for (int g = 0; g < n; ++g) factor[static_cast<std::size_t>(g)] = slowdown(g, iteration);
  IterationDraw draw = draw_iteration(in_, analysis_, levels_, traffic_.a2a_groups.size(), factor,
                                      iteration, distinct_memo_, repeated_draw_);
  return emit_iteration(graph, in_, traffic_, analysis_.peer_syncs, std::move(draw), factor,
                        iteration, previous);
}

}  // namespace shardsim
