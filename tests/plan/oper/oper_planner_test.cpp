// The `oper` planner end to end: plan validity and determinism, the extra-memory budget, the
// fetch paths of Algorithm 1 in the plan, options, and the plan's communication scheme.
#include <gtest/gtest.h>

#include <map>

#include "plan/oper/oper_planner.hpp"
#include "plan/oper/partitioning.hpp"
#include "plan/plan_fixture.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/serving.hpp"

namespace shardsim {
namespace {

using testing::model_of;
using testing::PlanFixture;

// 10 power-law tables of 10^2 .. 10^5 rows, dims 8-64, pooling 1-4.
DlrmModel skewed_model() {
  std::vector<testing::TableSpec> specs;
  for (int i = 0; i < 10; ++i) {
    specs.push_back({static_cast<std::uint64_t>(std::pow(10.0, 2 + 0.35 * i)),
                     static_cast<std::uint32_t>(8u << (i % 4)), 1.0 + i % 4, 0.9 + 0.05 * i});
  }
  return model_of(specs);
}

auto key(const Shard& s) {
  return std::make_tuple(s.table, s.rows.begin, s.rows.end, static_cast<int>(s.row_space),
                         s.cols.begin, s.cols.end, s.gpu, s.replica, static_cast<int>(s.kind));
}

TEST(OperPlanner, ValidDeterministicOneSided) {
  for (Mode mode : {Mode::training, Mode::inference}) {
    for (int nodes : {1, 2}) {
      SCOPED_TRACE(to_string(mode) + " nodes " + std::to_string(nodes));
      PlanFixture f(testing::hand_preset(4), nodes, skewed_model(), 256, true);
      f.workload.mode = mode;
      const Plan a = f.valid_plan("oper");
      const Plan b = f.valid_plan("oper");
      EXPECT_EQ(a.planner, "oper");
      EXPECT_EQ(a.lookup_comm, LookupComm::one_sided);
      EXPECT_EQ(a.replica_sync, ReplicaSync::local_aggregated);
      ASSERT_EQ(a.shards.size(), b.shards.size());
      for (std::size_t i = 0; i < a.shards.size(); ++i)
        EXPECT_EQ(key(a.shards[i]), key(b.shards[i]));
      ASSERT_EQ(a.fetch_overrides.size(), b.fetch_overrides.size());
      for (const Shard& s : a.shards) EXPECT_EQ(s.row_space, RowSpace::rank);
      // Hot rows were duplicated (5% extra memory on skewed tables).
      int replicas = 0;
      for (const Shard& s : a.shards) replicas += s.replica > 0;
      EXPECT_GT(replicas, 0);
      check_fits(plan_memory(a, f.cluster, f.model, f.workload), f.cluster);
    }
  }
}

// Σ footprint (weights + optimizer state) per GPU of the partitions it owns and of the copies it
// holds, from the placement (the plan merges a partition copied to every GPU with its
// neighbours, so its shards no longer tell owners from copies). The plan holds the same bytes.
std::pair<std::vector<double>, std::vector<double>> footprints(const PlanFixture& f,
                                                               const oper::OperResult& r) {
  const int n = f.cluster.num_gpus();
  std::vector<double> own(n), copies(n), in_plan(n);
  for (std::size_t p = 0; p < r.partitions.size(); ++p) {
    const oper::Partition& part = r.partitions[p];
    const Shard s{
        part.table, part.ranks, RowSpace::rank,          {0, f.model.tables[part.table].dim},
        0,          0,          ShardKind::fine_grained, {}};
    const double b =
        shard_weight_bytes(s, f.model) + shard_optimizer_bytes(s, f.model, f.workload.mode);
    for (int h : r.placement.holders(p, n)) (h == r.placement.owner[p] ? own : copies)[h] += b;
  }
  for (const Shard& s : r.plan.shards) {
    in_plan[s.gpu] +=
        shard_weight_bytes(s, f.model) + shard_optimizer_bytes(s, f.model, f.workload.mode);
  }
  for (int g = 0; g < n; ++g) EXPECT_NEAR(in_plan[g], own[g] + copies[g], 1e-6 * in_plan[g]);
  return {own, copies};
}

TEST(OperPlanner, ExtraMemoryBudgetRespected) {
  for (Mode mode : {Mode::training, Mode::inference}) {
    PlanFixture f(testing::hand_preset(4), 2, skewed_model(), 256, true);
    f.workload.mode = mode;
    const double total = oper::partition_totals(f.ctx()).bytes;
    const int n = f.cluster.num_gpus();
    double previous_copies = -1;
    for (double ratio : {0.0, 0.01, 0.05, 0.2}) {
      SCOPED_TRACE(to_string(mode) + " ratio " + std::to_string(ratio));
      oper::OperOptions o;
      o.extra_memory_ratio = ratio;
      const oper::OperResult r = oper::oper_plan_detailed(f.ctx(), o);
      validate_plan(r.plan, f.cluster, f.model, "oper");
      const auto [own, copies] = footprints(f, r);
      double all_copies = 0;
      for (int g = 0; g < n; ++g) {
        // A GPU's copies fit in its share of the budget: at most ratio · total / n, and at
        // most (1 + ratio) · total / n minus what it holds as owner.
        EXPECT_LE(copies[g], std::max(0.0, (1 + ratio) * total / n - own[g]) + 1e-6);
        EXPECT_LE(copies[g], ratio * total / n + 1e-6);
        all_copies += copies[g];
      }
      EXPECT_LE(all_copies, ratio * total + 1e-6);
      if (ratio == 0) {
        EXPECT_EQ(all_copies, 0);
      }
      EXPECT_GE(all_copies, previous_copies);  // more budget, no fewer copies
      previous_copies = all_copies;
    }
  }
}

TEST(OperPlanner, PlanServesAlongAlgorithm1sFetchPaths) {
  // Inference on 2 nodes x 4 GPUs: the plan's serving map (its replicas, the default nearest
  // replica rule and its fetch overrides) must send every GPU's lookups of every partition to
  // the GPU Algorithm 1 chose.
  PlanFixture f(testing::hand_preset(4), 2, skewed_model(), 256, true);
  f.workload.mode = Mode::inference;
  oper::OperOptions o;
  o.extra_memory_ratio = 0.2;
  const oper::OperResult r = oper::oper_plan_detailed(f.ctx(), o);
  validate_plan(r.plan, f.cluster, f.model, "oper");
  const ServingMap serving = build_serving_map(r.plan, f.cluster);
  std::map<std::tuple<std::size_t, std::uint64_t, std::uint64_t>, std::size_t> set_of;
  for (std::size_t k = 0; k < serving.sets.size(); ++k) {
    const ReplicaSet& s = serving.sets[k];
    set_of[{s.table, s.rows.begin, s.rows.end}] = k;
  }
  int checked = 0, remote_copies = 0;
  for (std::size_t p = 0; p < r.partitions.size(); ++p) {
    const oper::Partition& part = r.partitions[p];
    const auto it = set_of.find({part.table, part.ranks.begin, part.ranks.end});
    if (it == set_of.end()) continue;  // merged with a neighbour: a single holder, the owner
    for (int g = 0; g < f.cluster.num_gpus(); ++g) {
      const int server = r.plan.shards[serving.server(it->second, g)].gpu;
      EXPECT_EQ(server, r.placement.source(p, g)) << "partition " << p << " gpu " << g;
      ++checked;
      if (server != g && server != r.placement.owner[p]) ++remote_copies;
    }
  }
  EXPECT_GT(checked, 0);
  EXPECT_GT(remote_copies, 0);  // some GPUs fetch from a copy other than the owner
}

TEST(OperPlanner, CommonOptionsAndValidation) {
  PlanFixture f(testing::hand_preset(2), 1, skewed_model(), 64, true);
  EXPECT_EQ(f.plan("oper", {{"communication", "pooled"}}).lookup_comm, LookupComm::pooled);
  EXPECT_EQ(f.plan("oper", {{"replica_sync", "dense"}}).replica_sync, ReplicaSync::dense);
  EXPECT_EQ(f.plan("oper", {{"replica_sync", "allgather"}}).replica_sync, ReplicaSync::allgather);
  // Pooled OPER plans still fit (activation buffers are budgeted).
  const Plan pooled = f.valid_plan("oper", {{"communication", "pooled"}});
  check_fits(plan_memory(pooled, f.cluster, f.model, f.workload), f.cluster);
  // Any planner can be labelled one-sided.
  EXPECT_EQ(f.plan("table_wise", {{"communication", "one_sided"}}).lookup_comm,
            LookupComm::one_sided);
  EXPECT_EQ(f.plan("table_wise").lookup_comm, LookupComm::pooled);
  // Values the schema refuses (the errors a user sees: tests/io/planner_options_reader_test.cpp).
  const std::vector<OptionValues> refused = {
      {{"threshold", 1.5}},         {{"threshold", -0.1}},      {{"extra_memory_ratio", -0.01}},
      {{"extra_memory_ratio", 11}}, {{"balance_target", 1.1}},  {{"mode", "serving"}},
      {{"communication", "shm"}},   {{"replica_sync", "ring"}}, {{"treshold", 0.01}}};
  for (const OptionValues& bad : refused) {
    EXPECT_THROW(f.plan("oper", bad), std::invalid_argument) << bad.front().first;
  }
  EXPECT_THROW(f.plan("oper", {{"threshold", 0}}), InputError);  // only the planner refuses 0
  // mode overrides the workload's: inference on a training workload uses Algorithm 1, whose
  // copies serve single GPUs (not every GPU, as training's duplication does).
  const Plan inf = f.valid_plan("oper", {{"mode", "inference"}, {"extra_memory_ratio", 0.5}});
  EXPECT_EQ(inf.lookup_comm, LookupComm::one_sided);
}

TEST(OperPlanner, SmallerThresholdMorePartitions) {
  PlanFixture f(testing::hand_preset(4), 1, skewed_model(), 256, true);
  oper::OperOptions o;
  o.balance_target = 0;
  o.threshold = 0.05;
  const oper::OperResult coarse = oper::oper_plan_detailed(f.ctx(), o);
  o.threshold = 0.005;
  const oper::OperResult fine = oper::oper_plan_detailed(f.ctx(), o);
  EXPECT_GT(fine.partitions.size(), coarse.partitions.size());
  EXPECT_EQ(coarse.attempts, 1);
  EXPECT_DOUBLE_EQ(coarse.threshold, 0.05);
}

}  // namespace
}  // namespace shardsim
