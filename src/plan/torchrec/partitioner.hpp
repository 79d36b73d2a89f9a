#pragma once
// TorchRec's GreedyPerfPartitioner (partitioners.py at pytorch/torchrec@a48cef79; docs/planners.md,
// "torchrec"): places the shards of one proposal (one sharding option a table) on ranks.
#include <optional>
#include <span>
#include <vector>

#include "plan/torchrec/estimators.hpp"

namespace shardsim::torchrec {

// Where each shard of each option of a proposal went: rank_of[option][shard], empty for a
// uniform option (shard i on rank i); read it through rank().
struct Partition {
  std::vector<std::vector<int>> rank_of;
  int rank(std::size_t option, std::size_t shard) const {
    return rank_of[option].empty() ? static_cast<int>(shard) : rank_of[option][shard];
  }
  std::vector<Perf> perf_by_rank;              // component-wise sums of the shards' perfs
  std::vector<double> hbm_used_by_rank_bytes;  // shard storage on each rank: HBM
  std::vector<double> ddr_used_by_rank_bytes;  // and DDR (host memory)
};

// The proposal's options are placed as TorchRec does, a shard fitting a rank when both its HBM
// and its DDR fit (Storage.fits_in; every rank has `capacity_bytes` of HBM and
// `ddr_capacity_bytes` of DDR, TorchRec's per-rank ddr_cap):
//  1. uniform options (row-wise, data-parallel), in proposal order, shard i on rank i;
//  2. the others sorted by total storage (HBM, then DDR), largest first (stable: ties keep
//     proposal order);
//     a device option's shards each go to the rank of the lowest perf total with room (ties:
//     rank % L, then rank; Params::version v0_3_2: the lowest rank); a host option goes to the
//     first host, in ascending order of its ranks' summed perf, whose free storage holds the
//     option: table-row-wise shard i on the host's i-th rank, table-column-wise shards by the
//     device rule inside the host (a host holds an option when its summed HBM and DDR hold the
//     option's).
// Returns nothing when a shard finds no room (TorchRec's PlannerError). A rank r of
// `held_bytes_by_rank` (empty: none) starts with that much of its HBM taken, as a TorchRec
// Topology whose device r has less storage (the scenario's bottom MLP on one GPU).
std::optional<Partition> greedy_perf_partition(const std::vector<const ShardingOption*>& proposal,
                                               const Params& params, double capacity_bytes,
                                               double ddr_capacity_bytes = 0,
                                               std::span<const double> held_bytes_by_rank = {});

// NoopPerfModel.rate: the largest per-rank sum of shard perf totals (the uniform options' first,
// then the others in proposal order).
double rating_s(const std::vector<const ShardingOption*>& proposal, const Partition& partition,
                int world_size);

}  // namespace shardsim::torchrec
