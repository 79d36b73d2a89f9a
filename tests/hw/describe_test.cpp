// describe_preset: the text of `shardsim hw show NAME`.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "shardsim/hw/describe.hpp"

namespace shardsim {
namespace {

int count_lines_starting_with(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) n += line.rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

// The H100 presets' MLP width half (docs/validation/kernels.md, "Narrow MLPs") and the A100
// ones' (the ridge-point rule, "A100"); a preset without one shows no line for it.
TEST(DescribePreset, ShowsTheMlpWidthHalfWhereThePresetHasOne) {
  const std::string h100 = describe_preset(builtin_preset("dgx-h100"));
  EXPECT_NE(h100.find("MLP width half      1420"), std::string::npos) << h100;
  const std::string a100 = describe_preset(builtin_preset("dgx-a100"));
  EXPECT_NE(a100.find("MLP width half      965"), std::string::npos) << a100;
  const std::string turing = describe_preset(builtin_preset("rtx2080ti-8"));
  EXPECT_EQ(turing.find("MLP width half"), std::string::npos) << turing;
}

TEST(DescribePreset, ShowsEveryFieldWithUnits) {
  const std::string s = describe_preset(builtin_preset("dgx-a100"));
  for (const char* expected : {"preset dgx-a100",
                               "configs/hardware/dgx-a100.yaml",
                               "GPU A100-SXM4-40GB",
                               "40 GiB",
                               "1555 GB/s peak",
                               "1300 GB/s achievable (83.6% of peak)",
                               "FP32           19.5 TFLOP/s",
                               "TF32           156 TFLOP/s",
                               "BF16           312 TFLOP/s",
                               "MLP efficiency      93.9% of peak",
                               "fp32              73.3% of peak",
                               "MLP batch half      319 samples",
                               "fp32              40 samples",
                               "MLP width half      965 features",
                               "fp32              121 features",
                               "kernel launch       5 us",
                               "L2 cache            40 MiB",
                               "reserved memory     3 GiB",
                               "node: 8 GPUs",
                               "nvswitch, 300 GB/s per GPU per direction, 1 us",
                               "8 NIC(s) x 200 Gbit/s (25 GB/s)",
                               "scale-out per GPU   200 Gbit/s"}) {
    EXPECT_NE(s.find(expected), std::string::npos) << "missing '" << expected << "' in\n" << s;
  }
  // One line per tier. Rack uplink: 20 nodes x 8 x 200 Gbit/s = 32000 Gbit/s.
  EXPECT_EQ(count_lines_starting_with(s, "  rack "), 1) << s;
  EXPECT_EQ(count_lines_starting_with(s, "  pod "), 1) << s;
  EXPECT_EQ(count_lines_starting_with(s, "  building "), 1) << s;
  EXPECT_NE(s.find("uplink 32000 Gbit/s (4000 GB/s), adaptive, rail-optimised (8 rail "
                   "switches a group)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("oversubscription 4:1"), std::string::npos) << s;
  EXPECT_NE(s.find("top tier (no uplink), capacity 1120 nodes = 8960 GPUs"), std::string::npos)
      << s;
  EXPECT_EQ(s.back(), '\n');
}

TEST(DescribePreset, NamesAHashedTierAndItsPorts) {
  // zionex's rack: 16 nodes x 8 NICs x 200 Gbit/s over 200 Gbit/s ports = 128 ports.
  const std::string s = describe_preset(builtin_preset("zionex"));
  EXPECT_NE(s.find("uplink 25600 Gbit/s (3200 GB/s), ECMP over 128 ports"), std::string::npos) << s;
  // Its frontend network (Neo Table 2), which only zionex describes.
  EXPECT_NE(s.find("frontend network    400 Gbit/s per node"), std::string::npos) << s;
  EXPECT_EQ(describe_preset(builtin_preset("dgx-a100")).find("frontend"), std::string::npos);
}

TEST(DescribePreset, MarksUnsupportedPrecisions) {
  const std::string s = describe_preset(builtin_preset("rtx2080ti-8"));
  EXPECT_NE(s.find("BF16           unsupported"), std::string::npos) << s;
  EXPECT_NE(s.find("pcie"), std::string::npos) << s;
}

TEST(DescribePreset, EveryBuiltinHasOneLinePerTier) {
  for (const std::string& name : builtin_preset_names()) {
    const HardwarePreset p = builtin_preset(name);
    const std::string s = describe_preset(p);
    for (const TierSpec& t : p.tiers) {
      EXPECT_EQ(count_lines_starting_with(s, "  " + t.name + " "), 1) << name << "\n" << s;
    }
  }
}

}  // namespace
}  // namespace shardsim
