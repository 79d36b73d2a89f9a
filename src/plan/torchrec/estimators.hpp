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
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "plan/torchrec/shard_list.hpp"
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

// TorchRec's compute kernels that shardsim models (EmbeddingComputeKernel in embedding_types.py):
// `dense` for data-parallel tables, and for the other sharding types the sharder's CUDA kernels
// (BaseEmbeddingSharder.compute_kernels) that a default enumerator offers: `fused` (the table in
// HBM), `fused_uvm` (in host memory, read over the host link) and `fused_uvm_caching` (in host
// memory behind an HBM cache of `cache_load_factor` of its rows). The key-value and virtual-table
// kernels are GUARDED_COMPUTE_KERNELS (enumerators.py): offered only when a constraint names them.
enum class ComputeKernel { dense, fused, fused_uvm, fused_uvm_caching };
std::string to_string(ComputeKernel k);
// The kernels of a non-data-parallel option, in the sharder's order (TorchRec's enumerator
// intersects Python sets, so its own order is arbitrary).
inline constexpr ComputeKernel kHbmKernels[] = {ComputeKernel::fused};
inline constexpr ComputeKernel kAllKernels[] = {ComputeKernel::fused, ComputeKernel::fused_uvm,
                                                ComputeKernel::fused_uvm_caching};

// How the partitioner places an option's shards (ShardingOption.partition_by): one device per
// shard, all on one host, or one shard on every device.
enum class PartitionBy { device, host, uniform };
PartitionBy partition_by(ShardingType t);

// Which TorchRec the planner follows (`torchrec_version`; docs/planners.md, "torchrec"):
// `current`, the commit above, or the v0.3.2 release (pytorch/torchrec@4957990c, the one built
// against torch 1.13), whose planner differs where Params::version is read: the table-row-wise
// inter-host term, the partitioner's ties, the UVM-caching aux state, the UVM kernels' bandwidth
// (DDR_MEM_BW), the data-parallel input bytes and the column split.
enum class Version { current, v0_3_2 };

// The estimators' inputs that TorchRec takes from its Topology and planner arguments. Defaults
// are constants.py's (bandwidths there are in bytes/ms as GiB/s · 1024³ / 1000, i.e. GiB/s):
// https://github.com/pytorch/torchrec/blob/a48cef79ebc333da92af1311c04b041ee21a8e75/torchrec/distributed/planner/constants.py
struct Params {
  int world_size = 1;                            // W
  int local_world_size = 1;                      // L: GPUs per host
  double batch_size = 512;                       // BATCH_SIZE, per rank
  double hbm_Bps = 897.0 * 1073741824.0;         // HBM_MEM_BW
  double intra_host_Bps = 600.0 * 1073741824.0;  // INTRA_NODE_BANDWIDTH
  double inter_host_Bps = 12.5 * 1073741824.0;   // CROSS_NODE_BANDWIDTH
  // HBM_TO_DDR_MEM_BW (Topology.hbm_to_ddr_mem_bw): the GPU's link to host memory, which prices
  // the UVM kernels. DDR_MEM_BW (Topology.ddr_mem_bw) prices only CPU kernels in
  // kernel_bw_lookup, none of which shardsim enumerates; it is kept for the lookup's signature.
  double hbm_to_ddr_Bps = 32.0 * 1073741824.0;
  double ddr_Bps = 51.0 * 1073741824.0;
  // The UVM-caching kernel's cache_load_factor (the sharder's fused_params, or a table's
  // CacheParams.load_factor): the cached fraction of the table's rows, which sets its kernel
  // bandwidth and its HBM storage. Default UVM_CACHING_RATIO.
  double cache_load_factor = 0.2;
  double bwd_compute_multiplier = 2;         // BWD_COMPUTE_MULTIPLIER
  std::uint32_t min_column_shard_dim = 128;  // MIN_CW_DIM
  bool training = true;                      // TorchRec's is_inference = !training
  Version version = Version::current;
};

// constants.py, kernel_bw_lookup on "cuda" (no prefetch pipeline): dense 0.5 · HBM, fused HBM,
// fused_uvm HBM-to-DDR / 10, fused_uvm_caching (clf · HBM + (1 − clf) · HBM-to-DDR) / 10. In
// v0.3.2 the UVM kernels read at DDR_MEM_BW (ddr_Bps) in place of HBM-to-DDR.
double kernel_Bps(ComputeKernel k, const Params& params);

