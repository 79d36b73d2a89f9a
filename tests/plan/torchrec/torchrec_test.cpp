// The torchrec planner: its estimators against the values TorchRec's own tests expect, its
// shard sizes, its partitioner's rules, and the planner end to end.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "plan/plan_fixture.hpp"
#include "plan/torchrec/four_table_wise_options.hpp"
#include "plan/torchrec/torchrec_planner.hpp"
#include "plan/torchrec/torchrec_stats.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/plan/memory.hpp"

namespace shardsim::torchrec {
namespace {

using test::four_table_wise_options;

using shardsim::testing::hand_preset;
using shardsim::testing::model_of;
using shardsim::testing::PlanFixture;

// TorchRec's estimates are milliseconds; ours seconds.
constexpr double kMs = 1e-3;

void expect_perf(const Perf& p, double fc_ms, double fcomm_ms, double bc_ms, double bcomm_ms) {
  EXPECT_NEAR(p.fwd_compute_s, fc_ms * kMs, 1e-12 * fc_ms * kMs + 1e-20);
  EXPECT_NEAR(p.fwd_comms_s, fcomm_ms * kMs, 1e-12 * fcomm_ms * kMs + 1e-20);
  EXPECT_NEAR(p.bwd_compute_s, bc_ms * kMs, 1e-12 * bc_ms * kMs + 1e-20);
  EXPECT_NEAR(p.bwd_comms_s, bcomm_ms * kMs, 1e-12 * bcomm_ms * kMs + 1e-20);
}

const ShardingOption& option_of(const std::vector<ShardingOption>& options, ShardingType t) {
  for (const ShardingOption& o : options) {
    if (o.type == t) return o;
  }
  throw std::logic_error("no option of that type");
}

// torchrec/distributed/planner/tests/test_shard_estimators.py, test_1_table_perf (at
// pytorch/torchrec@a48cef79): one 100 x 10 fp32 table, pooling factor 1, batch 512, 2 ranks on
// one host, fused kernels (dense for data-parallel).
TEST(TorchrecEstimators, PerfMatchesTorchrecsOwnTestValues) {
  DlrmModel m = model_of({{100, 10, 1.0}});
  m.optimizer = OptimizerKind::sgd;
  Params p;
  p.world_size = 2;
  p.local_world_size = 2;
  p.batch_size = 512;
  const auto options =
      enumerate_options(0, m, p, {std::begin(kAllShardingTypes), std::end(kAllShardingTypes)});
  ASSERT_EQ(options.size(), 6u);  // DP, TW, CW, TWCW, RW, TWRW in TorchRec's order
  EXPECT_EQ(options[0].type, ShardingType::data_parallel);
  EXPECT_EQ(options[5].type, ShardingType::table_row_wise);

  const ShardingOption& dp = option_of(options, ShardingType::data_parallel);
  ASSERT_EQ(dp.shards.size(), 2u);
  expect_perf(dp.shards[0].perf, 9.356002212235228e-05, 0, 0.00018712004424470456,
              0.000225593945387348);
  for (ShardingType t :
       {ShardingType::table_wise, ShardingType::column_wise, ShardingType::table_column_wise}) {
    const ShardingOption& o = option_of(options, t);
    ASSERT_EQ(o.shards.size(), 1u);
    expect_perf(o.shards[0].perf, 0.000327460077428233, 6.357828776041667e-05, 0.000654920154856466,
                6.357828776041667e-05);
  }
  for (ShardingType t : {ShardingType::row_wise, ShardingType::table_row_wise}) {
    const ShardingOption& o = option_of(options, t);
    ASSERT_EQ(o.shards.size(), 2u);
    for (const ShardEstimate& s : o.shards) {
      expect_perf(s.perf, 6.804365245261984e-05, 6.357828776041667e-05, 0.0001360873049052397,
                  0.00016798276699240525);
    }
  }
}

// test_enumerators.py (the same commit): W = 8 ranks, L = 4 a host, batch 256, no optimizer
// state; table 0 is 100 x 20 with min_partition 20.
TEST(TorchrecEstimators, StorageMatchesTorchrecsOwnTestValues) {
  DlrmModel m = model_of({{100, 20, 1.0}});
  m.optimizer = OptimizerKind::sgd;
  Params p;
  p.world_size = 8;
  p.local_world_size = 4;
  p.batch_size = 256;
  p.min_column_shard_dim = 20;
  const auto options =
      enumerate_options(0, m, p, {std::begin(kAllShardingTypes), std::end(kAllShardingTypes)});
  const ShardingOption& rw = option_of(options, ShardingType::row_wise);
  ASSERT_EQ(rw.shards.size(), 8u);
  for (std::size_t s = 0; s < 7; ++s) {
    EXPECT_EQ(rw.shards[s].rows.size(), 13u);
    EXPECT_DOUBLE_EQ(rw.shards[s].hbm_bytes, 166928);  // 1040 tensor + 2048 in + 163840 out
  }
  EXPECT_EQ(rw.shards[7].rows.size(), 9u);
  EXPECT_DOUBLE_EQ(rw.shards[7].hbm_bytes, 166608);
  const ShardingOption& twrw = option_of(options, ShardingType::table_row_wise);
  ASSERT_EQ(twrw.shards.size(), 4u);
  for (const ShardEstimate& s : twrw.shards) EXPECT_DOUBLE_EQ(s.hbm_bytes, 169936);
  const ShardingOption& cw = option_of(options, ShardingType::column_wise);
  ASSERT_EQ(cw.shards.size(), 1u);  // 20 columns: one block of 20
  EXPECT_DOUBLE_EQ(cw.shards[0].hbm_bytes, 188224);
}

// test_1_table_perf's UVM kernels (the same test): default Topology, so HBM_TO_DDR_MEM_BW
// 32 GiB/s and the caching ratio UVM_CACHING_RATIO 0.2; each non-DP type with the fused,
// fused_uvm and fused_uvm_caching kernels.
TEST(TorchrecEstimators, UvmKernelPerfMatchesTorchrecsOwnTestValues) {
  DlrmModel m = model_of({{100, 10, 1.0}});
  m.optimizer = OptimizerKind::sgd;
  Params p;
  p.world_size = 2;
  p.local_world_size = 2;
  p.batch_size = 512;
  const auto options = enumerate_options(
      0, m, p, {std::begin(kAllShardingTypes), std::end(kAllShardingTypes)}, kAllKernels);
  ASSERT_EQ(options.size(), 16u);  // DP (dense), then 5 types x 3 kernels
  EXPECT_EQ(options[0].kernel, ComputeKernel::dense);
  EXPECT_EQ(options[1].kernel, ComputeKernel::fused);
  EXPECT_EQ(options[2].kernel, ComputeKernel::fused_uvm);
  EXPECT_EQ(options[3].kernel, ComputeKernel::fused_uvm_caching);
  const auto of = [&](ShardingType t, ComputeKernel k) -> const ShardingOption& {
    for (const ShardingOption& o : options) {
      if (o.type == t && o.kernel == k) return o;
    }
    throw std::logic_error("no such option");
  };
  for (ShardingType t :
       {ShardingType::table_wise, ShardingType::column_wise, ShardingType::table_column_wise}) {
    expect_perf(of(t, ComputeKernel::fused_uvm).shards[0].perf, 0.09179115295410156,
                6.357828776041667e-05, 0.18358230590820312, 6.357828776041667e-05);
    expect_perf(of(t, ComputeKernel::fused_uvm_caching).shards[0].perf, 0.01432837509527439,
                6.357828776041667e-05, 0.02865675019054878, 6.357828776041667e-05);
  }
  for (ShardingType t : {ShardingType::row_wise, ShardingType::table_row_wise}) {
    for (const ShardEstimate& s : of(t, ComputeKernel::fused_uvm).shards) {
      expect_perf(s.perf, 0.019073486328125, 6.357828776041667e-05, 0.03814697265625,
                  0.029329458872477215);
    }
    for (const ShardEstimate& s : of(t, ComputeKernel::fused_uvm_caching).shards) {
      expect_perf(s.perf, 0.0029773246951219513, 6.357828776041667e-05, 0.0059546493902439025,
                  0.004631910866838161);
    }
  }
  // kernel_bw_lookup: fused_uvm HBM-to-DDR / 10; caching (0.2 HBM + 0.8 HBM-to-DDR) / 10.
  EXPECT_DOUBLE_EQ(kernel_Bps(ComputeKernel::fused_uvm, p), 3.2 * 1073741824.0);
  EXPECT_DOUBLE_EQ(kernel_Bps(ComputeKernel::fused_uvm_caching, p),
                   (0.2 * 897 + 0.8 * 32) / 10 * 1073741824.0);
  EXPECT_DOUBLE_EQ(kernel_Bps(ComputeKernel::dense, p), 0.5 * 897 * 1073741824.0);
}

// test_enumerators.py, test_uvm_caching_rw_sharding (EXPECTED_UVM_CACHING_RW_SHARD_STORAGE):
// table 0 (100 x 20, no optimizer state) row-wise over 8 ranks with fused_uvm_caching: HBM =
// the cached tensor + inputs and outputs + the cache's aux state ceil(rows · (4 + 0.2 · 16)),
// DDR = the whole shard.
TEST(TorchrecEstimators, UvmCachingStorageMatchesTorchrecsOwnTestValues) {
  DlrmModel m = model_of({{100, 20, 1.0}});
  m.optimizer = OptimizerKind::sgd;
  Params p;
  p.world_size = 8;
  p.local_world_size = 4;
  p.batch_size = 256;
  p.min_column_shard_dim = 20;
  const ComputeKernel caching[] = {ComputeKernel::fused_uvm_caching};
  const auto options = enumerate_options(0, m, p, {ShardingType::row_wise}, caching);
  ASSERT_EQ(options.size(), 1u);
  const ShardingOption& rw = options[0];
  EXPECT_EQ(rw.kernel, ComputeKernel::fused_uvm_caching);
  ASSERT_EQ(rw.shards.size(), 8u);
  const auto aux = [](double rows) { return std::ceil(rows * (4 + 0.2 * 16)); };
  for (std::size_t s = 0; s < 7; ++s) {
    EXPECT_DOUBLE_EQ(rw.shards[s].hbm_bytes, 166096 + aux(13));
    EXPECT_DOUBLE_EQ(rw.shards[s].ddr_bytes, 1040);
  }
  EXPECT_DOUBLE_EQ(rw.shards[7].hbm_bytes, 166032 + aux(9));
  EXPECT_DOUBLE_EQ(rw.shards[7].ddr_bytes, 720);
  EXPECT_DOUBLE_EQ(rw.total_ddr_bytes, 8000);
  EXPECT_DOUBLE_EQ(rw.max_shard_ddr_bytes, 1040);
  ASSERT_EQ(rw.storage_runs.size(), 2u);  // 7 equal shards, then the last
  EXPECT_EQ(rw.storage_runs[0].end, 7u);
  EXPECT_DOUBLE_EQ(rw.storage_runs[1].ddr_bytes, 720);
}

// calculate_shard_storages by hand for one 1000 x 64 fp32 table-wise shard with row-wise
// AdaGrad (multiplier 1/64) and no inputs or outputs (batch 0): table T = 256,000 B.
TEST(TorchrecEstimators, UvmStorageFollowsTorchrecsFormulaByHand) {
  DlrmModel m = model_of({{1000, 64, 1.0}});
  m.optimizer = OptimizerKind::rowwise_adagrad;
  Params p;
  p.batch_size = 0;
  const auto option = [&](ComputeKernel k) {
    const ComputeKernel ks[] = {k};
    return enumerate_options(0, m, p, {ShardingType::table_wise}, ks).at(0).shards.at(0);
  };
  // fused_uvm_caching, clf 0.2: HBM round(0.2 T) = 51,200 + its state ceil(51,200 / 64) = 800 +
  // aux ceil(1000 · 7.2) = 7,200; DDR T + ceil(T / 64) = 260,000.
  const ShardEstimate cached = option(ComputeKernel::fused_uvm_caching);
  EXPECT_DOUBLE_EQ(cached.hbm_bytes, 51200 + 800 + 7200);
  EXPECT_DOUBLE_EQ(cached.ddr_bytes, 256000 + 4000);
  // fused_uvm: nothing in HBM (but inputs and outputs), the table and its state in DDR.
  const ShardEstimate uvm = option(ComputeKernel::fused_uvm);
  EXPECT_DOUBLE_EQ(uvm.hbm_bytes, 0);
  EXPECT_DOUBLE_EQ(uvm.ddr_bytes, 260000);
  // fused: all in HBM, no DDR.
  EXPECT_DOUBLE_EQ(option(ComputeKernel::fused).hbm_bytes, 260000);
  EXPECT_DOUBLE_EQ(option(ComputeKernel::fused).ddr_bytes, 0);
  // cache_load_factor 0.5: round(0.5 T) = 128,000, its state 2,000, aux 1000 · 12.
  p.cache_load_factor = 0.5;
  EXPECT_DOUBLE_EQ(option(ComputeKernel::fused_uvm_caching).hbm_bytes, 128000 + 2000 + 12000);
  // Inference: the tensors only (_calculate_storage_specific_sizes, io cost 0).
  p.training = false;
  EXPECT_DOUBLE_EQ(option(ComputeKernel::fused_uvm_caching).hbm_bytes, 128000);
  EXPECT_DOUBLE_EQ(option(ComputeKernel::fused_uvm_caching).ddr_bytes, 256000);
}

TEST(TorchrecEstimators, RowAndColumnSplitsFollowShardingPlanPy) {
  auto sizes = [](const std::vector<RowRange>& r) {
    std::vector<std::uint64_t> out;
    for (const RowRange& x : r) out.push_back(x.size());
    return out;
  };
  EXPECT_EQ(sizes(row_split(10, 4)), (std::vector<std::uint64_t>{3, 3, 3, 1}));
  EXPECT_EQ(sizes(row_split(5, 4)), (std::vector<std::uint64_t>{2, 2, 1, 0}));
  EXPECT_EQ(sizes(row_split(100, 8)), (std::vector<std::uint64_t>{13, 13, 13, 13, 13, 13, 13, 9}));
  EXPECT_EQ(column_split(128, 128).size(), 1u);
  EXPECT_EQ(column_split(256, 128).size(), 2u);
  EXPECT_EQ(column_split(384, 128).size(), 3u);
  EXPECT_EQ(column_split(192, 128).size(), 1u);  // no multiple of 4 in [128, 192) divides 192
  EXPECT_EQ(column_split(60, 20).size(), 3u);
}

TEST(TorchrecEstimators, OptimizerStateFollowsTorchrecsMultipliers) {
  Params p;
  p.world_size = 1;
  p.local_world_size = 1;
  p.batch_size = 0;  // no input or output storage
  DlrmModel m = model_of({{1000, 64, 1.0}});
  const auto hbm = [&](OptimizerKind k) {
    m.optimizer = k;
    return enumerate_options(0, m, p, {ShardingType::table_wise})[0].shards[0].hbm_bytes;
  };
  const double weights = 1000.0 * 64 * 4;
  EXPECT_DOUBLE_EQ(hbm(OptimizerKind::sgd), weights);
  EXPECT_DOUBLE_EQ(hbm(OptimizerKind::rowwise_adagrad), weights + 1000 * 4);  // 1 / dim
  EXPECT_DOUBLE_EQ(hbm(OptimizerKind::adagrad), 2 * weights);
}

TEST(TorchrecPartitioner, TiesSpreadAcrossHostsFirstAndStorageOrdersThePlacement) {
  Params p;
  p.world_size = 4;
  p.local_world_size = 2;
  const std::vector<ShardingOption> opts = four_table_wise_options();
  std::vector<const ShardingOption*> proposal = {&opts[0], &opts[1], &opts[2], &opts[3]};
  const auto part = greedy_perf_partition(proposal, p, 100);
  ASSERT_TRUE(part.has_value());
  // Largest first (table 3), then proposal order; ties by (rank % L, rank): 0, 2, 1, 3.
  EXPECT_EQ(part->rank_of[3], std::vector<int>{0});
  EXPECT_EQ(part->rank_of[0], std::vector<int>{2});
  EXPECT_EQ(part->rank_of[1], std::vector<int>{1});
  EXPECT_EQ(part->rank_of[2], std::vector<int>{3});
  EXPECT_DOUBLE_EQ(rating_s(proposal, *part, 4), 1);
  // No room for the largest: no partition.
  EXPECT_FALSE(greedy_perf_partition(proposal, p, 15).has_value());
}

TEST(TorchrecPartitioner, HeldBytesShrinkARanksStorage) {
  // As a Topology whose device 0 has 85 of 100 bytes left (the scenario's bottom MLP there):
  // the largest table (20) no longer fits rank 0 and takes rank 2, the next tie by (rank % L,
  // rank); the others follow by perf.
  Params p;
  p.world_size = 4;
  p.local_world_size = 2;
  const std::vector<ShardingOption> opts = four_table_wise_options();
  std::vector<const ShardingOption*> proposal = {&opts[0], &opts[1], &opts[2], &opts[3]};
  const std::vector<double> held{85, 0, 0, 0};
  const auto part = greedy_perf_partition(proposal, p, 100, 0, held);
  ASSERT_TRUE(part.has_value());
  EXPECT_EQ(part->rank_of[3], std::vector<int>{2});
  EXPECT_EQ(part->rank_of[0], std::vector<int>{0});  // 10 of rank 0's 15 left
  // Shard storage only: what a rank held before is not counted as used by shards.
  EXPECT_DOUBLE_EQ(part->hbm_used_by_rank_bytes[0], 10);
  // 91 held: not even a 10-byte table fits rank 0, and the four go to the three others.
  const auto tight = greedy_perf_partition(proposal, p, 100, 0, std::vector<double>{91, 0, 0, 0});
  ASSERT_TRUE(tight.has_value());
  for (const auto& ranks : tight->rank_of) EXPECT_NE(ranks, std::vector<int>{0});
}

TEST(TorchrecPartitioner, UniformOptionsTakeRankIAndTheirStorageAddsUpPerRank) {
  Params p;
  p.world_size = 4;
  p.local_world_size = 2;
  const auto uniform = [](ShardingType type, std::vector<double> hbm) {
    ShardingOption o;
    o.type = type;
    for (std::size_t i = 0; i < hbm.size(); ++i) {
      ShardEstimate s;
      s.perf.fwd_compute_s = 2;
      s.hbm_bytes = hbm[i];
      o.shards.push_back(s);
      o.total_hbm_bytes += hbm[i];
      if (!o.storage_runs.empty() && o.storage_runs.back().hbm_bytes == hbm[i]) {
        o.storage_runs.back().end = i + 1;
      } else {
        o.storage_runs.push_back({i, i + 1, hbm[i], 0});
      }
    }
    return o;
  };
  const ShardingOption rw = uniform(ShardingType::row_wise, {30, 30, 10, 0});
  const ShardingOption dp = uniform(ShardingType::data_parallel, {6, 6, 6, 6});
  const auto part = greedy_perf_partition({&rw}, p, 35);
  ASSERT_TRUE(part.has_value());
  for (std::size_t s = 0; s < 4; ++s) EXPECT_EQ(part->rank(0, s), static_cast<int>(s));
  EXPECT_EQ(part->hbm_used_by_rank_bytes, (std::vector<double>{30, 30, 10, 0}));
  EXPECT_DOUBLE_EQ(part->perf_by_rank[3].fwd_compute_s, 2);  // an empty rank keeps its perf
  EXPECT_DOUBLE_EQ(rating_s({&rw, &dp}, *greedy_perf_partition({&rw, &dp}, p, 36), 4), 4);
  // 30 + 6 on ranks 0 and 1: over 35.
  EXPECT_FALSE(greedy_perf_partition({&rw, &dp}, p, 35).has_value());
}

TEST(TorchrecPartitioner, HostOptionsGoToTheLeastLoadedHostThatHoldsThem) {
  Params p;
  p.world_size = 4;
  p.local_world_size = 2;
  ShardingOption tw;
  tw.table = 0;
  tw.type = ShardingType::table_wise;
  ShardEstimate big;
  big.perf.fwd_compute_s = 5;
  big.hbm_bytes = 50;
  tw.shards = {big};
  tw.total_hbm_bytes = 50;
  ShardingOption twrw;
  twrw.table = 1;
  twrw.type = ShardingType::table_row_wise;
  ShardEstimate half;
  half.perf.fwd_compute_s = 1;
  half.hbm_bytes = 10;
  twrw.shards = {half, half};
  twrw.total_hbm_bytes = 20;
  const std::vector<const ShardingOption*> proposal = {&tw, &twrw};
  const auto part = greedy_perf_partition(proposal, p, 100);
  ASSERT_TRUE(part.has_value());
  EXPECT_EQ(part->rank_of[0], std::vector<int>{0});       // host 0
  EXPECT_EQ(part->rank_of[1], (std::vector<int>{2, 3}));  // host 1: less perf
}

TEST(TorchrecPartitioner, ShardsNeedRoomInDdrTooAndStorageSortsByHbmThenDdr) {
  Params p;
  p.world_size = 2;
  p.local_world_size = 2;
  const auto tw = [](std::size_t table, double hbm, double ddr, double perf_s) {
    ShardingOption o;
    o.table = table;
    o.type = ShardingType::table_wise;
    ShardEstimate s;
    s.perf.fwd_compute_s = perf_s;
    s.hbm_bytes = hbm;
    s.ddr_bytes = ddr;
    o.shards = {s};
    o.total_hbm_bytes = hbm;
    o.total_ddr_bytes = ddr;
    return o;
  };
  // Placed largest HBM first: c on rank 0; a on rank 1 (less perf); b would go to rank 1 too
  // (perf 1 < 10) but its DDR does not fit beside a's: rank 0.
  const ShardingOption c = tw(0, 20, 0, 10);
  const ShardingOption a = tw(1, 10, 60, 1);
  const ShardingOption b = tw(2, 5, 60, 1);
  const auto part = greedy_perf_partition({&b, &a, &c}, p, 100, 100);
  ASSERT_TRUE(part.has_value());
  EXPECT_EQ(part->rank_of[2], std::vector<int>{0});
  EXPECT_EQ(part->rank_of[1], std::vector<int>{1});
  EXPECT_EQ(part->rank_of[0], std::vector<int>{0});
  EXPECT_EQ(part->ddr_used_by_rank_bytes, (std::vector<double>{60, 60}));
  EXPECT_EQ(part->hbm_used_by_rank_bytes, (std::vector<double>{25, 10}));
  // No DDR at all: the DDR options do not fit.
  EXPECT_FALSE(greedy_perf_partition({&b, &a, &c}, p, 100).has_value());
  // Equal HBM: the larger DDR first (Storage compares as (hbm, ddr)), so it takes rank 0.
  const ShardingOption small = tw(0, 10, 1, 1);
  const ShardingOption large = tw(1, 10, 2, 1);
  const auto tie = greedy_perf_partition({&small, &large}, p, 100, 100);
  ASSERT_TRUE(tie.has_value());
  EXPECT_EQ(tie->rank_of[1], std::vector<int>{0});
  EXPECT_EQ(tie->rank_of[0], std::vector<int>{1});
}

DlrmModel mixed_model() {
  return model_of({{200000, 64, 8.0},
                   {50, 16, 1.0},
                   {3000000, 128, 20.0},
                   {1000, 32, 2.0},
                   {800000, 64, 4.0},
                   {100000, 128, 1.0}});
}

TEST(TorchrecPlanner, PlacesEveryTableDeterministically) {
  PlanFixture f(hand_preset(4), 2, mixed_model(), 256);
  const Plan a = f.valid_plan("torchrec");
  const Plan b = f.valid_plan("torchrec");
  ASSERT_EQ(a.shards.size(), b.shards.size());
  std::set<std::size_t> tables;
  for (std::size_t i = 0; i < a.shards.size(); ++i) {
    EXPECT_EQ(a.shards[i].gpu, b.shards[i].gpu);
    EXPECT_EQ(a.shards[i].rows, b.shards[i].rows);
    tables.insert(a.shards[i].table);
  }
  EXPECT_EQ(tables.size(), 6u);
  EXPECT_EQ(a.planner, "torchrec");
}

TEST(TorchrecPlanner, ItsChoiceHasTheLowestRatingOfTheProposalsAndRespectsItsCapacity) {
  PlanFixture f(hand_preset(4), 2, mixed_model(), 256);
  const TorchrecResult r = torchrec_plan_detailed(f.ctx(), TorchrecOptions{});
  EXPECT_GT(r.proposals, 1);
  EXPECT_GE(r.proposals, r.plans);
  ASSERT_EQ(r.chosen.size(), 6u);
  for (double used : r.partition.hbm_used_by_rank_bytes) EXPECT_LE(used, r.capacity_bytes);
  // Every table's options alone in the uniform proposals: the chosen plan rates no worse.
  for (ShardingType t : kAllShardingTypes) {
    TorchrecOptions only;
    only.sharding_types = {t};
    const TorchrecResult u = torchrec_plan_detailed(f.ctx(), only);
    EXPECT_LE(r.rating_s, u.rating_s) << to_string(t);
  }
}

TEST(TorchrecPlanner, ShardingTypesRestrictTheOptions) {
  PlanFixture f(hand_preset(4), 2, mixed_model(), 256);
  const Plan p = f.valid_plan("torchrec", {{"sharding_types", OptionList{"table_wise"}}});
  EXPECT_EQ(p.shards.size(), 6u);
  for (const Shard& s : p.shards) EXPECT_EQ(s.kind, ShardKind::table_wise);
  const Plan rw = f.valid_plan("torchrec", {{"sharding_types", OptionList{"row_wise"}}});
  for (const Shard& s : rw.shards) EXPECT_NE(s.kind, ShardKind::column_wise);
}

TEST(TorchrecPlanner, BadOptionsAndNoRoomGetClearErrors) {
  PlanFixture f(hand_preset(4), 2, mixed_model(), 256);
  // The schema's checks (the errors a user sees: tests/io/planner_options_reader_test.cpp).
  EXPECT_THROW(f.plan("torchrec", {{"sharding_types", OptionList{"tablewise"}}}),
               std::invalid_argument);
  EXPECT_THROW(f.plan("torchrec", {{"sharding_types", OptionList{}}}), std::invalid_argument);
  EXPECT_THROW(f.plan("torchrec", {{"batch_size", 0}}), std::invalid_argument);
  EXPECT_THROW(f.plan("torchrec", {{"hbm_GiBps", -1}}), std::invalid_argument);
  // A table larger than every GPU, allowed only whole: no proposal fits.
  PlanFixture big(hand_preset(4), 1, model_of({{20000000000ULL / 64, 64, 1.0}}), 256);
  EXPECT_THROW(big.plan("torchrec", {{"sharding_types", OptionList{"table_wise"}}}),
               DoesNotFitError);
  EXPECT_NO_THROW(big.valid_plan("torchrec", {{"sharding_types", OptionList{"row_wise"}}}));
}

// The hand preset with a host: 1 TB of host memory per node, a 25 GB/s link per GPU.
HardwarePreset host_preset(int gpus_per_node) {
  HardwarePreset p = hand_preset(gpus_per_node);
  p.host.memory_bytes_per_node = 1e12;
  p.host.link = LinkSpec{25e9, 2e-6};
  return p;
}

// Eight tables of 50M x 128 fp32 (25.6 GB each, 205 GB) on 4 GPUs of 40 GB: not in HBM.
DlrmModel too_big_model() {
  std::vector<shardsim::testing::TableSpec> specs;
  for (int i = 0; i < 8; ++i) specs.push_back({50000000, 128, 4.0 + i});
  DlrmModel m = model_of(specs);
  m.optimizer = OptimizerKind::rowwise_adagrad;
  return m;
}

TEST(TorchrecPlanner, AModelTooBigForHbmGetsUvmCachingShardsAndFits) {
  PlanFixture f(host_preset(4), 1, too_big_model(), 256);
  const TorchrecResult r = torchrec_plan_detailed(f.ctx(), TorchrecOptions{});
  EXPECT_TRUE(r.uvm_kernels);
  // ddr_cap per rank: the node's host memory over its 4 GPUs.
  EXPECT_DOUBLE_EQ(r.ddr_capacity_bytes, 0.25e12);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_LE(r.partition.hbm_used_by_rank_bytes[i], r.capacity_bytes);
    EXPECT_LE(r.partition.ddr_used_by_rank_bytes[i], r.ddr_capacity_bytes);
  }
  // hbm_to_ddr_mem_bw is the preset's host link.
  EXPECT_DOUBLE_EQ(r.params.hbm_to_ddr_Bps, 25e9);
  std::size_t cached = 0;
  for (const Shard& s : r.plan.shards) {
    if (s.storage.kind != StorageKind::uvm_caching) continue;
    ++cached;
    EXPECT_DOUBLE_EQ(s.storage.cache_fraction, 0.2);  // UVM_CACHING_RATIO
    EXPECT_EQ(s.storage.policy, CachePolicy::lru);
  }
  EXPECT_GT(cached, 0u);
  // The options behind those shards are fused_uvm_caching ones.
  bool caching_option = false;
  for (const ShardingOption* o : r.chosen) {
    caching_option = caching_option || o->kernel == ComputeKernel::fused_uvm_caching;
  }
  EXPECT_TRUE(caching_option);
  // The simulator's own memory model agrees: every GPU within its HBM, the node within its host
  // memory, and some tables there.
  const Plan plan = f.valid_plan("torchrec");
  const auto memory = plan_memory(plan, f.cluster, f.model, f.workload);
  EXPECT_NO_THROW(check_fits(memory, f.cluster));
  double host = 0;
  for (const GpuMemory& g : memory) host += g.host_bytes;
  EXPECT_GT(host, 205e9 - 4 * 40e9);
  // A cache_load_factor of 0.3 reaches the plan's shards.
  const Plan p3 = f.valid_plan("torchrec", {{"cache_load_factor", 0.3}});
  for (const Shard& s : p3.shards) {
    if (s.storage.kind == StorageKind::uvm_caching) {
      EXPECT_DOUBLE_EQ(s.storage.cache_fraction, 0.3);
    }
  }
}

TEST(TorchrecPlanner, WithoutHostMemoryOrWithHostTablesNeverTheModelDoesNotFit) {
  PlanFixture no_host(hand_preset(4), 1, too_big_model(), 256);
  EXPECT_THROW(no_host.plan("torchrec"), DoesNotFitError);
  PlanFixture f(host_preset(4), 1, too_big_model(), 256);
  EXPECT_THROW(f.plan("torchrec", {{"host_tables", "never"}}), DoesNotFitError);
  EXPECT_NO_THROW(f.valid_plan("torchrec", {{"host_tables", "always"}}));
  EXPECT_THROW(f.plan("torchrec", {{"host_tables", "sometimes"}}), std::invalid_argument);
  EXPECT_THROW(f.plan("torchrec", {{"cache_load_factor", 1.5}}), std::invalid_argument);
  EXPECT_THROW(f.plan("torchrec", {{"hbm_to_ddr_GiBps", 0}}), std::invalid_argument);
}

TEST(TorchrecPlanner, WhenEverythingFitsHbmThePlanIsUnchangedByAHost) {
  PlanFixture without(hand_preset(4), 2, mixed_model(), 256);
  PlanFixture with(host_preset(4), 2, mixed_model(), 256);
  const TorchrecResult a = torchrec_plan_detailed(without.ctx(), TorchrecOptions{});
  const TorchrecResult b = torchrec_plan_detailed(with.ctx(), TorchrecOptions{});
  EXPECT_FALSE(b.uvm_kernels);
  EXPECT_EQ(a.proposals, b.proposals);
  EXPECT_EQ(a.rating_s, b.rating_s);
  ASSERT_EQ(a.plan.shards.size(), b.plan.shards.size());
  for (std::size_t i = 0; i < a.plan.shards.size(); ++i) {
    EXPECT_EQ(a.plan.shards[i].table, b.plan.shards[i].table);
    EXPECT_EQ(a.plan.shards[i].gpu, b.plan.shards[i].gpu);
    EXPECT_EQ(a.plan.shards[i].rows, b.plan.shards[i].rows);
    EXPECT_EQ(a.plan.shards[i].cols, b.plan.shards[i].cols);
    EXPECT_EQ(b.plan.shards[i].storage.kind, StorageKind::hbm);
  }
  for (double ddr : b.partition.ddr_used_by_rank_bytes) EXPECT_EQ(ddr, 0);
}

TEST(TorchrecStats, ImbalanceMeasuresByHand) {
  const std::vector<double> even = {2, 2, 2, 2};
  const Imbalance e = imbalance(even);
  EXPECT_DOUBLE_EQ(e.total_variation, 0);
  EXPECT_DOUBLE_EQ(e.total_distance, 0);
  EXPECT_DOUBLE_EQ(e.chi_divergence, 0);
  EXPECT_NEAR(e.kl_divergence, 0, 1e-15);
  // Everything on one of 4 ranks: |p - 1/4| = 3/4 once and 1/4 three times;
  // chi = 4 (9/16 + 3/16) / ((3/4)^2 4 + 3/4) = 3 / 3; KL = ln 4 / ln 4.
  const std::vector<double> one = {5, 0, 0, 0};
  const Imbalance o = imbalance(one);
  EXPECT_DOUBLE_EQ(o.total_variation, 0.75);
  EXPECT_DOUBLE_EQ(o.total_distance, 1.5);
  EXPECT_DOUBLE_EQ(o.chi_divergence, 1.0);
  EXPECT_DOUBLE_EQ(o.kl_divergence, 1.0);
  // Half on each of 2 of 4 ranks: KL = ln 2 / ln 4 = 0.5; total distance 4 · 1/4.
  const std::vector<double> half = {1, 1, 0, 0};
  EXPECT_DOUBLE_EQ(imbalance(half).kl_divergence, 0.5);
  EXPECT_DOUBLE_EQ(imbalance(half).total_distance, 1.0);
}

TEST(TorchrecStats, OneLinePerRankWithItsShardsAndTheMaximum) {
  PlanFixture f(hand_preset(4), 2, mixed_model(), 256);
  const TorchrecResult r = torchrec_plan_detailed(f.ctx(), TorchrecOptions{});
  const std::vector<std::string> lines = stats_lines(r);
  ASSERT_GE(lines.size(), 3u + 8u);
  EXPECT_EQ(lines[0], "--- Planner Statistics ---");
  EXPECT_NE(lines[1].find(std::to_string(r.proposals) + " proposal(s)"), std::string::npos);
  EXPECT_NE(lines[2].find("Shards"), std::string::npos);
  // Every rank's line names every sharding type the plan uses, with its count.
  std::set<std::string> used;
  for (const ShardingOption* o : r.chosen) used.insert(abbreviation(o->type));
  for (int rank = 0; rank < 8; ++rank) {
    for (const std::string& a : used) {
      EXPECT_NE(lines[3 + rank].find(a + ": "), std::string::npos) << lines[3 + rank];
    }
  }
  bool max_line = false;
  for (const std::string& l : lines)
    max_line = max_line || l.rfind("Maximum of Total Perf", 0) == 0;
  EXPECT_TRUE(max_line);
  // The planner puts them on its plan.
  EXPECT_EQ(f.plan("torchrec").planner_stats, lines);
}

TEST(TorchrecStats, TheDdrColumnShowsEachRanksHostMemory) {
  // Without a host: DDR 0 on every rank and no DDR imbalance line.
  PlanFixture hbm_only(hand_preset(4), 2, mixed_model(), 256);
  const std::vector<std::string> plain =
      stats_lines(torchrec_plan_detailed(hbm_only.ctx(), TorchrecOptions{}));
  for (int rank = 0; rank < 8; ++rank) {
    EXPECT_NE(plain[3 + rank].find("0.0 (0%)"), std::string::npos) << plain[3 + rank];
  }
  for (const std::string& l : plain) EXPECT_NE(l.rfind("DDR imbalance", 0), 0u) << l;
  // With tables in host memory: each rank's DDR in GB (GiB, TorchRec's bytes_to_gb) and its
  // share of ddr_cap, as TorchRec prints them.
  PlanFixture f(host_preset(4), 1, too_big_model(), 256);
  const TorchrecResult r = torchrec_plan_detailed(f.ctx(), TorchrecOptions{});
  const std::vector<std::string> lines = stats_lines(r);
  for (int rank = 0; rank < 4; ++rank) {
    const double ddr = r.partition.ddr_used_by_rank_bytes[static_cast<std::size_t>(rank)];
    ASSERT_GT(ddr, 0);
    // "<GiB, 3 decimals> (<% of ddr_cap>)": the whole GiB and the percentage.
    const std::string cell = fmt::format("{:.0f}.", std::floor(ddr / 1073741824.0));
    const std::string pct = fmt::format("({:.0f}%)", 100 * ddr / r.ddr_capacity_bytes);
    EXPECT_NE(lines[3 + rank].find(cell), std::string::npos) << lines[3 + rank];
    EXPECT_NE(lines[3 + rank].find(pct), std::string::npos) << lines[3 + rank];
  }
  bool ddr_line = false;
  for (const std::string& l : lines) ddr_line = ddr_line || l.rfind("DDR imbalance", 0) == 0;
  EXPECT_TRUE(ddr_line);
}

}  // namespace
}  // namespace shardsim::torchrec
