#pragma once

namespace shardsim {

// One direction of a link: bandwidth in bytes per second and per-message latency (α).
struct LinkSpec {
  double bandwidth_Bps = 0;
  double latency_s = 0;
};

}  // namespace shardsim
