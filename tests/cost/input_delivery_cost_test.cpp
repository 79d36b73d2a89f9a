// Data ingestion (cost/input_delivery_cost.hpp; docs/model.md, "Data ingestion"): hand
// calculations of the bytes of a sample and of a batch's delivery.
#include "shardsim/cost/input_delivery_cost.hpp"

#include <gtest/gtest.h>

#include "support/hand_model.hpp"
#include "support/hand_preset.hpp"

namespace shardsim {
namespace {

TEST(InputDelivery, BytesOfASampleByHand) {
  // 2 tables of pooling 10, 16 dense features: 2·10 int64 ids + 2 int32 lengths + 17 fp32
  // values (the features and the label) = 160 + 8 + 68 = 236 B.
  const DlrmModel m = testing::hand_model(2, 1'000'000, 64, 10);
  CostParams p = testing::hand_cost_params();
  EXPECT_DOUBLE_EQ(input_bytes_per_sample(m, p), 236);
  p.index_bytes_per_lookup = 4;  // int32 ids: 80 + 8 + 68
  EXPECT_DOUBLE_EQ(input_bytes_per_sample(m, p), 156);
}

TEST(InputDelivery, TheSlowerOfFrontendAndHostLinkSetsTheRate) {
  const DlrmModel m = testing::hand_model(2, 1'000'000, 64, 10);
  const CostParams p = testing::hand_cost_params();
  HardwarePreset h = testing::hand_preset(4);
  // No frontend network: the inputs are not modelled.
  EXPECT_EQ(input_delivery(Cluster(h, 1), m, 1000, p).time_s(), 0);
  h.host.memory_bytes_per_node = 100e9;
  h.host.link = LinkSpec{10e9, 2e-6};
  EXPECT_EQ(input_delivery(Cluster(h, 1), m, 1000, p).time_s(), 0);
  // 1000 samples x 236 B = 236 kB per GPU; the node's 4 GPUs share a 1 GB/s frontend:
  // 944 us; each GPU's PCIe: 23.6 us + 2 us.
  h.host.frontend_Bps = 1e9;
  const InputDelivery slow = input_delivery(Cluster(h, 2), m, 1000, p);
  EXPECT_DOUBLE_EQ(slow.bytes_per_gpu, 236e3);
  EXPECT_NEAR(slow.frontend_s, 944e-6, 1e-15);
  EXPECT_NEAR(slow.host_link_s, 25.6e-6, 1e-15);
  EXPECT_DOUBLE_EQ(slow.time_s(), slow.frontend_s);
  // A 100 GB/s frontend: 9.44 us, so PCIe sets the rate.
  h.host.frontend_Bps = 100e9;
  const InputDelivery fast = input_delivery(Cluster(h, 2), m, 1000, p);
  EXPECT_NEAR(fast.frontend_s, 9.44e-6, 1e-15);
  EXPECT_DOUBLE_EQ(fast.time_s(), fast.host_link_s);
}

}  // namespace
}  // namespace shardsim
