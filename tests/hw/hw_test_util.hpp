#pragma once
// Helpers shared by the hw tests: small presets written out in YAML so that every number a test
// checks can be traced by hand.
#include <gtest/gtest.h>

#include <string>

#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim::test {

// A small, complete preset. Hand numbers used by the tests:
//   NIC 100 Gbit/s = 12.5e9 B/s; 2 GPUs per node share 1 NIC.
//   rack: 2 nodes, 4:1  -> rack uplink = 2 x 12.5e9 / 4 = 6.25e9 B/s
//   pod:  4 racks, 2:1  -> pod uplink  = 4 x 6.25e9 / 2 = 12.5e9 B/s
//   building: top, capacity 2 pods = 16 nodes = 32 GPUs
//   latencies (per traversal): NVSwitch 1 us, NIC 1 us, rack 0.5 us, pod 2 us, building 4 us
inline const char* const kSmallPresetYaml = R"(name: small
description: a test preset
gpu:
  name: TestGPU
  hbm_capacity_GiB: 16
  hbm_peak_GBps: 1000
  hbm_achievable_GBps: 800
  peak_fp32_TFLOPps: 10
  peak_tf32_TFLOPps: 80
  peak_fp16_TFLOPps: 160
  peak_bf16_TFLOPps: 150
  mlp_efficiency: 0.7
  kernel_launch_us: 5
  l2_MiB: 8
gpus_per_node: 2
scale_up_kind: nvswitch
scale_up:
  bandwidth_GBps: 200
  latency_us: 1
scale_up_domain_nodes: 1
nics_per_node: 1
nic:
  bandwidth_Gbitps: 100
  latency_us: 1
tiers:
  - name: rack
    fanout: 2
    oversubscription: 4
    latency_us: 0.5
  - name: pod
    fanout: 4
    oversubscription: 2
    latency_us: 2
  - name: building
    fanout: 2
    oversubscription: 1
    latency_us: 4
reserved_memory_GiB: 1
)";

inline HardwarePreset preset_from_yaml(const std::string& text,
                                       const std::string& file = "test.yaml") {
  return parse_hardware_preset(YamlValue(parse_yaml(text, file), file, ""));
}

// `text` with the single occurrence of `from` replaced by `to` (fails the test otherwise).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << "'" << from << "' not in the base text";
  if (pos == std::string::npos) return text;
  EXPECT_EQ(text.find(from, pos + 1), std::string::npos) << "'" << from << "' is not unique";
  return text.replace(pos, from.size(), to);
}

// The message of the InputError `f` throws; fails the test if it throws nothing or another type.
template <class F>
std::string input_error_message(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected InputError, got: " << e.what();
    return {};
  }
  ADD_FAILURE() << "expected InputError, nothing was thrown";
  return {};
}

}  // namespace shardsim::test
