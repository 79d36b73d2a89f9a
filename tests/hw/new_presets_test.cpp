// The DGX H200, DGX B200 and GB200 NVL72 presets (issue 60): their defining numbers, by hand,
// and the topologies they build (GPUs per NVLink domain, bandwidths of each level).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "shardsim/hw/cluster.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/hw/level_table.hpp"
#include "shardsim/hw/topology.hpp"

namespace shardsim {
namespace new_presets_test {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kNdrNic_Bps = 400e9 / 8;  // one 400 Gbit/s ConnectX-7 = 50 GB/s

// The H100's ridge point, TF32 bytes x peak / peak HBM (docs/validation/kernels.md, "A100").
double h100_ridge() {
  const GpuSpec h = builtin_preset("dgx-h100").gpu;
  return 4 * h.peak_tf32_flops / h.hbm_peak_Bps;
}

TEST(NewPresets, DgxH200IsADgxH100WithHbm3e) {
  const HardwarePreset p = builtin_preset("dgx-h200");
  const HardwarePreset h100 = builtin_preset("dgx-h100");
  EXPECT_DOUBLE_EQ(p.gpu.hbm_capacity_bytes, 141 * kGiB);
  EXPECT_DOUBLE_EQ(p.gpu.hbm_peak_Bps, 4.8e12);
  EXPECT_DOUBLE_EQ(p.gpu.hbm_achievable_Bps, 4013e9);  // 4800 x 0.836
  EXPECT_DOUBLE_EQ(p.gpu.peak_bf16_flops, h100.gpu.peak_bf16_flops);
  EXPECT_DOUBLE_EQ(p.scale_up.bandwidth_Bps, 450e9);  // NVLink 900 GB/s both ways
  EXPECT_DOUBLE_EQ(p.nic.bandwidth_Bps, kNdrNic_Bps);
  EXPECT_EQ(p.nics_per_node, 8);
  // The H200 judgement's figures (MlpH200Validation): batch halves x 3350 / 4800, the rest the
  // H100's.
  EXPECT_DOUBLE_EQ(p.gpu.mlp_batch_half, std::round(470 * 3350.0 / 4800));       // 328
  EXPECT_DOUBLE_EQ(p.gpu.mlp_batch_half_fp32, std::round(104 * 3350.0 / 4800));  // 73
  EXPECT_DOUBLE_EQ(p.gpu.mlp_width_half, h100.gpu.mlp_width_half);
  EXPECT_DOUBLE_EQ(p.gpu.mlp_width_half_fp32, h100.gpu.mlp_width_half_fp32);
  for (Precision q : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16}) {
    EXPECT_DOUBLE_EQ(p.gpu.mlp_efficiency_for(q), h100.gpu.mlp_efficiency_for(q)) << to_string(q);
  }
  // Two DGX H200: 8 GPUs a domain; NVLink inside, one NIC per GPU between them.
  const Cluster c(p, 2);
  EXPECT_EQ(c.gpus_per_scale_up_domain(), 8);
  EXPECT_EQ(c.route(0, 7).level, 1);
  EXPECT_DOUBLE_EQ(c.route(0, 7).bottleneck_Bps, 450e9);
  EXPECT_EQ(c.route(0, 8).level, 2);
  EXPECT_DOUBLE_EQ(c.route(0, 8).bottleneck_Bps, kNdrNic_Bps);
}

TEST(NewPresets, DgxB200HasNvlink5AndRidgePointHalves) {
  const HardwarePreset p = builtin_preset("dgx-b200");
  EXPECT_DOUBLE_EQ(p.gpu.hbm_capacity_bytes, 180 * kGiB);  // 1,440 GB / 8
  EXPECT_DOUBLE_EQ(p.gpu.hbm_peak_Bps, 7.7e12);
  EXPECT_DOUBLE_EQ(p.gpu.peak_tf32_flops, 1100e12);  // 2.2 PFLOPS sparse / 2
  EXPECT_DOUBLE_EQ(p.gpu.peak_bf16_flops, 2250e12);  // 4.5 PFLOPS sparse / 2
  EXPECT_DOUBLE_EQ(p.gpu.l2_bytes, 126 * 1024.0 * 1024.0);
  EXPECT_DOUBLE_EQ(p.scale_up.bandwidth_Bps, 900e9);  // 1.8 TB/s both ways
  EXPECT_EQ(p.gpus_per_node * p.nics_per_node, 64);
  // Hand values of the rule: TF32 470 x (4 x 1100 / 7700) / (4 x 494.5 / 3350) = 454.9.
  EXPECT_DOUBLE_EQ(p.gpu.mlp_batch_half_for(Precision::tf32), 455);
  EXPECT_DOUBLE_EQ(p.gpu.mlp_batch_half_for(Precision::bf16), 465);
  EXPECT_DOUBLE_EQ(p.gpu.mlp_batch_half_for(Precision::fp32), 31);
  EXPECT_DOUBLE_EQ(p.gpu.mlp_width_half_for(Precision::tf32), 1374);
  const Cluster c(p, 4);
  EXPECT_EQ(c.gpus_per_scale_up_domain(), 8);
  EXPECT_DOUBLE_EQ(c.route(1, 6).bottleneck_Bps, 900e9);
  EXPECT_DOUBLE_EQ(c.route(1, 30).bottleneck_Bps, kNdrNic_Bps);
}

// The Blackwell presets take the H100's batch and width halves by the ridge point, as the A100
// presets do (BuiltinPresets.A100MlpFiguresFollowTheH100ByTheRidgePoint), in every precision.
TEST(NewPresets, BlackwellMlpHalvesFollowTheH100ByTheRidgePoint) {
  const GpuSpec h100 = builtin_preset("dgx-h100").gpu;
  for (const char* name : {"dgx-b200", "gb200-nvl72"}) {
    const GpuSpec b = builtin_preset(name).gpu;
    for (Precision q : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16}) {
      const double bytes = (q == Precision::fp16 || q == Precision::bf16) ? 2 : 4;
      const double ratio = bytes * b.peak_flops(q) / b.hbm_peak_Bps / h100_ridge();
      EXPECT_NEAR(b.mlp_batch_half_for(q), h100.mlp_batch_half * ratio, 0.5)
          << name << " " << to_string(q);
      EXPECT_NEAR(b.mlp_width_half_for(q), h100.mlp_width_half * ratio, 0.5)
          << name << " " << to_string(q);
      EXPECT_DOUBLE_EQ(b.mlp_efficiency_for(q), h100.mlp_efficiency_for(q)) << name;
    }
  }
}

