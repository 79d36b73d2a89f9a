#pragma once
// Time on a GPU's link to host memory (PCIe; HardwarePreset::host), for shards kept in host
// memory (docs/model.md, "Memory tiers"). Pure function. The link is full duplex: reads
// (host -> GPU) and writes (GPU -> host) of one kernel overlap, and the slower direction sets
// the time, plus one link latency when anything moves. No bytes cost nothing.
#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim {

double host_link_s(double h2d_bytes, double d2h_bytes, const HostSpec& host);

}  // namespace shardsim
