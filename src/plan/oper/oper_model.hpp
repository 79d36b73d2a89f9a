#pragma once
// OPER's model of a fine-grained placement (OPER §3.2): the per-embedding cost matrix L, the
// partitions OPER places (§4.1), where each partition lives and where each GPU fetches it from
// (the P_k matrices), and Eq. 1-3 evaluated on them. Everything is over partitions (rank ranges
// of a table's access profile), never over single rows. docs/planners.md, "oper".
#include <cstdint>
#include <span>
#include <vector>

#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/hw/level_table.hpp"
#include "shardsim/trace/row_range.hpp"

namespace shardsim::oper {

// OPER §3.2's L: L[i][j] is the cost for GPU i of obtaining one embedding row from GPU j; L[i][i]
// is a local lookup. Derived from the topology and the cost model (cost/one_sided_cost.hpp):
//   L[i][i] = local_row_lookup_s(row_bytes)            (index + row from HBM)
//   L[i][j] = one_sided_row_s(level(i, j), row_bytes)  (a one-sided get)
// The paper's L is per embedding and multiplied by the footprint S_k in Eq. 2-3; here the row's
// size enters L directly, so `row_s(i, j, S)` stands for S_k · L[i][j].
class CostMatrix {
 public:
  CostMatrix(const Cluster& cluster, const CostParams& p);
  int num_gpus() const { return n_; }
  int level(int i, int j) const { return levels_.level(i, j); }
  // Seconds for GPU i to obtain one row of `row_bytes` from GPU j (i == j: a local lookup).
  double row_s(int i, int j, double row_bytes) const;
  // The mean of row_s(i, j, row_bytes) over the ordered pairs i != j (Eq. 4-5's t_P2P), from
  // the pairs at each level: O(levels), not O(GPUs^2). NaN for one GPU.
  double mean_remote_row_s(double row_bytes) const;

 private:
  int n_ = 0;
  LevelTable levels_;  // node by node: O(nodes^2), not O(GPUs^2)
  double hbm_Bps_ = 0;
  double index_bytes_ = 0;
  // Per level >= 1: bandwidth (with efficiency) and per-row overhead, and the ordered GPU pairs
  // at that level.
  std::vector<double> bw_Bps_, overhead_s_, pairs_;
};

// A rank range of one table, the unit OPER places (§4.1).
struct Partition {
  std::size_t table = 0;
  RowRange ranks;        // popularity ranks [begin, end) (RowSpace::rank)
  double access = 0;     // A: expected lookups per GPU per iteration (batch · E[pooling] · mass)
  double bytes = 0;      // S: footprint, weights + optimizer state (Eq. 1)
  double row_bytes = 0;  // one row as fetched: dim × bytes of the table precision
  bool access_bound = false;  // closed by the access threshold rather than the memory one
  // Access per row: the order of OPER's sweep over embeddings sorted by frequency.
  double density() const { return access / static_cast<double>(ranks.size()); }
};

// Where partitions live and who fetches them from where: OPER's P_k, one row of `fetch` per
// partition. fetch[p][i] = j: GPU i fetches partition p from GPU j (j == i: i holds a copy).
// GPU j holds a copy of p when some GPU fetches p from it (Eq. 1's Heaviside term); the owner
// (model parallelism) holds it even when no GPU fetched from it.
struct Placement {
  std::vector<int> owner;               // per partition
  std::vector<std::vector<int>> fetch;  // per partition: per GPU; empty = every GPU -> owner
  // Per partition (or empty: none): copied to every GPU, each GPU serving itself (the training
  // rule's duplicated prefixes, §4.3), kept as a flag rather than fetch's GPUs-long identity
  // (thousands of GPUs x tens of thousands of partitions). fetch[p] is then empty.
  std::vector<bool> everywhere;

  bool on_every_gpu(std::size_t p) const { return !everywhere.empty() && everywhere[p]; }
  int source(std::size_t p, int gpu) const {
    if (on_every_gpu(p)) return gpu;
    return fetch[p].empty() ? owner[p] : fetch[p][gpu];
  }
  // The GPUs holding a copy of p, ascending.
  std::vector<int> holders(std::size_t p, int num_gpus) const;
};

// Eq. 1-3 on a placement.
struct ModelTotals {
  std::vector<double> memory_bytes;  // Eq. 1: M_j = Σ_p S_p · H(Σ_i P_p[i][j])
  std::vector<double> lookup_s;      // Eq. 2: E_j = Σ_p A_p · #{i : P_p[i][j]} · L[j][j]
  // Eq. 3: C[i][j] = Σ_p A_p · P_p[i][j] · L[i][j], row-major n × n; the diagonal is GPU i's
  // local lookups (Algorithm 1's CL[i][i]). The paper prints L[j][j] in Eq. 3; Algorithm 1 and
  // §6.3 (heterogeneous bandwidth) use the pair's L[i][j], as we do.
  std::vector<double> comm_s;
  int n = 0;
  double comm(int i, int j) const { return comm_s[static_cast<std::size_t>(i) * n + j]; }
  // A GPU's communication cost: what it pays fetching from other GPUs, Σ_{j≠i} C[i][j].
  double fetch_s(int i) const;
};

ModelTotals evaluate(std::span<const Partition> partitions, const Placement& placement,
                     const CostMatrix& L);

// min ÷ max of a per-GPU quantity (OPER Table 3's degree of balance); 1 when all are 0.
double degree_of_balance(std::span<const double> values);

}  // namespace shardsim::oper