// A Perf of TorchRec (types.py): seconds (TorchRec's are milliseconds).
struct Perf {
  double fwd_compute_s = 0;
  double fwd_comms_s = 0;
  double bwd_compute_s = 0;
  double bwd_comms_s = 0;
  // Ours, not TorchRec's: the 2D replica sync the shard adds to its rank when it plans inside
  // `two_d` with `sync_aware` (plan/peer_sync_pricing.hpp); 0 everywhere else.
  double replica_sync_s = 0;
  // TorchRec's total, summed in its order (fwd compute + bwd compute + fwd comms + bwd comms),
  // then the replica sync.
  double total_s() const {
    return fwd_compute_s + bwd_compute_s + fwd_comms_s + bwd_comms_s + replica_sync_s;
  }
  bool operator==(const Perf&) const = default;
  Perf& operator+=(const Perf& o) {
    fwd_compute_s += o.fwd_compute_s;
    fwd_comms_s += o.fwd_comms_s;
    bwd_compute_s += o.bwd_compute_s;
    bwd_comms_s += o.bwd_comms_s;
    replica_sync_s += o.replica_sync_s;
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
  double ddr_bytes = 0;  // host memory (the UVM kernels' tables and optimizer state)
  bool operator==(const ShardEstimate&) const = default;
};
using ShardList = RunList<ShardEstimate>;  // plan/torchrec/shard_list.hpp

// One sharding option of one table: a sharding type with one compute kernel (DP: dense).
struct ShardingOption {
  std::size_t table = 0;
  ShardingType type = ShardingType::table_wise;
  ComputeKernel kernel = ComputeKernel::fused;
  ShardList shards;
  // Over the shards, set by enumerate_options: the sum of their perf totals, the largest, and
  // their summed and largest HBM and DDR.
  double total_perf_s = 0;
  double max_shard_perf_s = 0;
  double total_hbm_bytes = 0;
  double max_shard_hbm_bytes = 0;
  double total_ddr_bytes = 0;
  double max_shard_ddr_bytes = 0;
  // Runs of consecutive shards of equal storage (HBM and DDR), [first, end) by shard index: a
  // uniform option's shard i goes to rank i, so the partitioner adds its storage per run, not
  // per rank (a row-wise option has at most three: full blocks, the remainder, empty ranks). The
  // shards of a uniform option all have the same perf (TorchRec's estimate does not depend on
  // the rows).
  struct StorageRun {
    std::size_t first = 0;
    std::size_t end = 0;
    double hbm_bytes = 0;
    double ddr_bytes = 0;
  };
  std::vector<StorageRun> storage_runs;
};

// The options of one table, in TorchRec's enumeration order: sharding types as above,
// restricted to `allowed`, each with the dense kernel (data_parallel) or each of `kernels`, in
// their order (kHbmKernels: fused only; kAllKernels: also the UVM kernels).
std::vector<ShardingOption> enumerate_options(
    std::size_t table, const DlrmModel& model, const Params& params,
    const std::vector<ShardingType>& allowed,
    std::span<const ComputeKernel> kernels = std::span<const ComputeKernel>(kHbmKernels));

// Ours: adds each shard's replica sync, `sync_s(shard)`, to its perf and to the option's perf
// totals (two_d's `sync_aware`). A uniform option (row-wise over every rank) gets its shards'
// mean on each, keeping its shards' perf equal (the partitioner relies on it; the sync then
// adds the same to every rank and moves nothing). Data-parallel options are left alone: their
// replicas synchronise gradients, not peers.
void add_replica_sync(ShardingOption& o, const std::function<double(const ShardEstimate&)>& sync_s);

// calculate_shard_sizes_and_offsets: the row split of a row-wise table over n ranks
// (ceil(rows / n) rows each, the remainder on the next rank, nothing after: 10 rows over 4 ranks
// = 3, 3, 3, 1), and the column split (blocks of the first multiple of 4 at or above
// min_column_shard_dim that divides dim, else one block; v0.3.2: blocks of
// min(min_column_shard_dim, dim), the remainder joining the last: 320 = 128 + 192).
std::vector<RowRange> row_split(std::uint64_t rows, int n);
std::vector<ColRange> column_split(std::uint32_t dim, std::uint32_t min_column_shard_dim,
                                   Version version = Version::current);

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
