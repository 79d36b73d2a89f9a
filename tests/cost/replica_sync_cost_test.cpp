// The 2D paper's §5 closed forms against hand calculations.
#include "shardsim/cost/replica_sync_cost.hpp"

#include <gtest/gtest.h>

namespace shardsim {
namespace {

TEST(ReplicaSyncCost, MemoryOverheadIsSTimesMMinusOneOverT) {
  // ExFM in Table 1: S = 1.7 TB, T = 1024 GPUs. M = 2: 1.7e12 · 1 / 1024 = 1.66015625 GB;
  // M = 8: 1.7e12 · 7 / 1024 = 11.62109375 GB (13.5% of an 80 GiB GPU, as the table's mean
  // memory rises from 76.95% to 90.22%).
  EXPECT_DOUBLE_EQ(replica_memory_overhead_bytes(1.7e12, 2, 1024), 1.66015625e9);
  EXPECT_DOUBLE_EQ(replica_memory_overhead_bytes(1.7e12, 8, 1024), 11.62109375e9);
  EXPECT_DOUBLE_EQ(replica_memory_overhead_bytes(1.7e12, 1, 1024), 0.0);  // M = 1: none
}

TEST(ReplicaSyncCost, Eq1MatchesTheHandNumbers) {
  // CTR model: S = 0.5 TB, T = 256, M = 4, B_sync = 100 GB/s:
  // 2 · 0.5e12 · 3 / (256 · 100e9) = 3e12 / 2.56e13 = 0.1171875 s.
  EXPECT_DOUBLE_EQ(replica_sync_eq1_s(0.5e12, 4, 256, 100e9), 0.1171875);
  // = 2 · M_overhead / B_sync.
  EXPECT_DOUBLE_EQ(replica_sync_eq1_s(0.5e12, 4, 256, 100e9),
                   2 * replica_memory_overhead_bytes(0.5e12, 4, 256) / 100e9);
  // Intra-host 7x faster (§5): 7x less time.
  EXPECT_DOUBLE_EQ(replica_sync_eq1_s(0.5e12, 4, 256, 700e9), 0.1171875 / 7);
  EXPECT_DOUBLE_EQ(replica_sync_eq1_s(0.5e12, 1, 256, 100e9), 0.0);
}

}  // namespace
}  // namespace shardsim
