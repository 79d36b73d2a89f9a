#pragma once
// `torchrec`: TorchRec's EmbeddingShardingPlanner with its default proposers (grid search,
// two greedy, uniform) and GreedyPerfPartitioner, re-implemented from
// pytorch/torchrec@a48cef79 (torchrec/distributed/planner/; docs/planners.md, "torchrec"). The
// planner steers by TorchRec's own estimates (estimators.hpp), never by the simulator's.
#include <optional>
#include <vector>

#include "plan/torchrec/estimators.hpp"
#include "plan/torchrec/partitioner.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim::torchrec {

// Which compute kernels the planner enumerates besides dense (`host_tables`; docs/planners.md,
// "torchrec"). Without a host block in the preset only `fused` is (no host memory to hold a table).
//   auto    TorchRec's planning with `fused` only (what a user constraining compute_kernels to
//           fused gets); when no proposal fits, again with TorchRec's default CUDA kernels
//           (fused, fused_uvm, fused_uvm_caching). A plan that fits in HBM is the fused-only one.
//   always  TorchRec's default kernels from the start (its default search space).
//   never   `fused` only.
enum class HostTables { automatic, always, never };

struct TorchrecOptions {
  // Bandwidths and multipliers (TorchRec's defaults); world and local sizes, batch and mode are
  // taken from the scenario.
  Params params;
  // Topology.hbm_to_ddr_mem_bw (`hbm_to_ddr_GiBps`); the preset's host.link_GBps if unset (and
  // the preset has a host), else TorchRec's HBM_TO_DDR_MEM_BW (params).
  std::optional<double> hbm_to_ddr_Bps;
  HostTables host_tables = HostTables::automatic;
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
  double ddr_capacity_bytes = 0;  // DDR per rank (ddr_cap): the node's host memory / its GPUs
  // HBM a rank holds before its shards beyond TorchRec's reservation (empty: none): the global
  // batch's bottom MLP where the scenario runs it on one GPU (PlanningContext::bottom_mlp_gpu).
  std::vector<double> held_bytes_by_rank;
  bool uvm_kernels = false;       // whether the UVM kernels were enumerated
  double hbm_capacity_bytes = 0;  // the GPU's, before it
  double reserved_fraction = 0;
  Reservation reserved;  // per rank, beside the percentage
  // `chosen` points into this: every table's enumerated options.
  std::vector<std::vector<ShardingOption>> options;
};

// Raises DoesNotFitError when no proposal fits.
TorchrecResult torchrec_plan_detailed(const PlanningContext& ctx, const TorchrecOptions& o);

}  // namespace shardsim::torchrec
