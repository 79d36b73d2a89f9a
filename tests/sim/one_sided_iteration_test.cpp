// One-sided plans in the iteration builder (OPER §5): rows fetched with gets inside the lookup
// kernel, no forward AlltoAll, gradients returned with puts, replicas synchronised with the
// plan's variant. Hand-sized: 2 GPUs of the hand preset (100 GB/s NVSwitch, 1 TB/s HBM, no
// launch overheads), one uniform table of 100 rows x 4 fp32 columns, batch 10, pooling 1.
#include <gtest/gtest.h>

#include <cmath>

#include "shardsim/cost/kernel_cost.hpp"
#include "shardsim/cost/one_sided_cost.hpp"
#include "shardsim/plan/one_sided_traffic.hpp"
#include "shardsim/sim/iteration_builder.hpp"
#include "sim/one_sided_iteration.hpp"
#include "support/hand_model.hpp"
#include "support/hand_preset.hpp"
#include "support/uniform_trace.hpp"

namespace shardsim {
namespace {

struct OneSidedCase {
  Cluster cluster{testing::hand_preset(2), 1};
  DlrmModel model = testing::hand_model(1, 100, 4, 1);
  Workload wl;
  testing::UniformTrace trace{{100}, {1}};
  CostParams cost = testing::hand_cost_params();
  Plan plan;
  OneSidedCase(Mode mode) {
    wl.mode = mode;
    wl.batch_per_gpu = 10;
    cost.one_sided_bandwidth_efficiency = 1;
    cost.one_sided_scale_up_overhead_s = 1e-9;
    cost.one_sided_overlap_fraction = 0.5;
    plan.lookup_comm = LookupComm::one_sided;
    plan.shards = {Shard{0, {0, 50}, RowSpace::rank, {0, 4}, 0, 0, ShardKind::fine_grained, {}},
                   Shard{0, {50, 100}, RowSpace::rank, {0, 4}, 1, 0, ShardKind::fine_grained, {}}};
  }
  SimulationInputs in() const { return {cluster, model, wl, plan, trace, cost}; }
};

// Each GPU's 10 lookups: 5 on its own half, 5 on the other's. Distinct rows of a half touched
// by one GPU's 10 lookups: 50 · (1 − 0.99^10).
const double kDistinct = 50 * (1 - std::pow(0.99, 10));

TEST(OneSidedIteration, GetsInsideTheLookupKernelNoAlltoAll) {
  const OneSidedCase s(Mode::inference);
  const IterationBuilder b(s.in());
  // The reported forward matrix: 5 rows of 16 B each way.
  EXPECT_DOUBLE_EQ(b.comm().fwd_matrix.at(0, 1), 80);
  EXPECT_DOUBLE_EQ(b.comm().fwd_matrix.at(1, 0), 80);
  EXPECT_DOUBLE_EQ(b.comm().bwd_matrix.total(), 0);
  TaskGraph graph;
  const IterationTasks it = b.append(graph, 0, nullptr);
  for (const Task& t : graph.tasks) EXPECT_NE(t.phase, Phase::alltoall_fwd);
  // Local work, by the roofline (docs/model.md), f = repeat_lookup_hbm_fraction:
  //   own lookups: 5 · 8 B index + (D + (5 − D)·f) · 16 B rows
  //   pooled outputs of its 10 bags: 10 · 8 B offsets + 10 · 16 B written.
  const double f = s.cost.repeat_lookup_hbm_fraction;
  const double local_bytes = 5 * 8 + (kDistinct + (5 - kDistinct) * f) * 16 + 10 * 8 + 10 * 16;
  const double local_s = local_bytes / 1e12;
  // Gets: 5 rows of 16 B over 100 GB/s + 5 · 1 ns, at both ends: 0.8 ns + 5 ns.
  const double get_s = 5 * 16 / 100e9 + 5e-9;
  const double expected = std::max(local_s, get_s) + 0.5 * std::min(local_s, get_s);
  for (const Task& t : graph.tasks) {
    if (t.phase == Phase::embedding_lookup_fwd) {
      EXPECT_NEAR(t.duration_s, expected, 1e-18);
    }
  }
  // OPER Eq. 2: each GPU's rows serve 5 lookups of each GPU: 10.
  EXPECT_DOUBLE_EQ(it.lookups_by_gpu[0], 10);
  EXPECT_DOUBLE_EQ(it.lookups_by_gpu[1], 10);
}

TEST(OneSidedIteration, TrainingPutsGradientsAndSyncsReplicasSparsely) {
  OneSidedCase s(Mode::training);
  {
    const IterationBuilder b(s.in());
    // Puts: the distinct rows each GPU touched on the other's half, 16 B + 8 B index each.
    EXPECT_NEAR(b.comm().bwd_matrix.at(0, 1), kDistinct * 24, 1e-9);
    TaskGraph graph;
    b.append(graph, 0, nullptr);
    int puts = 0;
    for (const Task& t : graph.tasks) {
      if (t.phase != Phase::alltoall_bwd) continue;
      ++puts;
      EXPECT_NEAR(t.duration_s, kDistinct * 24 / 100e9 + kDistinct * 1e-9, 1e-18);
    }
    EXPECT_EQ(puts, 2);  // one member per GPU
  }
  // Replicate the first half on both GPUs: its gradients are synchronised with the plan's
  // variant; the union of touched rows (both GPUs' 20 lookups) is smaller than the block.
  s.plan.shards.push_back(
      Shard{0, {0, 50}, RowSpace::rank, {0, 4}, 1, 1, ShardKind::fine_grained, {}});
  const double dense = 50 * 16;
  const double touched = kDistinct;  // each replica serves one GPU: its own 10 lookups
  const double uni = 50 * (1 - std::pow(0.99, 20));
  for (ReplicaSync v :
       {ReplicaSync::dense, ReplicaSync::allgather, ReplicaSync::local_aggregated}) {
    SCOPED_TRACE(to_string(v));
    s.plan.replica_sync = v;
    const IterationBuilder b(s.in());
    TaskGraph graph;
    b.append(graph, 0, nullptr);
    double bytes = -1, duration = -1;
    for (const Collective& c : graph.collectives) {
      if (graph.tasks[c.members[0]].phase != Phase::embedding_replica_allreduce) continue;
      bytes = c.bytes;
      duration = c.duration_s;
    }
    // 2 GPUs on 100 GB/s, ideal: AllReduce 2·(1/2)·S/100 GB/s; AllGather (1/2)·S/100 GB/s.
    if (v == ReplicaSync::dense) {
      EXPECT_DOUBLE_EQ(bytes, dense);
      EXPECT_NEAR(duration, dense / 100e9, 1e-18);
    } else if (v == ReplicaSync::allgather) {
      EXPECT_NEAR(bytes, 2 * touched * 24, 1e-9);
      EXPECT_NEAR(duration, 0.5 * 2 * touched * 24 / 100e9, 1e-18);
    } else {
      EXPECT_NEAR(bytes, 2 * touched * 8 + uni * 16, 1e-9);
      EXPECT_NEAR(duration, 0.5 * 2 * touched * 8 / 100e9 + uni * 16 / 100e9, 1e-18);
    }
  }
}

}  // namespace
}  // namespace shardsim
