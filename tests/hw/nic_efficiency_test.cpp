// `nic.efficiency` (docs/hardware.md): the share of the NIC line rate its links carry.
#include <gtest/gtest.h>

#include <string>

#include "hw/hw_test_util.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/hw/describe.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/hw/topology.hpp"

namespace shardsim {
namespace {

using test::input_error_message;
using test::kSmallPresetYaml;
using test::preset_from_yaml;
using test::replaced;

const std::string kWithEfficiency = replaced(kSmallPresetYaml, "  bandwidth_Gbitps: 100\n",
                                             "  bandwidth_Gbitps: 100\n  efficiency: 0.5\n");

TEST(NicEfficiency, DefaultsToTheLineRate) {
  const HardwarePreset p = preset_from_yaml(kSmallPresetYaml);
  EXPECT_DOUBLE_EQ(p.nic_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(Cluster(p, 2).scale_out_Bps_per_gpu(), 12.5e9 / 2);  // 2 GPUs share a NIC
}

TEST(NicEfficiency, ScalesTheNicLinksNotTheSwitches) {
  const HardwarePreset p = preset_from_yaml(kWithEfficiency);
  EXPECT_DOUBLE_EQ(p.nic_efficiency, 0.5);
  EXPECT_DOUBLE_EQ(p.nic.bandwidth_Bps, 12.5e9);  // the line rate is kept
  EXPECT_DOUBLE_EQ(Cluster(p, 2).scale_out_Bps_per_gpu(), 0.5 * 12.5e9 / 2);
  // The rack's uplink is the switch's: 2 nodes x 12.5e9 / 4, as without the efficiency.
  EXPECT_DOUBLE_EQ(tier_uplink_Bps(p, 0), 6.25e9);
  EXPECT_NE(describe_preset(p).find("nic.efficiency"), std::string::npos);
  EXPECT_EQ(describe_preset(preset_from_yaml(kSmallPresetYaml)).find("nic.efficiency"),
            std::string::npos);
}

TEST(NicEfficiency, ZionexCarriesAppBsFit) {
  // configs/hardware/zionex.yaml: 7 / 8.93 GB/s (Neo App. B; tests/cost/zionex_alltoall_test).
  EXPECT_DOUBLE_EQ(builtin_preset("zionex").nic_efficiency, 0.784);
  EXPECT_DOUBLE_EQ(builtin_preset("dgx-a100").nic_efficiency, 1.0);
}

TEST(NicEfficiency, OutsideZeroToOneIsAnErrorNamingTheKey) {
  for (const char* bad : {"0", "-0.5", "1.5"}) {
    const std::string yaml =
        replaced(kWithEfficiency, "efficiency: 0.5", std::string("efficiency: ") + bad);
    const std::string msg = input_error_message([&] { (void)preset_from_yaml(yaml); });
    EXPECT_NE(msg.find("nic.efficiency"), std::string::npos) << bad << ": " << msg;
  }
  const std::string typo = replaced(kWithEfficiency, "efficiency: 0.5", "eficiency: 0.5");
  const std::string msg = input_error_message([&] { (void)preset_from_yaml(typo); });
  EXPECT_NE(msg.find("did you mean 'efficiency'"), std::string::npos) << msg;
}

}  // namespace
}  // namespace shardsim
