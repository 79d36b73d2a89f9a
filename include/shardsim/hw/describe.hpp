#pragma once
// Human-readable description of a hardware preset: what `shardsim hw show NAME` prints.
#include <string>

#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim {

// Every field with its unit (GiB, GB/s, Gbit/s, TFLOP/s, us), derived per-GPU figures, and one
// line per tier (fanout, oversubscription, latency, uplink bandwidth, capacity). Ends in '\n'.
std::string describe_preset(const HardwarePreset& preset);

}  // namespace shardsim
