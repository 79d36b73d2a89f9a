#pragma once
// Costs of fine-grained, one-sided communication (OPER §5): a GPU fetches each embedding row it
// looks up from the GPU holding it (a one-sided get, NVSHMEM) and pools it locally, overlapping
// the remote gets with its local lookups (§5.2); in training it returns the gradients of those
// rows with one-sided puts. Pure functions, documented in docs/model.md ("One-sided gets").
#include <span>
#include <vector>

#include "shardsim/core/pair_matrix.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"

namespace shardsim {

// The bandwidth one row transfer between two GPUs at `level` (>= 1, Cluster::level_between)
// uses: level 1, the pair's scale-up bandwidth (on a direct NVLink mesh, the GPU's scale-up
// bandwidth split over its g − 1 peers; otherwise the GPU's own scale-up link); level >= 2, the
// GPU's NIC share. Per direction, before efficiency.
double one_sided_pair_Bps(const Cluster& cluster, int level);

// Seconds to move one row of `row_bytes` between two GPUs at `level` >= 1, in a stream of such
// transfers (OPER §3.2's L[i][j], i != j):
//   row_bytes / (one_sided_pair_Bps(level) · one_sided_bandwidth_efficiency) + overhead(level)
// with overhead = one_sided_scale_up_overhead_s at level 1, one_sided_scale_out_overhead_s
// beyond (OPER §6.2: fine-grained inter-node traffic misses peak bandwidth).
double one_sided_row_s(const Cluster& cluster, int level, double row_bytes, const CostParams& p);

// Seconds to look up one row locally (L[i][i]): its index and its bytes read from HBM,
//   (row_bytes + index_bytes_per_lookup) / hbm_achievable.
double local_row_lookup_s(const GpuSpec& gpu, double row_bytes, const CostParams& p);

// Per GPU, the time its one-sided transfers of one phase take. `bytes.at(src, dst)` are the
// bytes moved from src to dst (for gets: holder -> requester; for puts: requester -> holder) and
// `rows.at(src, dst)` the number of row transfers. The diagonal is local and ignored. For GPU g:
//   in_l(g)  = Σ over src at level class l of  bytes/(bw_l · eff) + rows · overhead_l
//   out_l(g) = the same over what g sends
// where the pairs of a class share the GPU's link (a sum), except scale-up pairs of a direct
// NVLink mesh, which have links of their own (the largest pair, and at least the sum of the
// overheads). GPU g's transfers end after
//   max( in_up(g), in_out(g), max over GPUs h sending to g of max(out_up(h), out_out(h)) )
//   + the route latency of the farthest GPU it receives from.
// The result is the time from the start of the phase until each GPU has received everything.
// Both matrices must be num_gpus x num_gpus with entries >= 0 (std::invalid_argument otherwise).
std::vector<double> one_sided_transfer_s(const Cluster& cluster, const PairMatrix& bytes,
                                         const PairMatrix& rows, const CostParams& p);

// OPER §5.2's all-in-one lookup kernel, which overlaps local lookups with remote gets:
//   max(local, remote) + (1 − one_sided_overlap_fraction) · min(local, remote).
double overlapped_lookup_s(double local_s, double remote_s, const CostParams& p);

}  // namespace shardsim
