// The reserved HBM by part (`reserved_memory:`; docs/hardware.md "Reserved memory"): its total,
// its back-compatible plain form, overrides and bad input.
#include <gtest/gtest.h>

#include <string>

#include "hw_test_util.hpp"
#include "shardsim/hw/describe.hpp"
#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim::test {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The small preset (16 GiB of HBM) with its reserve given by part.
const std::string kParts =
    "reserved_memory:\n  cuda_context_GiB: 0.5\n  nccl_buffers_GiB: 0.25\n"
    "  allocator_fragmentation_fraction: 0.1\n";

std::string with_parts(const std::string& parts = kParts) {
  return replaced(kSmallPresetYaml, "reserved_memory_GiB: 1\n", parts);
}

HardwarePreset with_overrides(const HardwarePreset& base, const std::string& yaml) {
  return apply_preset_overrides(
      base, YamlValue(parse_yaml(yaml, "scenario.yaml"), "scenario.yaml", "cluster.overrides"));
}

TEST(ReservedMemory, PartsAddUpToTheTotal) {
  const HardwarePreset p = preset_from_yaml(with_parts());
  ASSERT_TRUE(p.reserved.decomposed);
  EXPECT_DOUBLE_EQ(p.reserved.cuda_context_bytes, 0.5 * kGiB);
  EXPECT_DOUBLE_EQ(p.reserved.nccl_buffers_bytes, 0.25 * kGiB);
  EXPECT_DOUBLE_EQ(p.reserved.allocator_fragmentation_fraction, 0.1);
  // 0.5 + 0.25 + 0.1 x 16 = 2.35 GiB.
  EXPECT_DOUBLE_EQ(p.reserved_memory_bytes, 2.35 * kGiB);
}

TEST(ReservedMemory, PlainTotalStillWorks) {
  const HardwarePreset p = preset_from_yaml(kSmallPresetYaml);
  EXPECT_FALSE(p.reserved.decomposed);
  EXPECT_DOUBLE_EQ(p.reserved_memory_bytes, 1 * kGiB);
}

TEST(ReservedMemory, ZionexReservesItsParts) {
  // configs/hardware/zionex.yaml: 1.0 + 1.57 + 0.03 x 40 = 3.77 GiB.
  const HardwarePreset p = builtin_preset("zionex");
  ASSERT_TRUE(p.reserved.decomposed);
  EXPECT_NEAR(p.reserved_memory_bytes, 3.77 * kGiB, 1.0);
}

TEST(ReservedMemory, FragmentationFollowsAnHbmOverride) {
  const HardwarePreset base = preset_from_yaml(with_parts());
  const HardwarePreset p = with_overrides(base, "gpu: {hbm_capacity_GiB: 32}\n");
  // 0.5 + 0.25 + 0.1 x 32 = 3.95 GiB.
  EXPECT_DOUBLE_EQ(p.reserved_memory_bytes, 3.95 * kGiB);
}

