// What each GPU's host issues per iteration (sim/host_work.hpp).
#include "sim/host_work.hpp"

#include <bit>
#include <cmath>
#include <cstdint>

namespace shardsim {

namespace {

constexpr int kShardKinds = 5;  // ShardKind's values
constexpr int kStorageKinds = 3;

int kind_index(ShardKind k) {
  return static_cast<int>(k);
}

// One bit per (sharding kind, storage tier): TorchRec groups a GPU's tables into one fused
// kernel per sharding type and compute kernel.
std::uint32_t group_bit(const Shard& sh) {
  return 1u << (kind_index(sh.kind) * kStorageKinds + static_cast<int>(sh.storage.kind));
}

int embedding_ops(EmbeddingOpGrouping grouping, int shards, std::uint32_t groups) {
  switch (grouping) {
    case EmbeddingOpGrouping::per_table:
      return shards;
    case EmbeddingOpGrouping::per_group:
      return std::popcount(groups);
    case EmbeddingOpGrouping::one:
      return shards > 0 ? 1 : 0;
  }
  return 0;
}

}  // namespace

const HostFramework& plan_host_framework(const Plan& plan, const CostParams& cost) {
  if (cost.host_framework != "auto") return host_framework(cost.host_framework);
  return host_framework(plan.lookup_comm == LookupComm::one_sided ? "oper" : "torchrec");
}

std::vector<HostWork> host_work_by_gpu(const SimulationInputs& in, const PlanAnalysis& analysis,
                                       double dense_grad_bytes) {
  const int n = in.cluster.num_gpus();
  const bool training = in.workload.mode == Mode::training;
  const HostFramework& fw = plan_host_framework(in.plan, in.cost);
  std::vector<int> shards(n, 0);
  std::vector<std::uint32_t> groups(n, 0);
  std::uint32_t pooled_kinds = 0;  // sharding kinds whose lookups travel in the distributions
  for (const Shard& sh : in.plan.shards) {
    ++shards[sh.gpu];
    groups[sh.gpu] |= group_bit(sh);
    if (sh.kind != ShardKind::data_parallel) pooled_kinds |= 1u << kind_index(sh.kind);
  }
  static_assert(kShardKinds * kStorageKinds <= 32);
  const int calls_per_kind = fw.lookup_calls_forward + (training ? fw.lookup_calls_backward : 0);
  const int lookup_calls = std::popcount(pooled_kinds) * calls_per_kind;
  // The GPUs each GPU's distributions span: its sparse group (all GPUs without groups).
  std::vector<int> group_size(n, n);
  for (const std::vector<int>& g : in.plan.groups) {
    for (int gpu : g) group_size[gpu] = static_cast<int>(g.size());
  }
  int ddp_buckets = 0;
  if (training && n > 1 && dense_grad_bytes > 0) {
    ddp_buckets = static_cast<int>(std::ceil(dense_grad_bytes / in.cost.ddp_bucket_bytes));
  }
  std::vector<HostWork> out(n);
  for (int g = 0; g < n; ++g) {
    HostWork& w = out[g];
    w.forward_only = !training;
    w.embedding_ops = embedding_ops(fw.embedding_ops, shards[g], groups[g]);
    if (group_size[g] > 1) {  // a world of one distributes nothing (TorchRec skips the calls)
      w.peer_loop_calls = lookup_calls;
      w.peer_loop_peers = static_cast<std::int64_t>(lookup_calls) * (group_size[g] - 1);
    }
    w.single_calls = ddp_buckets;
  }
  for (const ReplicaSyncBucket& b : analysis.replica_syncs) {
    for (int g : b.gpus) ++out[g].single_calls;
  }
  if (training) {
    for (const PeerSyncBucket& b : analysis.peer_syncs.peer) {
      for (int g : b.gpus) ++out[g].single_calls;
    }
  }
  return out;
}

}  // namespace shardsim
