// Memory tiers (docs/model.md "Memory tiers"): the HBM and host bytes of shards by storage, the
// host-memory check, the choice of tables that leave HBM, and the expected host-link traffic.
#include <gtest/gtest.h>

#include <cmath>

#include "plan/storage_tiers.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/plan/host_tier.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/plan_validation.hpp"
#include "shardsim/plan/planner.hpp"
#include "support/hand_preset.hpp"
#include "support/uniform_trace.hpp"

namespace shardsim {
namespace memory_tiers_test {

HardwarePreset preset_with_host(int gpus_per_node, double host_bytes) {
  HardwarePreset p = testing::hand_preset(gpus_per_node);
  p.host.memory_bytes_per_node = host_bytes;
  p.host.link = LinkSpec{20e9, 0};
  return p;
}

DlrmModel tables(std::vector<std::uint64_t> rows, std::uint32_t dim, double pooling) {
  DlrmModel m;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EmbeddingTable t;
    t.name = "t" + std::to_string(i);
    t.rows = rows[i];
    t.dim = dim;
    t.pooling.value = pooling;
    m.tables.push_back(t);
  }
  m.dense_features = 4;
  m.bottom_mlp = {8};
  m.top_mlp = {1};
  return m;
}

Shard cached(std::uint64_t rows, std::uint32_t dim, double fraction, CachePolicy policy) {
  Shard s = whole_table_shard(0, rows, dim);
  s.storage = ShardStorage{StorageKind::uvm_caching, policy, fraction};
  return s;
}

TEST(MemoryTiers, CacheBytesByPolicy) {
  const DlrmModel m = tables({1000}, 16, 1);  // fp32 rows of 64 B
  // 200 slots x (64 B row + 8 B index) + LRU: 8 B timestamp per slot.
  EXPECT_DOUBLE_EQ(shard_cache_bytes(cached(1000, 16, 0.2, CachePolicy::lru), m), 16000.0);
  // LFU: a counter per row of the shard instead.
  EXPECT_DOUBLE_EQ(shard_cache_bytes(cached(1000, 16, 0.2, CachePolicy::lfu), m), 22400.0);
  // Slots round up.
  EXPECT_DOUBLE_EQ(shard_cache_bytes(cached(10, 16, 0.01, CachePolicy::lru), m), 80.0);
  EXPECT_DOUBLE_EQ(shard_cache_bytes(whole_table_shard(0, 1000, 16), m), 0.0);
}

TEST(MemoryTiers, PlanMemorySplitsHbmAndHost) {
  const Cluster c(preset_with_host(2, 1e12), 1);
  const DlrmModel m = tables({1000, 1000, 1000}, 16, 1);
  Workload w;
  w.batch_per_gpu = 4;
  Plan p;
  p.shards = {whole_table_shard(0, 1000, 16), whole_table_shard(1, 1000, 16),
              whole_table_shard(2, 1000, 16)};
  p.shards[1].storage.kind = StorageKind::uvm;
  p.shards[2].storage = ShardStorage{StorageKind::uvm_caching, CachePolicy::lru, 0.2};
  p.shards[2].gpu = 1;
  validate_plan(p, c, m, "test");
  const std::vector<GpuMemory> mem = plan_memory(p, c, m, w);
  // Row-wise AdaGrad in training: 4 B of state per row.
  EXPECT_DOUBLE_EQ(mem[0].weights_bytes, 64000.0);
  EXPECT_DOUBLE_EQ(mem[0].optimizer_bytes, 4000.0);
  EXPECT_DOUBLE_EQ(mem[0].host_bytes, 68000.0);  // the uvm table, all in host memory
  EXPECT_DOUBLE_EQ(mem[0].cache_bytes, 0.0);
  EXPECT_DOUBLE_EQ(mem[1].weights_bytes, 0.0);
  EXPECT_DOUBLE_EQ(mem[1].cache_bytes, 16000.0);
  EXPECT_DOUBLE_EQ(mem[1].host_bytes, 68000.0);
  // HBM use counts the cache, never the host bytes.
  const GpuMemory base = base_gpu_memory(c, m, w);
  EXPECT_DOUBLE_EQ(mem[1].total_bytes(),
                   base.total_bytes() + 16000.0 + mem[1].activation_bytes - base.activation_bytes);
  check_fits(mem, c);
}

TEST(MemoryTiers, HostMemoryIsCheckedPerNode) {
  const Cluster c(preset_with_host(2, 100000), 2);  // 100 kB of host memory per node
  const DlrmModel m = tables({1000, 1000}, 16, 1);
  Workload w;
  w.batch_per_gpu = 4;
  Plan p;
  p.shards = {whole_table_shard(0, 1000, 16), whole_table_shard(1, 1000, 16)};
  p.shards[0].storage.kind = StorageKind::uvm;
  p.shards[1].storage.kind = StorageKind::uvm;
  p.shards[1].gpu = 2;  // another node: 68 kB each, fits
  check_fits(plan_memory(p, c, m, w), c);
  p.shards[1].gpu = 1;  // the same node: 136 kB > 100 kB
  try {
    check_fits(plan_memory(p, c, m, w), c);
    FAIL() << "expected DoesNotFitError";
  } catch (const DoesNotFitError& e) {
    EXPECT_LT(e.gpu(), 0);
    EXPECT_DOUBLE_EQ(e.needed_bytes(), 136000.0);
    EXPECT_NE(std::string(e.what()).find("host memory of node 0"), std::string::npos) << e.what();
  }
}

TEST(MemoryTiers, ValidationNeedsAHostInThePreset) {
  const Cluster c(testing::hand_preset(2), 1);  // no host: block
  const DlrmModel m = tables({1000}, 16, 1);
  Plan p;
  p.shards = {whole_table_shard(0, 1000, 16)};
  p.shards[0].storage.kind = StorageKind::uvm;
  EXPECT_THROW(validate_plan(p, c, m, "test"), InputError);
}

// Three tables of 1e9 rows x 64 fp32 (256 GB each) on 2 GPUs of 40 GB.
struct TierCase {
  DlrmModel model = tables({1000000000, 1000000000, 1000000000}, 64, 1);
  Workload workload;
  TierCase() {
    model.tables[0].pooling.value = 10;  // the hottest per byte: cached last
    model.tables[2].pooling.value = 5;
    workload.batch_per_gpu = 64;
  }
};

TEST(MemoryTiers, ColdestTablesLeaveHbmFirst) {
  TierCase k;
  const std::vector<std::uint64_t> rows = {k.model.tables[0].rows, k.model.tables[1].rows,
                                           k.model.tables[2].rows};
  const testing::UniformTrace trace(rows, {10, 1, 5});
  const Cluster c(preset_with_host(2, 4e12), 1);
  const PlanningContext ctx{c, k.model, k.workload, trace};
  StorageTierOptions o;
  o.cache_fraction = 0.01;  // 2.56 GB + state per table
  const std::vector<ShardStorage> st = choose_table_storage(ctx, 0.0, o);
  // 768 GB does not fit in 80 GB: every table must go, coldest (t1) first; with 1% caches all
  // three fit.
  for (const ShardStorage& s : st) EXPECT_EQ(s.kind, StorageKind::uvm_caching);
  // A smaller model that fits keeps everything in HBM.
  DlrmModel small = tables({1000, 1000}, 16, 1);
  const testing::UniformTrace small_trace({1000, 1000}, {1, 1});
  const PlanningContext small_ctx{c, small, k.workload, small_trace};
  for (const ShardStorage& s : choose_table_storage(small_ctx, 0.0, o)) {
    EXPECT_EQ(s.kind, StorageKind::hbm);
  }
  // Two tables of 40 GB on two GPUs of 40 GB: only the colder one is cached.
  DlrmModel two = tables({150000000, 150000000}, 64, 1);
  two.tables[1].pooling.value = 2;
  const testing::UniformTrace two_trace({150000000, 150000000}, {1, 2});
  const PlanningContext two_ctx{c, two, k.workload, two_trace};
  const std::vector<ShardStorage> two_st = choose_table_storage(two_ctx, 0.0, o);
  EXPECT_EQ(two_st[0].kind, StorageKind::uvm_caching);
  EXPECT_EQ(two_st[1].kind, StorageKind::hbm);
  // No host memory in the preset, or `host_tables: never`: all HBM.
  const Cluster no_host(testing::hand_preset(2), 1);
  const PlanningContext no_host_ctx{no_host, two, k.workload, two_trace};
  for (const ShardStorage& s : choose_table_storage(no_host_ctx, 0.0, o)) {
    EXPECT_EQ(s.kind, StorageKind::hbm);
  }
  o.allow_host = false;
  for (const ShardStorage& s : choose_table_storage(two_ctx, 0.0, o)) {
    EXPECT_EQ(s.kind, StorageKind::hbm);
  }
}

TEST(MemoryTiers, MemoryAwarePlannersPlaceAModelTwiceTheHbm) {
  // 2 x 80 GB of tables on two GPUs of 40 GB.
  const DlrmModel m = tables({312500000, 312500000}, 64, 2);
  const testing::UniformTrace trace({312500000, 312500000}, {2, 2});
  const Cluster c(preset_with_host(2, 1e12), 1);
  Workload w;
  w.batch_per_gpu = 64;
  for (const char* name : {"memory_greedy", "hybrid"}) {
    const auto planner = make_planner(name);
    const Plan p = planner->plan(PlanningContext{c, m, w, trace});
    validate_plan(p, c, m, name);
    const std::vector<GpuMemory> mem = plan_memory(p, c, m, w);
    EXPECT_NO_THROW(check_fits(mem, c)) << name;
    double host = 0;
    for (const GpuMemory& g : mem) host += g.host_bytes;
    EXPECT_GT(host, 80e9) << name;
  }
}

TEST(MemoryTiers, HostTrafficOfUvmAndLruCacheUnderUniformAccess) {
  const std::uint64_t rows = 100000;
  const DlrmModel m = tables({rows, rows}, 16, 10);  // 64 B rows, 4 B of state
  const testing::UniformTrace trace({rows, rows}, {10, 10});
  Workload w;
  w.batch_per_gpu = 100;  // 1000 table lookups per GPU's batch
  const CostParams cost = default_cost_params();
  Plan p;
  p.shards = {whole_table_shard(0, rows, 16), whole_table_shard(1, rows, 16)};
  p.shards[0].storage.kind = StorageKind::uvm;
  p.shards[1].storage = ShardStorage{StorageKind::uvm_caching, CachePolicy::lru, 0.3};
  const std::vector<double> served = {2, 2};  // both serve two GPUs' batches: 2000 lookups
  const HostTierTraffic h = host_tier_traffic(p, served, m, w, trace, cost);
  ASSERT_EQ(h.shards.size(), 2u);
  const double L = 2000, R = rows;
  const double d = R * (1 - std::pow(1 - 1 / R, L));
  EXPECT_NEAR(h.shards[0].lookups, L, 1e-9);
  EXPECT_NEAR(h.shards[0].distinct_rows, d, 1e-6);
  const double fetched = d + (L - d) * cost.repeat_lookup_hbm_fraction;
  EXPECT_NEAR(h.shards[0].h2d_forward_bytes, fetched * 64, 1e-6);
  EXPECT_NEAR(h.shards[0].h2d_backward_bytes, d * 68, 1e-6);
  EXPECT_NEAR(h.shards[0].d2h_backward_bytes, d * 68, 1e-6);
  // LRU under uniform access holds C of R rows: hit rate C/R, and the rows fetched per
  // iteration are D(T + L) - D(T) = (R - C)(1 - (1 - 1/R)^L).
  const double C = 0.3 * R;
  EXPECT_NEAR(h.shards[1].cache_hit_rate, C / R, 1e-6);
  const double miss_rows = (R - C) * (1 - std::pow(1 - 1 / R, L));
  EXPECT_NEAR(h.shards[1].fetched_rows, miss_rows, 1e-3 * miss_rows);
  EXPECT_NEAR(h.shards[1].h2d_forward_bytes, 64 * h.shards[1].fetched_rows, 1e-6);
  EXPECT_NEAR(h.shards[1].d2h_backward_bytes, 64 * h.shards[1].fetched_rows + 4 * d, 1e-3 * d);
  // Inference writes nothing back.
  w.mode = Mode::inference;
  const HostTierTraffic inf = host_tier_traffic(p, served, m, w, trace, cost);
  EXPECT_EQ(inf.shards[1].d2h_backward_bytes, 0.0);
  // A plan with every shard in HBM has no host traffic at all.
  p.shards[0].storage = {};
  p.shards[1].storage = {};
  EXPECT_TRUE(host_tier_traffic(p, served, m, w, trace, cost).empty());
}

TEST(MemoryTiers, UvmFaultsAreOffByDefaultAndAddToTheForward) {
  const std::uint64_t rows = 100000;
  const DlrmModel m = tables({rows}, 16, 10);  // 64 B rows: 64 to a 4 KiB page, 1563 pages
  const testing::UniformTrace trace({rows}, {10});
  Workload w;
  w.batch_per_gpu = 100;
  Plan p;
  p.shards = {whole_table_shard(0, rows, 16)};
  p.shards[0].gpu = 0;
  p.shards[0].storage.kind = StorageKind::uvm;
  const std::vector<double> served = {2};  // 2000 lookups
  CostParams cost = default_cost_params();
  const HostTierTraffic off = host_tier_traffic(p, served, m, w, trace, cost);
  const double d = off.shards[0].distinct_rows;
  const double pages = std::ceil(100000.0 / 64);
  const double faults = pages * (1 - std::pow(1 - 1 / pages, d));
  EXPECT_NEAR(off.shards[0].uvm_faults, faults, 1e-6 * faults);  // counted even when off
  EXPECT_EQ(off.shards[0].uvm_fault_s, 0.0);
  cost.uvm_fault_batch_s = 50e-6;
  const HostTierTraffic on = host_tier_traffic(p, served, m, w, trace, cost);
  EXPECT_NEAR(on.shards[0].uvm_fault_s, faults / 256 * 50e-6, 1e-15);
  // The GPU's forward waits for the bytes and the faults; the backward for the bytes only.
  const Cluster c(preset_with_host(1, 1e12), 1);
  const auto link_off = host_link_by_gpu(p, off, c);
  const auto link_on = host_link_by_gpu(p, on, c);
  EXPECT_NEAR(link_on[0].forward_s - link_off[0].forward_s, faults / 256 * 50e-6, 1e-15);
  EXPECT_EQ(link_on[0].backward_s, link_off[0].backward_s);
}

}  // namespace memory_tiers_test
}  // namespace shardsim

namespace shardsim {
namespace memory_tiers_test {

TEST(MemoryTiers, HostShardsInOneSidedPlansAreRefused) {
  const Cluster c(preset_with_host(2, 1e12), 1);
  const DlrmModel m = tables({1000}, 16, 1);
  Plan p;
  p.lookup_comm = LookupComm::one_sided;
  p.shards = {whole_table_shard(0, 1000, 16)};
  validate_plan(p, c, m, "test");
  p.shards[0].storage.kind = StorageKind::uvm;
  try {
    validate_plan(p, c, m, "test");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("one-sided"), std::string::npos) << e.what();
  }
}

}  // namespace memory_tiers_test
}  // namespace shardsim