TEST(ReservedMemory, OverridesMergePartsOrReplaceThemWithATotal) {
  const HardwarePreset base = preset_from_yaml(with_parts());
  const HardwarePreset one = with_overrides(base, "reserved_memory: {nccl_buffers_GiB: 1.25}\n");
  // 0.5 + 1.25 + 1.6 = 3.35 GiB.
  EXPECT_DOUBLE_EQ(one.reserved_memory_bytes, 3.35 * kGiB);
  const HardwarePreset total = with_overrides(base, "reserved_memory_GiB: 0\n");
  EXPECT_FALSE(total.reserved.decomposed);
  EXPECT_DOUBLE_EQ(total.reserved_memory_bytes, 0);
  // A plain-total preset has no parts to merge into: an override must give all three.
  const HardwarePreset plain = preset_from_yaml(kSmallPresetYaml);
  const std::string msg = input_error_message(
      [&] { (void)with_overrides(plain, "reserved_memory: {cuda_context_GiB: 0.5}\n"); });
  EXPECT_NE(msg.find("nccl_buffers_GiB"), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing required key"), std::string::npos) << msg;
}

TEST(ReservedMemory, DescribeShowsTheParts) {
  const std::string text = describe_preset(preset_from_yaml(with_parts()));
  EXPECT_NE(text.find("2.35 GiB (usable 13.65 GiB), of which:"), std::string::npos) << text;
  EXPECT_NE(text.find("reserved_memory.cuda_context_GiB=0.5"), std::string::npos) << text;
  EXPECT_NE(text.find("reserved_memory.nccl_buffers_GiB=0.25"), std::string::npos) << text;
  EXPECT_NE(text.find("1.6 GiB (0.1 of HBM)"), std::string::npos) << text;
}

struct BadReserveCase {
  const char* label;
  const char* parts;     // replaces `reserved_memory_GiB: 1\n`
  const char* key;       // must appear in what()
  const char* fragment;  // must appear in what() too
};

class BadReserve : public ::testing::TestWithParam<BadReserveCase> {};

TEST_P(BadReserve, IsAnInputErrorNamingTheKey) {
  const BadReserveCase& c = GetParam();
  const std::string msg = input_error_message([&] { (void)preset_from_yaml(with_parts(c.parts)); });
  EXPECT_NE(msg.find(c.key), std::string::npos) << msg;
  EXPECT_NE(msg.find(c.fragment), std::string::npos) << msg;
  EXPECT_EQ(msg.rfind("test.yaml", 0), 0u) << "the message starts with the file: " << msg;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadReserve,
    ::testing::Values(
        BadReserveCase{"both_keys",
                       "reserved_memory_GiB: 1\nreserved_memory:\n  cuda_context_GiB: 0.5\n"
                       "  nccl_buffers_GiB: 0.25\n  allocator_fragmentation_fraction: 0.1\n",
                       "reserved_memory", "both reserved_memory and reserved_memory_GiB"},
        BadReserveCase{"neither_key", "", "reserved_memory", "missing required key"},
        BadReserveCase{"negative_context",
                       "reserved_memory:\n  cuda_context_GiB: -0.5\n  nccl_buffers_GiB: 0.25\n"
                       "  allocator_fragmentation_fraction: 0.1\n",
                       "reserved_memory.cuda_context_GiB", ">= 0"},
        BadReserveCase{"negative_nccl",
                       "reserved_memory:\n  cuda_context_GiB: 0.5\n  nccl_buffers_GiB: -1\n"
                       "  allocator_fragmentation_fraction: 0.1\n",
                       "reserved_memory.nccl_buffers_GiB", ">= 0"},
        BadReserveCase{"fraction_of_one",
                       "reserved_memory:\n  cuda_context_GiB: 0.5\n  nccl_buffers_GiB: 0.25\n"
                       "  allocator_fragmentation_fraction: 1\n",
                       "reserved_memory.allocator_fragmentation_fraction", "[0, 1)"},
        BadReserveCase{"missing_part",
                       "reserved_memory:\n  cuda_context_GiB: 0.5\n"
                       "  allocator_fragmentation_fraction: 0.1\n",
                       "nccl_buffers_GiB", "missing required key"},
        BadReserveCase{"unknown_part",
                       "reserved_memory:\n  cuda_context_GiB: 0.5\n  nccl_buffer_GiB: 0.25\n"
                       "  allocator_fragmentation_fraction: 0.1\n",
                       "reserved_memory.nccl_buffer_GiB", "did you mean 'nccl_buffers_GiB'"},
        BadReserveCase{"parts_leave_nothing",
                       "reserved_memory:\n  cuda_context_GiB: 8\n  nccl_buffers_GiB: 0.25\n"
                       "  allocator_fragmentation_fraction: 0.5\n",
                       "reserved_memory", "leaves nothing"}),
    [](const ::testing::TestParamInfo<BadReserveCase>& info) { return info.param.label; });

}  // namespace
}  // namespace shardsim::test
