#pragma once
// OPER §4.2, balanced model parallelism: access-bounded partitions greedily to the GPU with the
// lowest lookup workload E (Eq. 2), then memory-bounded ones to the GPU with the lowest memory M
// (Eq. 1); if the degree of balance of E or M misses the target, partition again with a smaller
// threshold and retry.
#include <optional>
#include <span>
#include <vector>

#include "plan/oper/oper_model.hpp"
#include "plan/packing.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim::oper {

struct ModelParallel {
  std::vector<int> owner;            // per partition
  std::vector<double> lookup_s;      // E_j (Eq. 2) with every GPU fetching from the owner
  std::vector<double> memory_bytes;  // M_j (Eq. 1)
  // min(DoB of E, DoB of M): what the back-off compares with the balance target.
  double balance() const;
};

// The greedy of §4.2. Access-bounded partitions go first, largest access first; then the
// memory-bounded ones, largest footprint first (ties: table, then rank); each to the GPU with the
// lowest E (resp. M) that has room in `budget` (ties: lower id), where it is placed. A partition
// that fits nowhere throws DoesNotFitError. `served_gpus`: the GPUs whose batches a partition's
// shard serves, for its activation memory (0 for a one-sided plan, which keeps none).
ModelParallel balanced_model_parallel(const PlanningContext& ctx,
                                      std::span<const Partition> partitions, const CostMatrix& L,
                                      MemoryBudget& budget, double served_gpus);

// An upper bound on the degree of balance (min / max) of the lookup workload E of any
// model-parallel placement: the hottest row of any table is one partition at every threshold,
// so some GPU carries at least its load R, and the least loaded at most (T − R) / (n − 1) of the
// total T: min(1, (T − R) / ((n − 1) R)).
double lookup_balance_bound(const PlanningContext& ctx, const CostMatrix& L);

// The back-off of §4.2: partition with `threshold`, place, and while the balance is below
// `balance_target`, halve the threshold and start again (from a fresh copy of `budget`), at most
// kMaxBackoffs times. A target above lookup_balance_bound, which no threshold can reach, is
// replaced by target × bound (logged). Returns the first attempt that reaches the target, else
// the most balanced one (the earliest on a tie).
inline constexpr int kMaxBackoffs = 10;
struct BackoffResult {
  double threshold = 0;  // of the returned attempt
  int attempts = 0;      // partitionings tried
  bool reached = false;  // the balance target was met
  std::vector<Partition> partitions;
  ModelParallel placement;
  std::optional<MemoryBudget> budget;  // with the returned attempt's shards placed
};
BackoffResult model_parallel_with_backoff(const PlanningContext& ctx, const CostMatrix& L,
                                          double threshold, double balance_target,
                                          const MemoryBudget& budget, double served_gpus);

}  // namespace shardsim::oper
