#pragma once
// The per-iteration half of an iteration: the trace's draw of this batch turned into work and
// bytes — the lookups and distinct rows of every shard, each GPU's fused embedding kernels
// (forward, and backward with the update in training; OPER's one-sided kernels and puts), and
// the input AlltoAll's traffic per sparse group (indices and offsets to the GPU serving each
// block). Kernel times include each GPU's slowdown (stragglers, jitter).
#include <cstddef>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "shardsim/core/byte_matrix.hpp"
#include "shardsim/cost/level_traffic.hpp"
#include "shardsim/hw/level_table.hpp"
#include "shardsim/plan/plan_analysis.hpp"
#include "shardsim/sim/simulation_inputs.hpp"

namespace shardsim {

struct IterationDraw {
  std::vector<double> lookups_by_gpu;   // lookups served by each GPU's shards
  std::vector<double> lookup_s_by_gpu;  // embedding forward + backward kernel time per GPU
  std::vector<double> lookup_fwd_s;     // per GPU, slowed down
  std::vector<double> update_bwd_s;     // per GPU, slowed down (training)
  // Bytes over each GPU's host link (both directions) for its shards in host memory.
  std::vector<double> host_link_bytes_by_gpu;
  bool inputs = false;                      // whether an input AlltoAll runs this iteration
  std::vector<LevelTraffic> input_traffic;  // per sparse group, when `inputs`
  std::vector<ByteMatrix> input_pairs;      // per sparse group, per-flow sharing only
  double puts_s = 0;      // one-sided plans: the slowest GPU's gradient puts (training)
  double puts_bytes = 0;  // one-sided plans: all puts' bytes
};

// The expected distinct rows of the replicas of replica sets with several, memoised for one plan
// (sim/iteration_draw.cpp): a replica's distinct rows are its profile's expected_distinct(its
// rows, the lookups of the GPUs it serves), and the same (set, lookups) recurs across replicas
// and iterations (a data-parallel replica serves one GPU, whose lookups are an integer near
// batch × E[pooling]). Exact: a hit returns what the same call returned before. At most
// kMaxPerSet values are kept per set. Not thread-safe: one per IterationBuilder.
class ReplicaDistinctMemo {
 public:
  static constexpr std::size_t kMaxPerSet = 1 << 16;
  explicit ReplicaDistinctMemo(std::size_t num_sets) : by_set_(num_sets) {}
  double distinct(const AccessProfile& profile, std::size_t set, const ReplicaSet& replicas,
                  double lookups);

 private:
  std::vector<std::unordered_map<double, double>> by_set_;
};

// `factor[g]` multiplies GPU g's kernel times; `groups` is the number of sparse groups;
// `levels` is the cluster's level table (built once per simulation). When the trace draws the
// same every iteration (TraceSource::same_draw_every_iteration: expected mode), the draw before
// the slowdowns is made once into `repeated` and reused: the same numbers, bit for bit, at the
// cost of the slowdowns alone.
IterationDraw draw_iteration(const SimulationInputs& in, const PlanAnalysis& analysis,
                             const LevelTable& levels, std::size_t groups,
                             std::span<const double> factor, int iteration,
                             ReplicaDistinctMemo& memo, std::optional<IterationDraw>& repeated);

}  // namespace shardsim
