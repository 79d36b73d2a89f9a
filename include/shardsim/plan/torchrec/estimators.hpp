#pragma once
// TorchRec's sharding planner, re-implemented (docs/planners.md, "torchrec"): its sharding
// options per table and their per-shard perf and storage estimates, as TorchRec's
// EmbeddingEnumerator, EmbeddingPerfEstimator and EmbeddingStorageEstimator compute them.
// Source: pytorch/torchrec at a48cef79ebc333da92af1311c04b041ee21a8e75,
// torchrec/distributed/planner/{constants,enumerators,shard_estimators,types,
// storage_reservations}.py and torchrec/distributed/sharding_plan.py. Our own code; the
// numbers (default bandwidths, multipliers) are TorchRec's published defaults.
//
// What TorchRec estimates is bytes ÷ bandwidth per shard with no skew: every lookup costs the
// same wherever its row lives. Its estimates steer its planner only; shardsim judges its plans
// with the simulator like any other plan.
#include <cstdint>
#include <string>
#include <vector>

#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/plan/plan.hpp"

namespace shardsim::torchrec {

// TorchRec's sharding types, in the order its EmbeddingBagCollectionSharder lists them on CUDA
// (embedding_types.py; grid_shard only under a user constraint, not enumerated here).
enum class ShardingType {
  data_parallel,
  table_wise,
  column_wise,
  table_column_wise,
  row_wise,
  table_row_wise
};
inline constexpr ShardingType kAllShardingTypes[] = {
    ShardingType::data_parallel,     ShardingType::table_wise, ShardingType::column_wise,
    ShardingType::table_column_wise, ShardingType::row_wise,   ShardingType::table_row_wise};
std::string to_string(ShardingType t);
// TorchRec's abbreviations in its stats table: DP, TW, CW, TWCW, RW, TWRW.
std::string abbreviation(ShardingType t);

// How the partitioner places an option's shards (ShardingOption.partition_by): one device per
// shard, all on one host, or one shard on every device.
enum class PartitionBy { device, host, uniform };
PartitionBy partition_by(ShardingType t);

// The estimators' inputs that TorchRec takes from its Topology and planner arguments. Defaults
// are constants.py's (bandwidths there are in bytes/ms as GiB/s · 1024³ / 1000, i.e. GiB/s).
struct Params {
  int world_size = 1;                            // W
  int local_world_size = 1;                      // L: GPUs per host
  double batch_size = 512;                       // BATCH_SIZE, per rank
  double hbm_Bps = 897.0 * 1073741824.0;         // HBM_MEM_BW
  double intra_host_Bps = 600.0 * 1073741824.0;  // INTRA_NODE_BANDWIDTH
  double inter_host_Bps = 12.5 * 1073741824.0;   // CROSS_NODE_BANDWIDTH
  double bwd_compute_multiplier = 2;             // BWD_COMPUTE_MULTIPLIER
  std::uint32_t min_column_shard_dim = 128;      // MIN_CW_DIM
  bool training = true;                          // TorchRec's is_inference = !training
};

// A Perf of TorchRec (types.py): seconds (TorchRec's are milliseconds).
struct Perf {
  double fwd_compute_s = 0;
  double fwd_comms_s = 0;
  double bwd_compute_s = 0;
  double bwd_comms_s = 0;
  // TorchRec's total, summed in its order (fwd compute + bwd compute + fwd comms + bwd comms).
  double total_s() const { return fwd_compute_s + bwd_compute_s + fwd_comms_s + bwd_comms_s; }
  Perf& operator+=(const Perf& o) {
    fwd_compute_s += o.fwd_compute_s;
    fwd_comms_s += o.fwd_comms_s;
    bwd_compute_s += o.bwd_compute_s;
    bwd_comms_s += o.bwd_comms_s;
    return *this;
  }
};

// One shard of an option: its rows and columns (TorchRec's size and offset), estimates, and
// its input and output bytes per iteration (_calculate_shard_io_sizes). A row-wise shard may
// hold no rows (TorchRec keeps it, with its perf; the plan drops it).
struct ShardEstimate {
  RowRange rows;
  ColRange cols;
  Perf perf;
  double hbm_bytes = 0;
  double input_bytes = 0;
  double output_bytes = 0;
};

// One sharding option of one table (a ShardingOption with the fused kernel; DP: dense).
struct ShardingOption {
  std::size_t table = 0;
  ShardingType type = ShardingType::table_wise;
  std::vector<ShardEstimate> shards;
  // Over the shards, set by enumerate_options: the sum of their perf totals, the largest, and
  // their summed and largest HBM.
  double total_perf_s = 0;
  double max_shard_perf_s = 0;
  double total_hbm_bytes = 0;
  double max_shard_hbm_bytes = 0;
  // Runs of consecutive shards of equal HBM, [first, end) by shard index: a uniform option's
  // shard i goes to rank i, so the partitioner adds its storage per run, not per rank (a
  // row-wise option has at most three: full blocks, the remainder, empty ranks). The shards of
  // a uniform option all have the same perf (TorchRec's estimate does not depend on the rows).
  struct HbmRun {
    std::size_t first = 0;
    std::size_t end = 0;
    double bytes = 0;
  };
  std::vector<HbmRun> hbm_runs;
};

// The options of one table, in TorchRec's enumeration order (sharding types as above, one
// compute kernel each: fused, or dense for data_parallel), restricted to `allowed`.
std::vector<ShardingOption> enumerate_options(std::size_t table, const DlrmModel& model,
                                              const Params& params,
                                              const std::vector<ShardingType>& allowed);

// calculate_shard_sizes_and_offsets: the row split of a row-wise table over n ranks
// (ceil(rows / n) rows each, the remainder on the next rank, nothing after: 10 rows over 4 ranks
// = 3, 3, 3, 1), and the column split (blocks of the first multiple of 4 at or above
// min_column_shard_dim that divides dim, else one block).
std::vector<RowRange> row_split(std::uint64_t rows, int n);
std::vector<ColRange> column_split(std::uint32_t dim, std::uint32_t min_column_shard_dim);

// HeuristicalStorageReservation (storage_reservations.py): the HBM every device has left for
// shards after the reserved percentage, the dense parameters (6 × their bytes: weights,
// gradients and optimizer state) and the input features (KJT: 8-byte indices of the pooled
// lookups, 20 copies: two pipelined batches of 10).
double shard_capacity_bytes(double hbm_capacity_bytes, double reserved_fraction,
                            const DlrmModel& model, const Params& params);
// Its two per-rank parts after the percentage: the dense parameters and the KJT.
struct Reservation {
  double dense_bytes = 0;
  double kjt_bytes = 0;
};
Reservation reservation(const DlrmModel& model, const Params& params);

}  // namespace shardsim::torchrec
