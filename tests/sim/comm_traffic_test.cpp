// The unit of the reports' communication matrices: the GPU up to 1024, then coarser.
#include "shardsim/sim/comm_traffic.hpp"

#include <gtest/gtest.h>

#include "support/hand_preset.hpp"

namespace shardsim {
namespace {

TEST(CommMatrixUnits, GpusThenNodesThenTierGroups) {
  const Cluster small(testing::hand_preset(8), 4);
  const MatrixUnits g = comm_matrix_units(small);
  EXPECT_EQ(g.granularity, "gpu");
  EXPECT_EQ(g.count, 32);
  EXPECT_EQ(g.unit_of[31], 31);

  // 4096 GPUs in 512 nodes of 8: a node matrix (512 x 512 = 2 MB, not 134 MB).
  HardwarePreset h = testing::hand_preset(8);
  h.tiers = {TierSpec{"rack", 16, 1.0, 0}, TierSpec{"pod", 64, 1.0, 0}};
  const MatrixUnits n = comm_matrix_units(Cluster(h, 512));
  EXPECT_EQ(n.granularity, "node");
  EXPECT_EQ(n.count, 512);
  EXPECT_EQ(n.unit_of[4095], 511);

  // 2048 single-GPU nodes, racks of 16: rack matrix (128 racks).
  HardwarePreset one = testing::hand_preset(1);
  one.tiers = {TierSpec{"rack", 16, 1.0, 0}, TierSpec{"pod", 256, 1.0, 0}};
  const MatrixUnits r = comm_matrix_units(Cluster(one, 2048));
  EXPECT_EQ(r.granularity, "rack");
  EXPECT_EQ(r.count, 128);
  EXPECT_EQ(r.unit_of[2047], 127);

  // A tiny limit: nothing fits.
  EXPECT_EQ(comm_matrix_units(small, 0).granularity, "none");
  EXPECT_TRUE(comm_matrix_units(small, 0).unit_of.empty());
}

}  // namespace
}  // namespace shardsim
