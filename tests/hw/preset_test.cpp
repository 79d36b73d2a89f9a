// Hardware presets: built-ins, paper numbers, units, overrides and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "hw/hw_test_util.hpp"
#include "shardsim/core/embedded_configs.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/hw/topology.hpp"

namespace shardsim {
namespace {

using test::input_error_message;
using test::kSmallPresetYaml;
using test::preset_from_yaml;
using test::replaced;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

TEST(BuiltinPresets, NamesAreTheFilesSorted) {
  const std::vector<std::string> names = builtin_preset_names();
  const std::vector<std::string> expected = {"dgx-2",      "dgx-a100",    "dgx-h100",
                                             "hpc-a100x4", "rtx2080ti-8", "zionex"};
  for (const auto& n : expected) {
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

TEST(BuiltinPresets, EveryOneLoadsValidatesAndBuildsACluster) {
  for (const std::string& name : builtin_preset_names()) {
    SCOPED_TRACE(name);
    const HardwarePreset p = builtin_preset(name);
    EXPECT_EQ(p.name, name);  // the name inside the file matches the file name
    EXPECT_EQ(p.source_file, "configs/hardware/" + name + ".yaml");
    EXPECT_FALSE(p.description.empty());
    EXPECT_NO_THROW(validate_hardware_preset(p));
    EXPECT_LE(p.gpu.hbm_achievable_Bps, p.gpu.hbm_peak_Bps);
    EXPECT_GT(p.gpu.hbm_capacity_bytes, p.reserved_memory_bytes);
    const Cluster c(p, 2 * p.scale_up_domain_nodes);
    EXPECT_EQ(c.num_gpus(), 2 * p.scale_up_domain_nodes * p.gpus_per_node);
  }
}

// "Every number gets a comment with its source": each `key: number` line of a built-in preset
// carries a comment.
TEST(BuiltinPresets, EveryNumberHasACommentWithItsSource) {
  const std::regex number_line(R"(^\s*(- )?\s*[A-Za-z0-9_]+:\s*-?[0-9][0-9.eE+-]*\s*(#.*)?$)");
  int checked = 0;
  for (const std::string& name : builtin_preset_names()) {
    const auto text = find_embedded_config("hardware/" + name + ".yaml");
    ASSERT_TRUE(text.has_value()) << name;
    std::istringstream in{std::string(*text)};
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
      ++line_no;
      if (!std::regex_match(line, number_line)) continue;
      ++checked;
      EXPECT_NE(line.find('#'), std::string::npos)
          << name << ".yaml:" << line_no << ": a number without a source comment: " << line;
    }
  }
  EXPECT_GT(checked, 5 * 20);  // the regex did match the numeric lines
}

// OPER §6.1 (8 x A100 40 GB, NVSwitch), Neo App. B (1300 GB/s, 70.5%), Neo Table 2 (2.4 TB/s
// scale-up per node = 300 GB/s per GPU), 200 Gbit/s RoCE NIC per GPU (Neo §8.1, AdaEmbed §6.1).
TEST(BuiltinPresets, DgxA100MatchesThePapers) {
  const HardwarePreset p = builtin_preset("dgx-a100");
  EXPECT_EQ(p.gpus_per_node, 8);
  EXPECT_DOUBLE_EQ(p.gpu.hbm_capacity_bytes, 40 * kGiB);
  EXPECT_DOUBLE_EQ(p.gpu.hbm_peak_Bps, 1555e9);
  EXPECT_DOUBLE_EQ(p.gpu.hbm_achievable_Bps, 1300e9);
  // Neo App. B's "up to 70.5%" at App. A's largest batch and layer (A100MlpFigures... below).
  EXPECT_NEAR(p.gpu.mlp_efficiency * 4096 / (4096 + p.gpu.mlp_batch_half) * 4096 /
                  (4096 + p.gpu.mlp_width_half),
              0.705, 5e-4);
  EXPECT_DOUBLE_EQ(p.gpu.peak_fp32_flops, 19.5e12);
  EXPECT_DOUBLE_EQ(p.gpu.peak_tf32_flops, 156e12);
  EXPECT_DOUBLE_EQ(p.gpu.peak_fp16_flops, 312e12);
  EXPECT_DOUBLE_EQ(p.gpu.peak_bf16_flops, 312e12);
  EXPECT_DOUBLE_EQ(p.gpu.l2_bytes, 40.0 * 1024 * 1024);  // Neo App. A: 40 MB L2
  EXPECT_EQ(p.scale_up_kind, "nvswitch");
  EXPECT_DOUBLE_EQ(p.scale_up.bandwidth_Bps * p.gpus_per_node, 2.4e12);
  EXPECT_EQ(p.scale_up_domain_nodes, 1);
  EXPECT_EQ(p.nics_per_node, 8);
  EXPECT_DOUBLE_EQ(p.nic.bandwidth_Bps, 200e9 / 8);  // 25 GB/s
  EXPECT_GE(p.tiers.size(), 1u);
}

// Neo Table 2, per node: 320 GB HBM at 12.4 TB/s, 2.4 TB/s scale-up, 1600 Gbit/s scale-out.
TEST(BuiltinPresets, ZionexMatchesNeoTable2) {
  const HardwarePreset p = builtin_preset("zionex");
  EXPECT_EQ(p.gpus_per_node, 8);
  EXPECT_DOUBLE_EQ(p.gpus_per_node * p.gpu.hbm_capacity_bytes, 320 * kGiB);
  EXPECT_NEAR(p.gpus_per_node * p.gpu.hbm_peak_Bps, 12.4e12, 0.01 * 12.4e12);
  EXPECT_DOUBLE_EQ(p.gpus_per_node * p.scale_up.bandwidth_Bps, 2.4e12);
  EXPECT_DOUBLE_EQ(p.nics_per_node * p.nic.bandwidth_Bps * 8, 1600e9);
  EXPECT_DOUBLE_EQ(p.gpu.hbm_achievable_Bps, 1300e9);
  EXPECT_NEAR(p.gpu.mlp_efficiency * 4096 / (4096 + p.gpu.mlp_batch_half) * 4096 /
                  (4096 + p.gpu.mlp_width_half),
              0.705, 5e-4);
}

TEST(BuiltinPresets, OtherPresetsHaveTheirDefiningNumbers) {
  const HardwarePreset h100 = builtin_preset("dgx-h100");
  EXPECT_DOUBLE_EQ(h100.gpu.hbm_capacity_bytes, 80 * kGiB);
  EXPECT_DOUBLE_EQ(h100.scale_up.bandwidth_Bps, 450e9);  // NVLink4: 900 GB/s bidirectional
  EXPECT_DOUBLE_EQ(h100.nic.bandwidth_Bps, 400e9 / 8);
  EXPECT_EQ(h100.nics_per_node, 8);
  // MLP efficiencies, batch half and width half fitted to an H100 SXM5
  // (docs/validation/kernels.md, "MLPs", "Narrow MLPs").
  EXPECT_DOUBLE_EQ(h100.gpu.mlp_efficiency_for(Precision::tf32), 0.879);
  EXPECT_DOUBLE_EQ(h100.gpu.mlp_efficiency_for(Precision::bf16), 0.957);
  EXPECT_DOUBLE_EQ(h100.gpu.mlp_efficiency_for(Precision::fp16), 0.971);
  EXPECT_DOUBLE_EQ(h100.gpu.mlp_efficiency_for(Precision::fp32), 0.767);  // CUDA cores
  EXPECT_DOUBLE_EQ(h100.gpu.mlp_batch_half, 470);
  EXPECT_DOUBLE_EQ(h100.gpu.mlp_width_half, 1420);
  EXPECT_DOUBLE_EQ(h100.gpu.mlp_width_factor(1420, Precision::tf32), 0.5);
  EXPECT_DOUBLE_EQ(h100.gpu.mlp_width_factor(1420, Precision::bf16), 0.5);
  EXPECT_DOUBLE_EQ(h100.gpu.mlp_width_half_for(Precision::fp32), 168);  // CUDA cores: measured
  // The A100 presets' width half is the H100's by the ridge-point rule (965 on the 40 GB card;
  // A100MlpFigures... below); Turing's preset has none.
  EXPECT_DOUBLE_EQ(builtin_preset("dgx-a100").gpu.mlp_width_factor(965, Precision::tf32), 0.5);
  EXPECT_DOUBLE_EQ(builtin_preset("rtx2080ti-8").gpu.mlp_width_factor(64, Precision::fp32), 1.0);
  EXPECT_DOUBLE_EQ(h100.gpu.mlp_batch_half_for(Precision::fp32), 104);  // measured

  const HardwarePreset hpc = builtin_preset("hpc-a100x4");  // OPER §6.1 multi-node platform
  EXPECT_EQ(hpc.gpus_per_node, 4);
  EXPECT_EQ(hpc.scale_up_kind, "nvlink");
  EXPECT_DOUBLE_EQ(hpc.gpu.hbm_capacity_bytes, 40 * kGiB);

  const HardwarePreset rtx = builtin_preset("rtx2080ti-8");  // NeuroShard App. F
  EXPECT_EQ(rtx.gpus_per_node, 8);
  EXPECT_EQ(rtx.scale_up_kind, "pcie");
  EXPECT_DOUBLE_EQ(rtx.gpu.hbm_capacity_bytes, 11 * kGiB);
}

TEST(PresetParsing, ConvertsHumanUnitsToSi) {
  const HardwarePreset p = preset_from_yaml(kSmallPresetYaml);
  EXPECT_EQ(p.name, "small");
  EXPECT_EQ(p.description, "a test preset");
  EXPECT_EQ(p.source_file, "test.yaml");
  EXPECT_EQ(p.gpu.name, "TestGPU");
  EXPECT_DOUBLE_EQ(p.gpu.hbm_capacity_bytes, 16 * kGiB);  // 16 GiB = 17179869184 B
  EXPECT_DOUBLE_EQ(p.gpu.hbm_peak_Bps, 1000e9);           // GB/s -> B/s
  EXPECT_DOUBLE_EQ(p.gpu.hbm_achievable_Bps, 800e9);
  EXPECT_DOUBLE_EQ(p.gpu.peak_fp32_flops, 10e12);  // TFLOP/s -> FLOP/s
  EXPECT_DOUBLE_EQ(p.gpu.peak_bf16_flops, 150e12);
  EXPECT_DOUBLE_EQ(p.gpu.kernel_launch_s, 5e-6);        // us -> s
  EXPECT_DOUBLE_EQ(p.gpu.l2_bytes, 8.0 * 1024 * 1024);  // MiB -> B
  EXPECT_DOUBLE_EQ(p.scale_up.bandwidth_Bps, 200e9);
  EXPECT_DOUBLE_EQ(p.scale_up.latency_s, 1e-6);
  EXPECT_DOUBLE_EQ(p.nic.bandwidth_Bps, 12.5e9);  // 100 Gbit/s / 8
  ASSERT_EQ(p.tiers.size(), 3u);
  EXPECT_EQ(p.tiers[1].name, "pod");
  EXPECT_EQ(p.tiers[1].fanout, 4);
  EXPECT_DOUBLE_EQ(p.tiers[1].oversubscription, 2);
  EXPECT_DOUBLE_EQ(p.tiers[1].latency_s, 2e-6);
  EXPECT_DOUBLE_EQ(p.reserved_memory_bytes, 1 * kGiB);
}

TEST(PresetParsing, ScaleUpDomainNodesIsOptionalAndDefaultsToOne) {
  const HardwarePreset p =
      preset_from_yaml(replaced(kSmallPresetYaml, "scale_up_domain_nodes: 1\n", ""));
  EXPECT_EQ(p.scale_up_domain_nodes, 1);
}

TEST(PresetParsing, LoadBalancingAndPortRateAreOptional) {
  const HardwarePreset plain = preset_from_yaml(kSmallPresetYaml);
  EXPECT_EQ(plain.tiers[0].load_balancing, LoadBalancing::adaptive);
  EXPECT_EQ(plain.tiers[0].port_Bps, 0);
  // Rack uplink: 2 nodes x 1 NIC x 100 Gbit/s / 4 = 50 Gbit/s: one 100 Gbit/s port (at least 1).
  EXPECT_EQ(tier_uplink_ports(plain, 0), 1);
  // Pod uplink: 4 x 50 / 2 = 100 Gbit/s.
  EXPECT_EQ(tier_uplink_ports(plain, 1), 1);
  const HardwarePreset hashed = preset_from_yaml(
      replaced(kSmallPresetYaml, "    latency_us: 2\n",
               "    latency_us: 2\n    load_balancing: ecmp\n    port_Gbitps: 25\n"));
  EXPECT_EQ(hashed.tiers[0].load_balancing, LoadBalancing::adaptive);
  EXPECT_EQ(hashed.tiers[1].load_balancing, LoadBalancing::ecmp);
  EXPECT_DOUBLE_EQ(hashed.tiers[1].port_Bps, 25e9 / 8);
  EXPECT_EQ(tier_uplink_ports(hashed, 1), 4);  // 100 Gbit/s over 25 Gbit/s ports
}

// congestion_loss (docs/hardware.md, "Congestion"): the tier's uplinks deliver what other traffic
// leaves; the tiers above are sized on the built rate and the ECMP ports stay the built ones.
TEST(PresetParsing, CongestionLossTakesItsShareOfTheTiersUplinks) {
  const HardwarePreset p = preset_from_yaml(replaced(
      kSmallPresetYaml, "    latency_us: 2\n", "    latency_us: 2\n    congestion_loss: 0.75\n"));
  EXPECT_DOUBLE_EQ(p.tiers[1].congestion_loss, 0.75);
  EXPECT_DOUBLE_EQ(tier_uplink_Bps(p, 0), 6.25e9);              // rack: unchanged
  EXPECT_DOUBLE_EQ(tier_uplink_Bps(p, 1), 4 * 6.25e9 / 2 / 4);  // pod: a quarter of 12.5e9
  EXPECT_EQ(tier_uplink_ports(p, 1), 1);
  // GPU 0 -> GPU 4 stays in pod 0 (the rack uplink, 6.25e9); GPU 1 -> GPU 17 crosses the pod
  // uplinks, now the bottleneck (ClusterRoute in cluster_test.cpp for the idle fabric).
  const Cluster c(p, 16);
  EXPECT_DOUBLE_EQ(c.route(0, 4).bottleneck_Bps, 6.25e9);
  EXPECT_DOUBLE_EQ(c.route(1, 17).bottleneck_Bps, 3.125e9);
  EXPECT_EQ(preset_from_yaml(kSmallPresetYaml).tiers[1].congestion_loss, 0);
}

TEST(GpuSpec, PeakFlopsPerPrecision) {
  const HardwarePreset p = preset_from_yaml(kSmallPresetYaml);
  EXPECT_DOUBLE_EQ(p.gpu.peak_flops(Precision::fp32), 10e12);
  EXPECT_DOUBLE_EQ(p.gpu.peak_flops(Precision::tf32), 80e12);
  EXPECT_DOUBLE_EQ(p.gpu.peak_flops(Precision::fp16), 160e12);
  EXPECT_DOUBLE_EQ(p.gpu.peak_flops(Precision::bf16), 150e12);
}

// The small preset with `gpu_lines` (indented keys under `gpu:`) after its mlp_efficiency.
HardwarePreset small_preset_with(const std::string& gpu_lines) {
  std::string yaml = kSmallPresetYaml;
  const std::string at = "  mlp_efficiency: 0.7\n";
  yaml.replace(yaml.find(at), at.size(), at + gpu_lines);
  return preset_from_yaml(yaml);
}

// A precision's own MLP efficiency where the preset gives one, mlp_efficiency otherwise.
TEST(GpuSpec, MlpEfficiencyPerPrecisionFallsBackToTheCommonOne) {
  const HardwarePreset p = preset_from_yaml(kSmallPresetYaml);
  for (Precision x : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16}) {
    EXPECT_DOUBLE_EQ(p.gpu.mlp_efficiency_for(x), 0.7) << to_string(x);
  }
  const HardwarePreset q = small_preset_with("  mlp_efficiency_bf16: 0.6\n");
  EXPECT_DOUBLE_EQ(q.gpu.mlp_efficiency_for(Precision::bf16), 0.6);
  EXPECT_DOUBLE_EQ(q.gpu.mlp_efficiency_for(Precision::fp16), 0.7);
  EXPECT_DOUBLE_EQ(q.gpu.mlp_efficiency_for(Precision::tf32), 0.7);
}

// A precision's own batch half where the preset gives one, mlp_batch_half otherwise.
TEST(GpuSpec, MlpBatchHalfPerPrecisionFallsBackToTheCommonOne) {
  const HardwarePreset q = small_preset_with("  mlp_batch_half: 300\n  mlp_batch_half_fp32: 40\n");
  EXPECT_DOUBLE_EQ(q.gpu.mlp_batch_half_for(Precision::fp32), 40);
  EXPECT_DOUBLE_EQ(q.gpu.mlp_batch_half_for(Precision::tf32), 300);
  EXPECT_DOUBLE_EQ(q.gpu.mlp_batch_half_for(Precision::bf16), 300);
  EXPECT_DOUBLE_EQ(preset_from_yaml(kSmallPresetYaml).gpu.mlp_batch_half_for(Precision::fp32), 0);
}

// The A100 presets' MLP figures are GUESSes derived by one rule (docs/validation/kernels.md,
// "A100"): the H100's fitted batch half (470) and width half (1420), both at TF32 / BF16 / FP16
// alike, scaled by the roofline ridge point, bytes per element x peak FLOP/s / peak HBM
// bandwidth, and the efficiency that puts Neo App. B's "up to 70.5%" at App. A's largest
// benchmark batch and layer, 4096 and 4096, on its 40 GB card. The test holds the four presets
// to the rule, so that an edit of one number without the others fails.
TEST(BuiltinPresets, A100MlpFiguresFollowTheH100ByTheRidgePoint) {
  const GpuSpec h100 = builtin_preset("dgx-h100").gpu;
  const double h100_ridge = 4 * h100.peak_tf32_flops / h100.hbm_peak_Bps;
  EXPECT_NEAR(2 * h100.peak_bf16_flops / h100.hbm_peak_Bps, h100_ridge, 1e-3 * h100_ridge);
  for (const char* name : {"dgx-a100", "zionex", "hpc-a100x4", "aws-p4de"}) {
    const GpuSpec a = builtin_preset(name).gpu;
    for (Precision p : {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16}) {
      const double bytes = (p == Precision::fp16 || p == Precision::bf16) ? 2 : 4;
      const double ridge = bytes * a.peak_flops(p) / a.hbm_peak_Bps;
      const double expected = h100.mlp_batch_half * ridge / h100_ridge;
      EXPECT_NEAR(a.mlp_batch_half_for(p), expected, 0.5) << name << " " << to_string(p);
      const double expected_width = h100.mlp_width_half * ridge / h100_ridge;
      EXPECT_NEAR(a.mlp_width_half_for(p), expected_width, 0.5) << name << " " << to_string(p);
    }
    // The 40 GB card's halves put 70.5% at batch 4096 and width 4096 (the 80 GB card keeps its
    // efficiencies).
    for (Precision p : {Precision::fp32, Precision::tf32}) {
      const double scale_40gb = 4 * a.peak_flops(p) / 1555e9 / h100_ridge;  // ridge / H100 ridge
      const double b_half_40gb = std::round(h100.mlp_batch_half * scale_40gb);
      const double w_half_40gb = std::round(h100.mlp_width_half * scale_40gb);
      EXPECT_NEAR(
          a.mlp_efficiency_for(p) * 4096 / (4096 + b_half_40gb) * 4096 / (4096 + w_half_40gb),
          0.705, 5e-4)
          << name << " " << to_string(p);
    }
  }
}

// The V100 (dgx-2): MLP figures fitted to DeepBench's V100 GEMMs (judged by
// MlpV100Validation), TF32 the same as FP32 (Volta has none), BF16 unsupported; HBM as Neo App. B
// measured it.
TEST(BuiltinPresets, V100RunsTf32AsFp32AndHasNoBf16) {
  const GpuSpec v = builtin_preset("dgx-2").gpu;
  EXPECT_DOUBLE_EQ(v.hbm_achievable_Bps, 850e9);  // Neo App. B
  EXPECT_DOUBLE_EQ(v.peak_flops(Precision::tf32), v.peak_flops(Precision::fp32));
  EXPECT_DOUBLE_EQ(v.mlp_efficiency_for(Precision::tf32), v.mlp_efficiency_for(Precision::fp32));
  EXPECT_DOUBLE_EQ(v.mlp_batch_half_for(Precision::tf32), v.mlp_batch_half_for(Precision::fp32));
  EXPECT_DOUBLE_EQ(v.mlp_width_half_for(Precision::tf32), v.mlp_width_half_for(Precision::fp32));
  // The tensor cores' figures are their own (FP16), not FP32's.
  EXPECT_NE(v.mlp_width_half_for(Precision::fp16), v.mlp_width_half_for(Precision::fp32));
  EXPECT_THROW((void)v.peak_flops(Precision::bf16), InputError);
}

TEST(GpuSpec, UnsupportedPrecisionIsAnInputError) {
  const HardwarePreset rtx = builtin_preset("rtx2080ti-8");
  // Turing: TF32 runs as FP32; BF16 does not exist (0 in the preset).
  EXPECT_DOUBLE_EQ(rtx.gpu.peak_flops(Precision::tf32), rtx.gpu.peak_flops(Precision::fp32));
  const std::string msg = input_error_message([&] { (void)rtx.gpu.peak_flops(Precision::bf16); });
  EXPECT_NE(msg.find("gpu.peak_bf16_TFLOPps"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bf16"), std::string::npos) << msg;
}

// One bad edit of the small preset, and the key (and message part) the error must name.
struct BadPresetCase {
  const char* label;
  const char* from;
  const char* to;
  const char* key;       // must appear in what()
  const char* fragment;  // must appear in what() too
};

class BadPreset : public ::testing::TestWithParam<BadPresetCase> {};

TEST_P(BadPreset, IsAnInputErrorNamingTheKey) {
  const BadPresetCase& c = GetParam();
  const std::string text = replaced(kSmallPresetYaml, c.from, c.to);
  const std::string msg = input_error_message([&] { (void)preset_from_yaml(text); });
  EXPECT_NE(msg.find(c.key), std::string::npos) << msg;
  EXPECT_NE(msg.find(c.fragment), std::string::npos) << msg;
  EXPECT_EQ(msg.rfind("test.yaml", 0), 0u) << "the message starts with the file: " << msg;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadPreset,
    ::testing::Values(
        BadPresetCase{"unknown_key_did_you_mean", "hbm_capacity_GiB: 16", "hbm_capacty_GiB: 16",
                      "gpu.hbm_capacty_GiB", "did you mean 'hbm_capacity_GiB'"},
        BadPresetCase{"unknown_top_key", "nics_per_node: 1", "nic_per_node: 1", "nic_per_node",
                      "did you mean 'nics_per_node'"},
        BadPresetCase{"negative_bandwidth", "bandwidth_Gbitps: 100", "bandwidth_Gbitps: -100",
                      "nic.bandwidth_Gbitps", "positive"},
        BadPresetCase{"zero_scale_up_bandwidth", "bandwidth_GBps: 200", "bandwidth_GBps: 0",
                      "scale_up.bandwidth_GBps", "positive"},
        BadPresetCase{"missing_key", "gpus_per_node: 2\n", "", "gpus_per_node",
                      "missing required key"},
        BadPresetCase{"missing_gpu_key", "  l2_MiB: 8\n", "", "gpu.l2_MiB", "missing required key"},
        BadPresetCase{"not_a_number", "hbm_peak_GBps: 1000", "hbm_peak_GBps: fast",
                      "gpu.hbm_peak_GBps", "expected a number"},
        BadPresetCase{"achievable_above_peak", "hbm_achievable_GBps: 800",
                      "hbm_achievable_GBps: 1200", "gpu.hbm_achievable_GBps", "exceeds the peak"},
        BadPresetCase{"efficiency_above_one", "mlp_efficiency: 0.7", "mlp_efficiency: 70",
                      "gpu.mlp_efficiency", "(0, 1]"},
        BadPresetCase{"precision_efficiency_above_one", "mlp_efficiency: 0.7",
                      "mlp_efficiency: 0.7\n  mlp_efficiency_tf32: 55", "gpu.mlp_efficiency_tf32",
                      "(0, 1]"},
        BadPresetCase{"precision_efficiency_zero", "mlp_efficiency: 0.7",
                      "mlp_efficiency: 0.7\n  mlp_efficiency_fp16: 0", "gpu.mlp_efficiency_fp16",
                      "positive"},
        BadPresetCase{"negative_batch_half", "mlp_efficiency: 0.7",
                      "mlp_efficiency: 0.7\n  mlp_batch_half: -5", "gpu.mlp_batch_half", ">= 0"},
        BadPresetCase{"negative_width_half", "mlp_efficiency: 0.7",
                      "mlp_efficiency: 0.7\n  mlp_width_half: -1", "gpu.mlp_width_half", ">= 0"},
        BadPresetCase{"precision_width_half_zero", "mlp_efficiency: 0.7",
                      "mlp_efficiency: 0.7\n  mlp_width_half_fp32: 0", "gpu.mlp_width_half_fp32",
                      "positive"},
        BadPresetCase{"precision_batch_half_zero", "mlp_efficiency: 0.7",
                      "mlp_efficiency: 0.7\n  mlp_batch_half_tf32: 0", "gpu.mlp_batch_half_tf32",
                      "positive"},
        BadPresetCase{"precision_efficiency_typo", "mlp_efficiency: 0.7",
                      "mlp_efficiency: 0.7\n  mlp_efficiency_bf61: 0.6", "gpu.mlp_efficiency_bf61",
                      "did you mean 'mlp_efficiency_bf16'"},
        BadPresetCase{"zero_gpus", "gpus_per_node: 2", "gpus_per_node: 0", "gpus_per_node",
                      "positive integer"},
        BadPresetCase{"fractional_gpus", "gpus_per_node: 2", "gpus_per_node: 2.5", "gpus_per_node",
                      "integer"},
        BadPresetCase{"scale_up_kind_typo", "scale_up_kind: nvswitch", "scale_up_kind: nvswich",
                      "scale_up_kind", "did you mean 'nvswitch'"},
        BadPresetCase{"nics_not_shared_evenly", "nics_per_node: 1", "nics_per_node: 3",
                      "nics_per_node", "shared evenly"},
        BadPresetCase{"oversubscription_below_one", "oversubscription: 4", "oversubscription: 0.5",
                      "tiers[0].oversubscription", ">= 1"},
        BadPresetCase{"zero_fanout", "fanout: 4", "fanout: 0", "tiers[1].fanout",
                      "positive integer"},
        BadPresetCase{"duplicate_tier_name", "name: pod", "name: rack", "tiers[1].name",
                      "used twice"},
        BadPresetCase{"reserved_tier_name", "name: building", "name: nic", "tiers[2].name",
                      "reserved"},
        BadPresetCase{"unknown_tier_key", "latency_us: 0.5", "latency_s: 0.5", "tiers[0].latency_s",
                      "did you mean 'latency_us'"},
        BadPresetCase{"reserved_memory_too_large", "reserved_memory_GiB: 1",
                      "reserved_memory_GiB: 16", "reserved_memory_GiB", "leaves nothing"},
        BadPresetCase{"negative_latency", "latency_us: 2", "latency_us: -2", "tiers[1].latency_us",
                      ">= 0"},
        BadPresetCase{"load_balancing_typo", "latency_us: 2\n",
                      "latency_us: 2\n    load_balancing: ecm\n", "tiers[1].load_balancing",
                      "did you mean 'ecmp'"},
        BadPresetCase{"zero_port_rate", "latency_us: 2\n", "latency_us: 2\n    port_Gbitps: 0\n",
                      "tiers[1].port_Gbitps", "positive"},
        BadPresetCase{"congestion_loss_of_one", "latency_us: 2\n",
                      "latency_us: 2\n    congestion_loss: 1\n", "tiers[1].congestion_loss",
                      "[0, 1)"},
        BadPresetCase{"congestion_loss_on_the_top_tier", "latency_us: 4\n",
                      "latency_us: 4\n    congestion_loss: 0.2\n", "tiers[2].congestion_loss",
                      "top tier"}),
    [](const ::testing::TestParamInfo<BadPresetCase>& info) { return info.param.label; });

TEST(BadPresetCrossField, MultiHostDomainNeedsNvswitch) {
  const std::string text =
      replaced(replaced(kSmallPresetYaml, "scale_up_domain_nodes: 1", "scale_up_domain_nodes: 2"),
               "scale_up_kind: nvswitch", "scale_up_kind: pcie");
  const std::string msg = input_error_message([&] { (void)preset_from_yaml(text); });
  EXPECT_NE(msg.find("scale_up_domain_nodes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nvswitch"), std::string::npos) << msg;
}

TEST(BadPresetCrossField, LargeNvlinkMeshIsRejected) {
  const std::string text =
      replaced(replaced(kSmallPresetYaml, "gpus_per_node: 2", "gpus_per_node: 32"),
               "scale_up_kind: nvswitch", "scale_up_kind: nvlink");
  const std::string msg = input_error_message([&] { (void)preset_from_yaml(text); });
  EXPECT_NE(msg.find("scale_up_kind"), std::string::npos) << msg;
  EXPECT_NE(msg.find("mesh"), std::string::npos) << msg;
}

TEST(BadPresetCrossField, EmptyTierListIsRejected) {
  std::string text = kSmallPresetYaml;
  text = text.substr(0, text.find("tiers:")) + "tiers: []\nreserved_memory_GiB: 1\n";
  const std::string msg = input_error_message([&] { (void)preset_from_yaml(text); });
  EXPECT_NE(msg.find("key 'tiers'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("at least one tier"), std::string::npos) << msg;
}

TEST(BadPresetCrossField, ErrorCarriesTheLineOfTheOffendingKey) {
  // hbm_achievable_GBps is on line 7 of the small preset.
  const std::string text =
      replaced(kSmallPresetYaml, "hbm_achievable_GBps: 800", "hbm_achievable_GBps: 5000");
  try {
    (void)preset_from_yaml(text);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "test.yaml");
    EXPECT_EQ(e.where().line, 7);
    EXPECT_EQ(e.key(), "gpu.hbm_achievable_GBps");
    EXPECT_FALSE(e.hint().empty());
  }
}

TEST(BuiltinPresetLookup, UnknownNameSuggestsTheClosest) {
  const std::string msg = input_error_message([] {
    (void)builtin_preset("dgx-a10", SourceLocation{"scenario.yaml", 3, 11});
  });
  EXPECT_NE(msg.find("cluster.preset"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'dgx-a100'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("scenario.yaml:3:11"), std::string::npos) << msg;
  EXPECT_NE(msg.find("zionex"), std::string::npos) << "lists the built-ins: " << msg;

  const std::string far = input_error_message([] { (void)builtin_preset("tpu-v5", {}, "x.y"); });
  EXPECT_NE(far.find("key 'x.y'"), std::string::npos) << far;
  EXPECT_EQ(far.find("did you mean"), std::string::npos) << far;
}

TEST(PresetFile, LoadsLikeTheBuiltIn) {
  const std::string path = std::string(SHARDSIM_SOURCE_DIR) + "/configs/hardware/dgx-h100.yaml";
  const HardwarePreset from_file = load_hardware_preset_file(path);
  const HardwarePreset builtin = builtin_preset("dgx-h100");
  EXPECT_EQ(from_file.source_file, path);
  EXPECT_EQ(from_file.name, builtin.name);
  EXPECT_DOUBLE_EQ(from_file.gpu.hbm_achievable_Bps, builtin.gpu.hbm_achievable_Bps);
  EXPECT_EQ(from_file.tiers.size(), builtin.tiers.size());

  const std::string msg =
      input_error_message([] { (void)load_hardware_preset_file("/nonexistent/preset.yaml"); });
  EXPECT_NE(msg.find("/nonexistent/preset.yaml"), std::string::npos) << msg;
}

HardwarePreset with_overrides(const HardwarePreset& base, const std::string& yaml) {
  return apply_preset_overrides(
      base, YamlValue(parse_yaml(yaml, "scenario.yaml"), "scenario.yaml", "cluster.overrides"));
}

TEST(PresetOverrides, MergeAnySubsetOfKeys) {
  const HardwarePreset base = builtin_preset("dgx-a100");
  const HardwarePreset p = with_overrides(
      base, "gpu: {hbm_capacity_GiB: 80, mlp_efficiency: 0.6}\nnic: {bandwidth_Gbitps: 400}\n");
  EXPECT_DOUBLE_EQ(p.gpu.hbm_capacity_bytes, 80 * kGiB);
  EXPECT_DOUBLE_EQ(p.gpu.mlp_efficiency, 0.6);
  EXPECT_DOUBLE_EQ(p.nic.bandwidth_Bps, 50e9);
  // Untouched keys keep the preset's values, including siblings inside overridden maps.
  EXPECT_DOUBLE_EQ(p.nic.latency_s, base.nic.latency_s);
  EXPECT_DOUBLE_EQ(p.gpu.hbm_achievable_Bps, base.gpu.hbm_achievable_Bps);
  EXPECT_EQ(p.gpu.name, base.gpu.name);
  EXPECT_EQ(p.tiers.size(), base.tiers.size());
  EXPECT_EQ(p.name, base.name);
  // A precision's own efficiency can be overridden like any other key.
  const HardwarePreset h =
      with_overrides(builtin_preset("dgx-h100"), "gpu: {mlp_efficiency_bf16: 0.5}\n");
  EXPECT_DOUBLE_EQ(h.gpu.mlp_efficiency_for(Precision::bf16), 0.5);
  EXPECT_DOUBLE_EQ(h.gpu.mlp_efficiency_for(Precision::fp16), 0.971);
}

TEST(PresetOverrides, TiersListReplacesTheWholeList) {
  const HardwarePreset p =
      with_overrides(builtin_preset("dgx-a100"),
                     "tiers:\n  - {name: rack, fanout: 64, oversubscription: 2, latency_us: 1}\n");
  ASSERT_EQ(p.tiers.size(), 1u);
  EXPECT_EQ(p.tiers[0].fanout, 64);
  EXPECT_DOUBLE_EQ(p.tiers[0].oversubscription, 2);
}

TEST(PresetOverrides, MultiHostScaleUpDomain) {
  const HardwarePreset p = with_overrides(builtin_preset("dgx-h100"),
                                          "scale_up_domain_nodes: 9\ngpus_per_node: 4\n"
                                          "nics_per_node: 4\n");
  EXPECT_EQ(p.scale_up_domain_nodes, 9);
  EXPECT_EQ(p.gpus_per_node, 4);
}

TEST(PresetOverrides, NullOverridesChangeNothing) {
  const HardwarePreset base = builtin_preset("zionex");
  const HardwarePreset p = with_overrides(base, "~");
  EXPECT_EQ(p.name, base.name);
  EXPECT_DOUBLE_EQ(p.gpu.hbm_peak_Bps, base.gpu.hbm_peak_Bps);
}

TEST(PresetOverrides, BadOverridesNameTheFullKey) {
  const HardwarePreset base = builtin_preset("dgx-a100");
  const std::string typo =
      input_error_message([&] { (void)with_overrides(base, "gpu: {hbm_capacity_GB: 80}\n"); });
  EXPECT_NE(typo.find("cluster.overrides.gpu.hbm_capacity_GB"), std::string::npos) << typo;
  EXPECT_NE(typo.find("did you mean 'hbm_capacity_GiB'"), std::string::npos) << typo;

  // Valid alone, inconsistent with the preset's achievable 1300 GB/s.
  const std::string cross =
      input_error_message([&] { (void)with_overrides(base, "gpu: {hbm_peak_GBps: 1000}\n"); });
  EXPECT_NE(cross.find("cluster.overrides.gpu.hbm_achievable_GBps"), std::string::npos) << cross;
  EXPECT_NE(cross.find("scenario.yaml:1"), std::string::npos) << cross;

  const std::string negative =
      input_error_message([&] { (void)with_overrides(base, "scale_up: {latency_us: -1}\n"); });
  EXPECT_NE(negative.find("cluster.overrides.scale_up.latency_us"), std::string::npos) << negative;

  const std::string not_a_map =
      input_error_message([&] { (void)with_overrides(base, "[1, 2]\n"); });
  EXPECT_NE(not_a_map.find("cluster.overrides"), std::string::npos) << not_a_map;
}

TEST(PresetValidation, PresetsBuiltInCodeAreCheckedToo) {
  HardwarePreset p = preset_from_yaml(kSmallPresetYaml);
  p.nic.bandwidth_Bps = -1;
  std::string msg = input_error_message([&] { validate_hardware_preset(p); });
  EXPECT_NE(msg.find("nic.bandwidth_Gbitps"), std::string::npos) << msg;
  // The Cluster constructor validates as well.
  msg = input_error_message([&] { Cluster c(p, 1); });
  EXPECT_NE(msg.find("nic.bandwidth_Gbitps"), std::string::npos) << msg;

  HardwarePreset q = preset_from_yaml(kSmallPresetYaml);
  q.tiers.clear();
  msg = input_error_message([&] { validate_hardware_preset(q); });
  EXPECT_NE(msg.find("tiers"), std::string::npos) << msg;

  HardwarePreset r = preset_from_yaml(kSmallPresetYaml);
  r.gpu.mlp_efficiency = std::numeric_limits<double>::quiet_NaN();
  msg = input_error_message([&] { validate_hardware_preset(r); });
  EXPECT_NE(msg.find("gpu.mlp_efficiency"), std::string::npos) << msg;
}

}  // namespace
}  // namespace shardsim

namespace shardsim {
namespace preset_host_test {

TEST(PresetHost, BuiltInPresetsDescribeTheirHost) {
  const HardwarePreset h100 = builtin_preset("dgx-h100");
  ASSERT_TRUE(h100.host.present());
  EXPECT_DOUBLE_EQ(h100.host.memory_bytes_per_node, 2048.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(h100.host.link.bandwidth_Bps, 50e9);
  EXPECT_DOUBLE_EQ(builtin_preset("dgx-a100").host.link.bandwidth_Bps, 25e9);
  EXPECT_FALSE(builtin_preset("rtx2080ti-8").host.present());
}

TEST(PresetHost, OverridesAndBadValues) {
  YAML::Node o = YAML::Load("host: {memory_GiB: 512}");
  const HardwarePreset p =
      apply_preset_overrides(builtin_preset("dgx-a100"), YamlValue(o, "s.yaml", "overrides"));
  EXPECT_DOUBLE_EQ(p.host.memory_bytes_per_node, 512.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(p.host.link.bandwidth_Bps, 25e9);  // kept
  // A preset without a host: a link alone is an error naming host.memory_GiB.
  YAML::Node link_only = YAML::Load("host: {link_GBps: 10}");
  try {
    apply_preset_overrides(builtin_preset("rtx2080ti-8"),
                           YamlValue(link_only, "s.yaml", "overrides"));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("host.memory_GiB"), std::string::npos) << e.what();
  }
  YAML::Node bad = YAML::Load("host: {memory_GiB: 512, link_GBps: 0}");
  EXPECT_THROW(apply_preset_overrides(builtin_preset("dgx-a100"), YamlValue(bad, "s.yaml", "o")),
               InputError);
  YAML::Node typo = YAML::Load("host: {memory_GB: 512}");
  EXPECT_THROW(apply_preset_overrides(builtin_preset("dgx-a100"), YamlValue(typo, "s.yaml", "o")),
               InputError);
}

TEST(PresetHost, FrontendNetworkIsOptionalAndNeedsAHost) {
  // Neo Table 2: ZionEX's "Host NW" is 4 x 100 Gbps per node; no other preset gives one.
  EXPECT_DOUBLE_EQ(builtin_preset("zionex").host.frontend_Bps, 400e9 / 8);
  for (const std::string& name : builtin_preset_names()) {
    EXPECT_EQ(builtin_preset(name).host.delivers_inputs(), name == "zionex") << name;
  }
  YAML::Node o = YAML::Load("host: {frontend_Gbitps: 100}");
  const HardwarePreset p =
      apply_preset_overrides(builtin_preset("dgx-a100"), YamlValue(o, "s.yaml", "overrides"));
  EXPECT_DOUBLE_EQ(p.host.frontend_Bps, 12.5e9);
  EXPECT_DOUBLE_EQ(p.host.link.bandwidth_Bps, 25e9);  // kept
  // Without a host the inputs have no link to cross after the frontend: an error naming the key.
  const std::string msg = test::input_error_message([&] {
    apply_preset_overrides(builtin_preset("rtx2080ti-8"), YamlValue(o, "s.yaml", "overrides"));
  });
  EXPECT_NE(msg.find("host.frontend_Gbitps"), std::string::npos) << msg;
  YAML::Node zero = YAML::Load("host: {frontend_Gbitps: 0}");
  EXPECT_THROW(apply_preset_overrides(builtin_preset("dgx-a100"), YamlValue(zero, "s.yaml", "o")),
               InputError);
}

}  // namespace preset_host_test

namespace preset_protocol_test {

TEST(PresetNcclProtocol, OnlyP4deForcesSimpleAndOverridesMayChangeIt) {
  // aws-ofi-nccl sets NCCL_PROTO=simple on p4d/p4de (configs/hardware/aws-p4de.yaml).
  for (const std::string& name : builtin_preset_names()) {
    EXPECT_EQ(builtin_preset(name).network_forces_simple_protocol, name == "aws-p4de") << name;
  }
  YAML::Node on = YAML::Load("nccl_protocol: simple");
  EXPECT_TRUE(apply_preset_overrides(builtin_preset("dgx-h100"), YamlValue(on, "s.yaml", "o"))
                  .network_forces_simple_protocol);
  YAML::Node off = YAML::Load("nccl_protocol: auto");
  EXPECT_FALSE(apply_preset_overrides(builtin_preset("aws-p4de"), YamlValue(off, "s.yaml", "o"))
                   .network_forces_simple_protocol);
  // Only Simple is known to be forced by a plugin: other values are refused, naming the key.
  YAML::Node ll = YAML::Load("nccl_protocol: ll");
  try {
    apply_preset_overrides(builtin_preset("dgx-h100"), YamlValue(ll, "s.yaml", "overrides"));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nccl_protocol"), std::string::npos) << e.what();
  }
}

}  // namespace preset_protocol_test
}  // namespace shardsim
