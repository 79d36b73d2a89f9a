// describe_preset: the text of `shardsim hw show NAME`.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "shardsim/core/embedded_configs.hpp"
#include "shardsim/core/yaml_reader.hpp"
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
                               "scale-up            nvswitch",
                               "300 GB/s per GPU per direction",
                               "1 us per traversal",
                               "scale-out           8 NIC(s)",
                               "200 Gbit/s (25 GB/s) per NIC per direction",
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

// The `key=value` pairs `hw show` prints: from "cluster.overrides." to the end of each line, the
// key without that prefix.
std::vector<std::pair<std::string, std::string>> printed_overrides(const std::string& text) {
  const std::string prefix = "cluster.overrides.";
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto at = line.find(prefix);
    if (at == std::string::npos) continue;
    const std::string kv = line.substr(at + prefix.size());
    const auto eq = kv.find('=');
    EXPECT_NE(eq, std::string::npos) << line;
    if (eq != std::string::npos) out.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return out;
}

// `{a: {b: value}}` for the dotted key `a.b`, the value parsed as YAML (as `--set` parses it).
YAML::Node overrides_node(const std::string& key, const std::string& value) {
  YAML::Node root(YAML::NodeType::Map);
  YAML::Node leaf = YAML::Load(value);
  const auto dot = key.find('.');
  if (dot == std::string::npos) {
    root[key] = leaf;
  } else {
    YAML::Node inner(YAML::NodeType::Map);
    inner[key.substr(dot + 1)] = leaf;
    root[key.substr(0, dot)] = inner;
  }
  return root;
}

// Each printed key is one the override loader takes, and the printed value gives back the
// preset's own value: applying it alone leaves the whole description unchanged.
TEST(DescribePreset, EveryPrintedKeyAndValueIsAnOverrideThatChangesNothing) {
  for (const std::string& name : builtin_preset_names()) {
    const HardwarePreset p = builtin_preset(name);
    const std::string before = describe_preset(p);
    const auto pairs = printed_overrides(before);
    EXPECT_GE(pairs.size(), 20u) << name;
    for (const auto& [key, value] : pairs) {
      SCOPED_TRACE(name + ": " + key + "=" + value);
      const YAML::Node o = overrides_node(key, value);
      HardwarePreset after;
      ASSERT_NO_THROW(after = apply_preset_overrides(p, YamlValue(o, "s.yaml", "overrides")));
      EXPECT_EQ(describe_preset(after), before);
    }
  }
}

// The other way round: every key a preset file sets (all but its name and description) is
// printed, so no value is without its key. The tiers' keys print as one `tiers` list.
TEST(DescribePreset, EveryKeyOfAPresetFileIsPrinted) {
  for (const std::string& name : builtin_preset_names()) {
    std::set<std::string> printed;
    for (const auto& kv : printed_overrides(describe_preset(builtin_preset(name)))) {
      printed.insert(kv.first);
    }
    const YAML::Node doc =
        YAML::Load(std::string(*find_embedded_config("hardware/" + name + ".yaml")));
    for (const auto& top : doc) {
      const std::string key = top.first.as<std::string>();
      if (key == "name" || key == "description") continue;
      if (top.second.IsMap()) {
        for (const auto& sub : top.second) {
          const std::string full = key + "." + sub.first.as<std::string>();
          EXPECT_TRUE(printed.count(full)) << name << ": " << full;
        }
      } else {
        EXPECT_TRUE(printed.count(key)) << name << ": " << key;
      }
    }
  }
}

TEST(DescribePreset, PrintsTheOverrideKeyBesideTheValue) {
  const std::string s = describe_preset(builtin_preset("dgx-h100"));
  for (const char* expected : {
           "cluster.overrides.nic.bandwidth_Gbitps=400",
           "cluster.overrides.gpu.hbm_peak_GBps=3350",
           "cluster.overrides.gpu.peak_tf32_TFLOPps=494.5",
           "cluster.overrides.gpu.kernel_launch_us=4",
           "cluster.overrides.scale_out_layout=rail_optimized",
           "cluster.overrides.tiers=[{name: rack, fanout: 32, oversubscription: 1, "
           "latency_us: 0.25, load_balancing: adaptive}, ",
       }) {
    EXPECT_NE(s.find(expected), std::string::npos) << "missing '" << expected << "' in\n" << s;
  }
  // The key sits on the line of its value.
  std::istringstream in(s);
  std::string line;
  bool found = false;
  while (std::getline(in, line)) {
    if (line.find("cluster.overrides.gpu.hbm_achievable_GBps=2800") != std::string::npos) {
      found = line.find("2800 GB/s achievable") != std::string::npos;
    }
  }
  EXPECT_TRUE(found) << s;
}

}  // namespace
}  // namespace shardsim
