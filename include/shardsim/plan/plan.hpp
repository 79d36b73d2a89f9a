#pragma once
// A placement: which GPU holds which block of which table, with replicas, fetch sources and
// sparse-parallel groups. General enough for every planner in DESIGN.md (TW, RW, CW, DP, TWRW,
// OPER's fine-grained hybrid, 2D groups).
#include <cstdint>
#include <string>
#include <vector>

#include "shardsim/trace/cache_hit_rate.hpp"
#include "shardsim/trace/row_range.hpp"

namespace shardsim {

// Columns [begin, end) of a table's embedding dimension.
struct ColRange {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  std::uint32_t size() const { return end - begin; }
  bool operator==(const ColRange&) const = default;
};

// How a shard came about; informational (reports, plan statistics), never used for costs.
enum class ShardKind { table_wise, row_wise, column_wise, data_parallel, fine_grained };
std::string to_string(ShardKind k);

// Where a shard's rows and optimizer state live (docs/model.md, "Memory tiers"): FBGEMM's
// embedding locations, TorchRec's compute kernels.
//   hbm          in the GPU's HBM (DEVICE; TorchRec `fused`)
//   uvm          in host memory, read and written over the GPU's host link (MANAGED;
//                `fused_uvm`)
//   uvm_caching  in host memory, with an HBM cache of `cache_fraction` of the shard's rows
//                (MANAGED_CACHING; `fused_uvm_caching`, whose `cache_load_factor` it is);
//                misses are fetched over the host link, evicted rows written back
enum class StorageKind { hbm, uvm, uvm_caching };
std::string to_string(StorageKind k);

// The two enums first: 16 B, so a Shard is 64 B, not 72 (17 M shards of `oper` at 16,384 GPUs).
struct ShardStorage {
  StorageKind kind = StorageKind::hbm;
  CachePolicy policy = CachePolicy::lru;
  double cache_fraction = 0;  // uvm_caching: cached rows / shard rows, in (0, 1)
  bool in_host() const { return kind != StorageKind::hbm; }
  bool operator==(const ShardStorage&) const = default;
};

// One block of one table on one GPU. Blocks with the same (table, rows, cols) are replicas of
// each other, numbered by `replica`.
struct Shard {
  std::size_t table = 0;
  RowRange rows;
  RowSpace row_space = RowSpace::row_id;
  ColRange cols;
  int gpu = 0;
  int replica = 0;
  ShardKind kind = ShardKind::table_wise;
  ShardStorage storage;  // HBM unless a planner or a plan file says otherwise
};
static_assert(sizeof(Shard) <= 64, "a Shard is one cache line: plans hold millions of them");

// A shard holding every row and column of `table` (rows x dim), on GPU 0 until placed.
inline Shard whole_table_shard(std::size_t table, std::uint64_t rows, std::uint32_t dim,
                               ShardKind kind = ShardKind::table_wise) {
  Shard sh;
  sh.table = table;
  sh.rows = {0, rows};
  sh.cols = {0, dim};
  sh.kind = kind;
  return sh;
}

// Which replica of a block serves a GPU's lookups, when not the default rule (a GPU holding a
// replica serves itself; otherwise the replica on the nearest GPU, ties to the lowest replica).
struct FetchOverride {
  std::size_t shard = 0;  // index into Plan::shards of the serving replica
  int requesting_gpu = 0;
};

// How a GPU's lookups reach rows that another GPU holds (docs/model.md, "Embedding
// communication"):
//   pooled     the holder looks its rows up and sends pooled vectors (or partial sums) back in
//              an AlltoAll(v): send-based, as TorchRec and Neo do;
//   one_sided  the requester fetches each row it looks up with a one-sided get and pools it
//              locally (OPER §5, retrieve-based; §8 "Design Choices"); gradients of fetched rows
//              go back to the holder as one-sided puts.
enum class LookupComm { pooled, one_sided };
std::string to_string(LookupComm c);

// How the replicas of a block inside one sparse group synchronise their gradients in training,
// before the update (OPER §5.3, Fig. 9b; replicas in different 2D groups: PeerSync below):
//   dense             ring AllReduce of the whole block's gradient (Patarasuk & Yuan);
//   allgather         every replica sends the gradient rows its lookups touched to every other
//                     (AllGather-based sparse AllReduce, SparCML), reduced locally;
//   local_aggregated  OPER §5.3: the union of the touched rows is agreed on, each replica
//                     aggregates its gradients locally (zero-padded to the union), and the union
//                     is ring-AllReduced as a dense buffer.
enum class ReplicaSync { dense, allgather, local_aggregated };
std::string to_string(ReplicaSync s);
// How the replicas of a block that sit in different sparse-parallel groups (2D) are kept
// consistent: after the embedding update, their weights and optimizer state are averaged by an
// AllReduce across the peers (2D paper Algorithm 1, lines 9-10; cost §5 Eq. 1), every
// `interval` iterations (local updates in between, §5). `dense` syncs every row of the block;
// `touched_rows` only the rows the global batch touched since the last sync (expected distinct
// rows of the access profile). Replicas inside one group (data-parallel tables) are unaffected:
// their gradients are synchronised before the update (ReplicaSync above). docs/planners.md,
// "two_d".
enum class PeerSyncMode { dense, touched_rows };
std::string to_string(PeerSyncMode m);

struct PeerSync {
  PeerSyncMode mode = PeerSyncMode::dense;
  int interval = 1;  // sync after iterations k-1, 2k-1, ... (0-based, warm-up included)
  // Whether iteration `iteration` (0-based, warm-up included) ends with the peer sync.
  bool syncs_after(int iteration) const { return (iteration + 1) % interval == 0; }
  bool operator==(const PeerSync&) const = default;
};

// One count a planner keeps about its own search, for reports: `neuroshard`'s greedy grid searches,
// beam steps and computation-cost cache queries and hits. Deterministic (no wall time).
struct PlannerCount {
  std::string name;  // snake_case, e.g. "cache_hits"
  std::uint64_t value = 0;
  bool operator==(const PlannerCount&) const = default;
};

struct Plan {
  std::string planner;
  LookupComm lookup_comm = LookupComm::pooled;
  ReplicaSync replica_sync = ReplicaSync::dense;
  std::vector<Shard> shards;
  std::vector<FetchOverride> fetch_overrides;
  // Sparse-parallel groups (2D): each group's GPUs; the global batch splits evenly across
  // groups and each group serves only its own members' lookups. Empty = one group of all GPUs.
  std::vector<std::vector<int>> groups;
  // Synchronisation of replicas across groups (meaningful only with two or more groups).
  PeerSync peer_sync;
  // Where the bottom MLP runs. -1 (default): data parallel, every GPU on its own samples.
  // Otherwise this GPU runs it for the global batch and its output travels to each GPU in the
  // pooled AlltoAll, one more vector per sample, as NVIDIA's PyTorch DLRM places it
  // (dlrm/utils/distributed.py: "Bottom MLP running on device 0"); docs/model.md, "One training
  // iteration" ("Bottom MLP on one GPU"). Pooled plans without sparse groups only.
  int bottom_mlp_gpu = -1;
  double planning_time_s = 0;  // wall time the planner took (reported; not deterministic)
  // The planner's own statistics of its plan, as it prints them (`torchrec`: TorchRec's
  // "Planner Statistics"); empty for most planners. Shown by `shardsim plan --stats`; never
  // costed, never written to plan files.
  std::vector<std::string> planner_stats;
  // The same planner's counts of its own search (PlannerCount), in the report's plan statistics
  // (`plan_stats.planner_counts`); empty for most planners; never written to plan files.
  std::vector<PlannerCount> planner_counts;
};

}  // namespace shardsim