TEST(NewPresets, Gb200Nvl72IsOneNvlinkDomainOf72Gpus) {
  const HardwarePreset p = builtin_preset("gb200-nvl72");
  EXPECT_EQ(p.gpus_per_node, 72);  // 18 trays x 4 GPUs, one node
  EXPECT_EQ(p.scale_up_domain_nodes, 1);
  EXPECT_EQ(p.nics_per_node, 72);  // 18 trays x 4 ConnectX-7
  EXPECT_DOUBLE_EQ(p.gpu.hbm_capacity_bytes, 186 * kGiB);
  EXPECT_DOUBLE_EQ(p.gpu.hbm_peak_Bps, 8e12);
  EXPECT_DOUBLE_EQ(p.scale_up.bandwidth_Bps, 900e9);
  EXPECT_DOUBLE_EQ(p.host.memory_bytes_per_node, 17280 * kGiB);  // 36 Graces x 480 GB
  // Two racks: 144 GPUs, two domains of 72.
  const Cluster c(p, 2);
  EXPECT_EQ(c.num_gpus(), 144);
  EXPECT_EQ(c.gpus_per_scale_up_domain(), 72);
  EXPECT_EQ(c.num_scale_up_domains(), 2);
  EXPECT_DOUBLE_EQ(c.scale_out_Bps_per_gpu(), kNdrNic_Bps);
  // GPUs of different trays (0 and 71) talk over NVLink, through the one switch vertex: two
  // links at 900 GB/s, one scale-up traversal of 1 us.
  const Route in_rack = c.route(0, 71);
  EXPECT_EQ(in_rack.level, 1);
  EXPECT_EQ(in_rack.links.size(), 2u);
  EXPECT_DOUBLE_EQ(in_rack.bottleneck_Bps, 900e9);
  EXPECT_NEAR(in_rack.latency_s, 1e-6, 1e-12);
  EXPECT_EQ(c.level_name(1), "scale_up");
  // Across racks: GPU -> NIC -> SU switch -> NIC -> GPU, 2 x (0 + 2) = 4 links at one NIC's
  // 50 GB/s; latency NIC 1 + SU 0.25 + NIC 1 us.
  const Route across = c.route(0, 72 + 35);
  EXPECT_EQ(across.level, 2);
  EXPECT_EQ(c.level_name(2), "su");
  EXPECT_EQ(across.links.size(), 4u);
  EXPECT_DOUBLE_EQ(across.bottleneck_Bps, kNdrNic_Bps);
  EXPECT_NEAR(across.latency_s, 2.25e-6, 1e-12);
  // Each GPU has its own NIC vertex (72 a node), none shared.
  EXPECT_NE(c.topology().nic_vertex(0), c.topology().nic_vertex(1));
  EXPECT_EQ(c.topology().nic_vertex(72) - c.topology().nic_vertex(0), 72);
  // SU uplink: 8 racks x 72 NICs x 50 GB/s / 1 = 28.8 TB/s; pod: 16 x 28.8 / 4 = 115.2 TB/s.
  EXPECT_DOUBLE_EQ(tier_uplink_Bps(p, 0), 8 * 72 * kNdrNic_Bps);
  EXPECT_DOUBLE_EQ(tier_uplink_Bps(p, 1), 16 * 8 * 72 * kNdrNic_Bps / 4);
  EXPECT_EQ(tier_capacity_nodes(p, 2), 8 * 16 * 4);  // 512 racks = 36864 GPUs
}

TEST(NewPresets, Gb200Nvl72LevelTableAcrossSusAndPods) {
  // 9 racks: one full SU of 8 and the first rack of the next, all in pod 0.
  const Cluster c(builtin_preset("gb200-nvl72"), 9);
  const LevelTable levels(c);
  EXPECT_EQ(levels.level(0, 71), 1);
  EXPECT_EQ(levels.level(0, 7 * 72), 2);      // rack 7: same SU
  EXPECT_EQ(levels.level(0, 8 * 72 + 5), 3);  // rack 8: the next SU, same pod
  EXPECT_EQ(c.level_name(3), "pod");
  EXPECT_EQ(c.route(0, 8 * 72 + 5).links.size(), 6u);
}

}  // namespace new_presets_test
}  // namespace shardsim
