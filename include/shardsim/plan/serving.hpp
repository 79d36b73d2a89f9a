#pragma once
// Who serves whom: for every block of rows of every table, which replica serves each GPU's
// lookups. The rule: a GPU in the same group holding a replica serves itself; otherwise the
// replica in the same group on the nearest GPU (lowest level, then lowest GPU id) serves it;
// FetchOverrides replace the rule for a (block, GPU). Used by the iteration builder and by
// memory accounting, so both agree.
#include <cstdint>
#include <vector>

#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/plan/plan.hpp"

namespace shardsim {

// The shards of one table that cover the same rows and columns (the replicas of one block).
struct ReplicaSet {
  std::size_t table = 0;
  RowRange rows;
  RowSpace row_space = RowSpace::row_id;
  ColRange cols;
  std::vector<std::size_t> shards;  // indices into Plan::shards
};

struct ServingMap {
  std::vector<ReplicaSet> sets;
  // served_by[set][gpu]: index into Plan::shards of the replica serving `gpu`'s lookups. Empty
  // for a set with a single replica (it serves every GPU) and for a set served group by group.
  // 32-bit: one entry per GPU for every replicated set (12,052 sets x 16,384 GPUs in `oper` at
  // 16,384 GPUs, 0.8 GB at 4 B); build_serving_map refuses a plan of 2^32 shards or more.
  std::vector<std::vector<std::uint32_t>> served_by;
  // by_group[set][group]: the replica serving every GPU of `group`, for a set with exactly one
  // replica in each group and no fetch override (2D plans): O(groups) memory instead of O(GPUs),
  // the same answer as the rule above. Empty otherwise.
  std::vector<std::vector<std::size_t>> by_group;
  // group_of[gpu]: the group index of each GPU (0 when the plan has no groups).
  std::vector<int> group_of;
  int num_groups = 1;

  // Table-row-wise blocks, reduced inside their host (TorchRec's TWRW,
  // twrw_sharding.py TwRwPooledEmbeddingDist: an intra-node ReduceScatter of the partial sums,
  // then an AlltoAll between the GPUs of the same local rank across nodes). A family is the
  // row blocks of one table with the same columns, two or more, each served to its group by one
  // replica, whose servers in a group are exactly that group's GPUs on one node, one block
  // each. Their partial sums reach a GPU of that node directly; a GPU on another node gets the
  // host's reduced vector once, from the host's GPU of its own local rank (its relay), which
  // first collects the other blocks' partial sums over the host's fabric. Every other row-split
  // table reduces its partial sums across all the GPUs it serves, as Neo §4's ReduceScatter.
  struct HostSlice {
    int group = 0;
    int node = 0;
    std::vector<int> gpus;   // the group's GPUs on `node`, ascending: local rank = position
    std::uint64_t cols = 0;  // the columns of every family reduced in this slice
  };
  std::vector<HostSlice> host_slices;
  std::vector<char> host_reduced;  // per set: 1 when its transfers go through host_slices
  // local_rank[gpu]: the GPU's position among its group's GPUs on its node.
  std::vector<int> local_rank;
  int gpus_per_node = 1;
  int node_of(int gpu) const { return gpu / gpus_per_node; }

