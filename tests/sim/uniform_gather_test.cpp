// A uniform gather by containers (sim/uniform_gather.hpp) against the same pairs added one by
// one in GPU order: bit for bit equal, with non-integer bytes (where sums round), on a tiered
// cluster (A100 SuperPOD racks and pods), a direct NVLink mesh (hpc-a100x4) and an H100 cluster.
#include "sim/uniform_gather.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "shardsim/core/rng.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/hw/level_table.hpp"

namespace shardsim {
namespace {

struct Gather {
  int owner;
  double bytes;
};

LevelTraffic by_pairs(const Cluster& c, const std::vector<Gather>& gathers) {
  LevelTraffic t(c);
  const LevelTable levels(c);
  for (const Gather& x : gathers) {
    for (int g = 0; g < c.num_gpus(); ++g) {
      if (g != x.owner) t.add(g, x.owner, levels.row_of(x.owner)[levels.node_of(g)], x.bytes);
    }
  }
  return t;
}

void check(const Cluster& c, std::uint64_t seed) {
  const int n = c.num_gpus();
  Rng rng(seed);
  std::vector<Gather> gathers;
  UniformGather gather(c);
  ASSERT_TRUE(gather.nested());
  LevelTraffic fast(c);
  for (int k = 0; k < 3 * n; ++k) {
    // Indices and offsets: lookups x 8 B + a batch of offsets, lookups anything but whole.
    const Gather x{static_cast<int>(rng.below(static_cast<std::uint64_t>(n))),
                   (1 + 400 * rng.uniform01()) * 8.0 / 3.0 + 4096};
    gathers.push_back(x);
    gather.add(fast, x.owner, x.bytes);
  }
  EXPECT_EQ(gather.pending(), n > c.gpus_per_scale_up_domain());  // bytes beyond a domain
  gather.flush(fast);
  EXPECT_FALSE(gather.pending());
  const LevelTraffic pairs = by_pairs(c, gathers);
  for (int g = 0; g < n; ++g) {
    for (int l = 0; l < c.num_levels(); ++l) {
      EXPECT_EQ(fast.sent(g, l), pairs.sent(g, l)) << "gpu " << g << " level " << l;
      EXPECT_EQ(fast.received(g, l), pairs.received(g, l)) << "gpu " << g << " level " << l;
    }
    for (int h = 0; h < n; ++h) EXPECT_EQ(fast.domain_pair(g, h), pairs.domain_pair(g, h));
  }
}

TEST(UniformGather, EqualsItsPairsOnATieredCluster) {
  check(Cluster(builtin_preset("dgx-a100"), 45), 1);  // 360 GPUs: 3 racks, the last partly full
}

TEST(UniformGather, EqualsItsPairsOnADirectNvlinkMesh) {
  const Cluster c(builtin_preset("hpc-a100x4"), 6);
  ASSERT_TRUE(LevelTraffic(c).has_domain_pairs());
  check(c, 2);
}

TEST(UniformGather, EqualsItsPairsOnH100Nodes) {
  check(Cluster(builtin_preset("dgx-h100"), 40), 3);
  check(Cluster(builtin_preset("dgx-h100"), 1), 4);  // one node: level 1 only
}

TEST(UniformGather, RefusesBadInput) {
  const Cluster c(builtin_preset("dgx-a100"), 2);
  UniformGather gather(c);
  LevelTraffic t(c);
  EXPECT_THROW(gather.add(t, -1, 1.0), std::out_of_range);
  EXPECT_THROW(gather.add(t, 16, 1.0), std::out_of_range);
  const Cluster other(builtin_preset("dgx-a100"), 3);
  LevelTraffic wrong(other);
  EXPECT_THROW(gather.add(wrong, 0, 1.0), std::invalid_argument);
}

}  // namespace
}  // namespace shardsim
