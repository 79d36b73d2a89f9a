#pragma once
// `torchrec`: TorchRec's EmbeddingShardingPlanner with its default proposers (grid search,
// two greedy, uniform) and GreedyPerfPartitioner, re-implemented from
// pytorch/torchrec@a48cef79 (torchrec/distributed/planner/; docs/planners.md, "torchrec"). The
// planner steers by TorchRec's own estimates (estimators.hpp), never by the simulator's.
#include <optional>
#include <vector>

#include "shardsim/plan/planner.hpp"
#include "shardsim/plan/torchrec/estimators.hpp"
#include "shardsim/plan/torchrec/partitioner.hpp"

namespace shardsim::torchrec {

struct TorchrecOptions {
  // Bandwidths and multipliers (TorchRec's defaults); world and local sizes, batch and mode are
  // taken from the scenario.
  Params params;
  // The per-rank batch TorchRec is told (`batch_size`); the scenario's batch_per_gpu if unset.
  std::optional<double> batch_size;
  // HeuristicalStorageReservation's percentage of HBM kept back (`headroom`, default 0.15).
  double reserved_fraction = 0.15;
  std::vector<ShardingType> sharding_types{std::begin(kAllShardingTypes),
                                           std::end(kAllShardingTypes)};
};

struct TorchrecResult {
  Plan plan;
  // The options of the best proposal, one a table, and where their shards went.
  std::vector<const ShardingOption*> chosen;
  Partition partition;
  double rating_s = 0;            // the best proposal's largest per-rank perf sum
  int proposals = 0;              // distinct proposals evaluated
  int plans = 0;                  // of which the partitioner could place
  Params params;                  // as the planner used them
  double capacity_bytes = 0;      // HBM per rank for shards, after the reservation
  double hbm_capacity_bytes = 0;  // the GPU's, before it
  double reserved_fraction = 0;
  Reservation reserved;  // per rank, beside the percentage
  // `chosen` points into this: every table's enumerated options.
  std::vector<std::vector<ShardingOption>> options;
};

// Raises DoesNotFitError when no proposal fits.
TorchrecResult torchrec_plan_detailed(const PlanningContext& ctx, const TorchrecOptions& o);

}  // namespace shardsim::torchrec
