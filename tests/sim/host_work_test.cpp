// What each GPU's host issues per iteration under a plan and a framework (sim/host_work.hpp),
// counted by hand.
#include "sim/host_work.hpp"

#include <gtest/gtest.h>

#include "shardsim/plan/plan_analysis.hpp"
#include "support/hand_model.hpp"
#include "support/hand_preset.hpp"
#include "support/uniform_trace.hpp"

namespace shardsim {
namespace {

constexpr std::uint64_t kRows = 1000;

// 4 GPUs: t0 table-wise on GPU 0, t1 row-wise over all four, t2 data-parallel on all four, t3
// table-wise on GPU 1 in host memory (UVM).
Plan mixed_plan() {
  Plan p;
  p.planner = "hand";
  Shard t0 = whole_table_shard(0, kRows, 16);
  p.shards.push_back(t0);
  for (int g = 0; g < 4; ++g) {
    Shard s = whole_table_shard(1, kRows, 16, ShardKind::row_wise);
    s.rows = {g * kRows / 4, (g + 1) * kRows / 4};
    s.gpu = g;
    p.shards.push_back(s);
  }
  for (int g = 0; g < 4; ++g) {
    Shard s = whole_table_shard(2, kRows, 16, ShardKind::data_parallel);
    s.gpu = g;
    s.replica = g;
    p.shards.push_back(s);
  }
  Shard t3 = whole_table_shard(3, kRows, 16);
  t3.gpu = 1;
  t3.storage.kind = StorageKind::uvm;
  p.shards.push_back(t3);
  return p;
}

struct Case {
  Cluster cluster{testing::hand_preset(4), 1};
  DlrmModel model = testing::hand_model(4, kRows, 16, 2);
  Workload wl;
  testing::UniformTrace trace{{kRows, kRows, kRows, kRows}, {2, 2, 2, 2}};
  Plan plan = mixed_plan();
  CostParams cost = default_cost_params();

  std::vector<HostWork> work() {
    wl.batch_per_gpu = 64;
    const SimulationInputs in{cluster, model, wl, plan, trace, cost};
    return host_work_by_gpu(in, analyze_plan(plan, cluster, model, wl, trace, cost), 1e6);
  }
};

std::vector<int> ops(const std::vector<HostWork>& w) {
  std::vector<int> out;
  for (const HostWork& h : w) out.push_back(h.embedding_ops);
  return out;
}

// TorchRec: one fused kernel per (sharding kind, storage tier) on the GPU; four calls forward
// and one backward per sharding kind with pooled lookups (table-wise and row-wise here: the
// data-parallel table looks up locally), each looping over the three peers; one DDP bucket
// (1 MB of gradients) and the data-parallel table's gradient AllReduce.
TEST(HostWork, TorchRecFusesByShardingKindAndStorageTier) {
  Case c;
  c.cost.host_framework = "torchrec";
  const std::vector<HostWork> w = c.work();
  EXPECT_EQ(ops(w), (std::vector<int>{3, 3, 2, 2}));
  for (const HostWork& h : w) {
    EXPECT_EQ(h.peer_loop_calls, 2 * 5);
    EXPECT_EQ(h.peer_loop_peers, 2 * 5 * 3);
    EXPECT_EQ(h.single_calls, 1 + 1);
  }
}

TEST(HostWork, PyTorchDispatchesOneEmbeddingBagPerShard) {
  Case c;
  c.cost.host_framework = "pytorch";
  const std::vector<HostWork> w = c.work();
  EXPECT_EQ(ops(w), (std::vector<int>{3, 3, 2, 2}));  // shards per GPU
  c.plan.shards.back().gpu = 0;                       // t3 moves to GPU 0
  EXPECT_EQ(ops(c.work()), (std::vector<int>{4, 2, 2, 2}));
  EXPECT_EQ(w[0].peer_loop_calls, 2 * 2);  // one AlltoAll forward, one backward, per kind
}

TEST(HostWork, TensorFlow2DispatchesOneLookupPerTableAndOneAlltoAllEachWay) {
  Case c;
  c.cost.host_framework = "tensorflow2";
  const std::vector<HostWork> w = c.work();
  EXPECT_EQ(ops(w), (std::vector<int>{3, 3, 2, 2}));  // shards per GPU
  EXPECT_EQ(w[0].peer_loop_calls, 2 * 2);             // one hvd.alltoall each way, per kind
  // Only its collectives return to the host (Horovod's done callbacks).
  EXPECT_TRUE(host_framework("tensorflow2").collectives_return_to_host);
  for (const char* name : {"torchrec", "oper", "pytorch"}) {
    EXPECT_FALSE(host_framework(name).collectives_return_to_host) << name;
  }
}

TEST(HostWork, OperIssuesOneKernelAndNoLookupCalls) {
  Case c;
  c.cost.host_framework = "oper";
  for (const HostWork& h : c.work()) {
    EXPECT_EQ(h.embedding_ops, 1);
    EXPECT_EQ(h.peer_loop_calls, 0);
    EXPECT_EQ(h.peer_loop_peers, 0);
  }
}

TEST(HostWork, AutoIsOperForOneSidedPlansAndTorchRecOtherwise) {
  Case c;
  EXPECT_EQ(plan_host_framework(c.plan, c.cost).name, "torchrec");
  c.plan.lookup_comm = LookupComm::one_sided;
  EXPECT_EQ(plan_host_framework(c.plan, c.cost).name, "oper");
  c.cost.host_framework = "pytorch";
  EXPECT_EQ(plan_host_framework(c.plan, c.cost).name, "pytorch");
}

TEST(HostWork, InferenceIssuesTheForwardCallsOnly) {
  Case c;
  c.wl.mode = Mode::inference;
  for (const HostWork& h : c.work()) {
    EXPECT_EQ(h.peer_loop_calls, 2 * 4);
    EXPECT_EQ(h.single_calls, 0);  // no gradients to reduce
    EXPECT_TRUE(h.forward_only);
  }
  c.wl.mode = Mode::training;
  for (const HostWork& h : c.work()) EXPECT_FALSE(h.forward_only);
}

TEST(HostWork, AGpuWithoutShardsDispatchesNoEmbeddingOp) {
  Case c;
  c.plan.shards.resize(1);  // t0 on GPU 0 only
  EXPECT_EQ(ops(c.work()), (std::vector<int>{1, 0, 0, 0}));
}

}  // namespace
}  // namespace shardsim