  // One replica serves every GPU.
  bool single_server(std::size_t set) const {
    return served_by[set].empty() && by_group[set].empty();
  }
  std::size_t server(std::size_t set, int gpu) const {
    if (!served_by[set].empty()) return served_by[set][static_cast<std::size_t>(gpu)];
    if (!by_group[set].empty()) {
      return by_group[set][static_cast<std::size_t>(group_of[static_cast<std::size_t>(gpu)])];
    }
    return sets[set].shards.front();
  }
};

ServingMap build_serving_map(const Plan& plan, const Cluster& cluster);

// Per shard: how many GPUs' lookups it serves (whole numbers). O(sets + shards) but for sets
// served GPU by GPU (served_by), O(GPUs) each.
std::vector<double> served_gpu_counts(const Plan& plan, const ServingMap& serving, int num_gpus);

// The pooled-embedding transfers of a pooled (send-based) plan, forward: for every GPU g that a
// replica on another GPU (`owner`) serves, f(owner, g, cols): the embedding columns of the pooled
// vectors owner sends g per sample, summed over the sets. Sets served GPU by GPU (served_by) are
// visited set by set, then GPU by GPU; the sets with one replica, which serves every GPU, and
// those with one replica in each group, which serves its group (by_group), are summed per owner
// first and visited last, owner by owner, so a plan of S such sets costs O(S + owners x GPUs),
// not O(S x GPUs) (issue 21: 52,000 blocks x 4096 GPUs). Columns are integers, so the
// bytes each view accumulates (batch x columns x element bytes, integers) are exact in any
// order. Plan statistics and the iteration's AlltoAlls both sum what this visits, so they agree
// on which pairs exchange pooled vectors; each accumulates its own view (per GPU and level, per
// group, per pair). Backward, gradients go the same pairs in reverse.
//
// Table-row-wise families (ServingMap::host_slices) are visited last, slice by slice: for each
// GPU g of the slice's group on another node, f(relay, g, cols) with relay the slice's GPU of
// g's local rank; and for every ordered pair (s, r) of the slice's GPUs, f(s, r, cols x (1 +
// the remote GPUs whose relay is r)): the partial sums r needs for itself and for those it
// relays. O(slice GPUs^2 + group GPUs) per slice.
//
// for_each_pooled_flow is the same visit for callers that take one-to-many traffic whole
// (cost/spread_traffic.hpp): the summed sets go to `spread(owner, cols, in_group)` once per owner
// (to every other GPU, or to the other GPUs of the owner's group), O(sets + GPUs), instead of
// one `f` per pair.
template <typename F, typename S>
void for_each_pooled_flow(const Plan& plan, const ServingMap& serving, int num_gpus, F&& f,
                          S&& spread) {
  const auto un = static_cast<std::size_t>(num_gpus);
  std::vector<std::uint64_t> to_all_cols(un, 0), to_group_cols(un, 0);
  for (std::size_t k = 0; k < serving.sets.size(); ++k) {
    if (!serving.host_reduced.empty() && serving.host_reduced[k]) continue;
    const std::uint32_t cols = serving.sets[k].cols.size();
    if (serving.single_server(k)) {
      to_all_cols[static_cast<std::size_t>(plan.shards[serving.sets[k].shards.front()].gpu)] +=
          cols;
      continue;
    }
    if (!serving.by_group[k].empty()) {
      // Group G's replica is in G (serving.cpp) and serves G's GPUs.
      for (std::size_t s : serving.by_group[k]) {
        to_group_cols[static_cast<std::size_t>(plan.shards[s].gpu)] += cols;
      }
      continue;
    }
    for (int g = 0; g < num_gpus; ++g) {
      const int owner = plan.shards[serving.server(k, g)].gpu;
      if (owner != g) f(owner, g, static_cast<double>(cols));
    }
  }
  std::vector<std::vector<int>> members(static_cast<std::size_t>(serving.num_groups));
  for (int g = 0; g < num_gpus; ++g) {
    members[static_cast<std::size_t>(serving.group_of[static_cast<std::size_t>(g)])].push_back(g);
  }
  for (int owner = 0; owner < num_gpus; ++owner) {
    const std::uint64_t all = to_all_cols[static_cast<std::size_t>(owner)];
    if (all > 0) spread(owner, static_cast<double>(all), false);
    const std::uint64_t group = to_group_cols[static_cast<std::size_t>(owner)];
    if (group > 0) spread(owner, static_cast<double>(group), true);
  }
  std::vector<std::uint64_t> relayed;
  for (const ServingMap::HostSlice& slice : serving.host_slices) {
    const std::size_t k = slice.gpus.size();
    relayed.assign(k, 0);
    for (int g : members[static_cast<std::size_t>(slice.group)]) {
      if (serving.node_of(g) == slice.node) continue;
      const auto rank =
          static_cast<std::size_t>(serving.local_rank[static_cast<std::size_t>(g)]) % k;
      relayed[rank] += 1;
      f(slice.gpus[rank], g, static_cast<double>(slice.cols));
    }
    for (std::size_t si = 0; si < k; ++si) {
      for (std::size_t ri = 0; ri < k; ++ri) {
        if (si == ri) continue;
        f(slice.gpus[si], slice.gpus[ri], static_cast<double>(slice.cols * (1 + relayed[ri])));
      }
    }
  }
}

// Every pair, one `f(owner, requester, cols)` each (O(owners x GPUs) for the summed sets).
template <typename F>
void for_each_pooled_transfer(const Plan& plan, const ServingMap& serving, int num_gpus, F&& f) {
  std::vector<std::vector<int>> members(static_cast<std::size_t>(serving.num_groups));
  for (int g = 0; g < num_gpus; ++g) {
    members[static_cast<std::size_t>(serving.group_of[static_cast<std::size_t>(g)])].push_back(g);
  }
  const auto spread = [&](int owner, double cols, bool in_group) {
    if (!in_group) {
      for (int g = 0; g < num_gpus; ++g) {
        if (g != owner) f(owner, g, cols);
      }
      return;
    }
    const int grp = serving.group_of[static_cast<std::size_t>(owner)];
    for (int g : members[static_cast<std::size_t>(grp)]) {
      if (g != owner) f(owner, g, cols);
    }
  };
  for_each_pooled_flow(plan, serving, num_gpus, f, spread);
}

// The bottom MLP's output when one GPU runs it (Plan::bottom_mlp_gpu): its last layer's width a
// sample from that GPU to every other, in the pooled AlltoAll (forward; its gradient backward),
// as NVIDIA's PyTorch DLRM sends it (dlrm/model/distributed.py, BottomToTop: "bottom MLP is
// considered as 1 vector"). Visited after for_each_pooled_transfer by the same callers.
template <typename F>
void for_each_bottom_mlp_transfer(const Plan& plan, const DlrmModel& model, int num_gpus, F&& f) {
  const int owner = plan.bottom_mlp_gpu;
  if (owner < 0 || model.bottom_mlp.empty()) return;
  const auto width = static_cast<double>(model.bottom_mlp.back());
  for (int g = 0; g < num_gpus; ++g) {
    if (g != owner) f(owner, g, width);
  }
}

}  // namespace shardsim
