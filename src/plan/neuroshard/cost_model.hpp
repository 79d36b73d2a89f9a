#pragma once
// The cost models NeuroShard searches with (§3.2-§3.3), as pluggable backends.
//
// NeuroShard's simulator sums three pre-trained models: the computation cost of the tables one
// GPU holds (forward + backward of one fused kernel), and the forward and backward
// communication costs of each GPU; the embedding cost of a plan is the largest per-GPU total
// (released code, simulator.py get_final_cost). Ours replaces the neural networks:
//   analytic    (default) the project's pure cost model: the fused kernel's roofline over the
//               sub-tables' expected work (cost/kernel_cost.hpp) and each GPU's share of the
//               pooled AlltoAll over its own links (plan/shard_estimate.hpp);
//   simulation  the same computation cost for the greedy step, but each candidate plan judged
//               by a full simulation (PlanningContext::evaluator): slower, exact.
// docs/planners.md, "neuroshard", says where each differs from the paper.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "plan/neuroshard/key_set_cache.hpp"
#include "plan/neuroshard/sub_tables.hpp"
#include "shardsim/cost/kernel_cost.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim::neuroshard {

// The computation cost model with NeuroShard's life-long cache (§3.3 "Implementation with
// caching"): the cost of a set of sub-tables on one GPU, keyed by the sorted cost keys of the
// set. Analytic: embedding_forward_s + embedding_backward_s (training) over the sub-tables'
// expected work, one fused kernel.
class ComputeCost {
 public:
  ComputeCost(const PlanningContext& ctx, bool use_cache);
  // `keys`: SubTable::cost_key() of the set, sorted ascending.
  double set_s(std::span<const std::uint64_t> keys);
  double single_s(const SubTable& s);
  std::uint64_t queries() const { return queries_; }
  std::uint64_t hits() const { return hits_; }
  const PlanningContext& context() const { return ctx_; }

 private:
  double evaluate(std::span<const std::uint64_t> keys);

  const PlanningContext& ctx_;
  bool use_cache_;
  std::vector<EmbeddingWork> table_work_;  // per table, whole table serving every GPU
  std::vector<EmbeddingWork> scratch_;
  KeySetCache cache_;
  std::uint64_t queries_ = 0;
  std::uint64_t hits_ = 0;
};

// A candidate: every sub-table's GPU and every GPU's computation cost (from ComputeCost).
struct Candidate {
  std::span<const SubTable> subs;
  std::span<const int> gpu_of;
  std::span<const double> compute_s;  // per GPU
};

class PlanCostBackend {
 public:
  virtual ~PlanCostBackend() = default;
  virtual std::string name() const = 0;
  // The embedding cost f(c, t) of the candidate, in seconds (lower is better).
  virtual double cost_s(const Candidate& c) const = 0;
};

// max_g compute_g + max_g fwd_comm_g + max_g bwd_comm_g. Each phase ends with its slowest GPU
// (an AlltoAll waits for every peer: NeuroShard's forward-communication model takes each GPU's
// start time for this reason, §3.2). A GPU's communication is its share of the pooled AlltoAll
// (gpu_alltoall_share_s): it sends B x (its dims) x e bytes to each peer and receives the
// peers' dims for its own batch; the backward reverses the directions. Inference has no
// backward communication.
class AnalyticBackend final : public PlanCostBackend {
 public:
  explicit AnalyticBackend(const PlanningContext& ctx) : ctx_(ctx) {}
  std::string name() const override { return "analytic"; }
  double cost_s(const Candidate& c) const override;
  // The per-GPU communication seconds (forward; the backward is the same with the directions
  // swapped, hence the same share) for per-GPU dims.
  std::vector<double> comm_s(std::span<const std::uint64_t> dims_per_gpu) const;

 private:
  const PlanningContext& ctx_;
};

// The candidate's plan simulated (PlanningContext::evaluator): its mean iteration time.
class SimulationBackend final : public PlanCostBackend {
 public:
  explicit SimulationBackend(const PlanningContext& ctx);
  std::string name() const override { return "simulation"; }
  double cost_s(const Candidate& c) const override;

 private:
  const PlanningContext& ctx_;
};

// The plan of a candidate: one shard a sub-table on its GPU (column_wise when it is a part of
// its table, table_wise when whole), in sub-table order.
Plan candidate_plan(const PlanningContext& ctx, std::span<const SubTable> subs,
                    std::span<const int> gpu_of);

}  // namespace shardsim::neuroshard
