#pragma once
// Topology terms shared by the collective formulas (internal to src/cost/): link rates with a
// check, the route latency of a level, and the shape of a ring over a set of GPUs.
#include <fmt/format.h>

#include <cmath>
#include <span>
#include <string_view>
#include <vector>

#include "shardsim/core/error.hpp"
#include "shardsim/hw/cluster.hpp"

namespace shardsim::cost_detail {

// A per-direction link rate that a formula divides bytes by. Zero (a preset without that link)
// with bytes to move is bad hardware input, reported against the preset.
inline double require_link_rate(double rate_Bps, std::string_view what, const Cluster& cluster) {
  if (!(rate_Bps > 0) || !std::isfinite(rate_Bps)) {
    throw InputError(SourceLocation{cluster.preset().source_file, 0, 0}, std::string(what),
                     fmt::format("preset '{}' gives no usable bandwidth here ({} B/s), but a "
                                 "collective needs to move bytes over it",
                                 cluster.preset().name, rate_Bps),
                     "give the link a positive bandwidth in the hardware preset");
  }
  return rate_Bps;
}

// A ring over a set of GPUs in ascending id order (closing back to the first): the farthest
// level any hop crosses, one hop at that level (for its route latency), and the domains.
struct RingShape {
  int size = 0;
  int level = 0;  // 0 for a single GPU
  int far_src = -1;
  int far_dst = -1;
  int domains = 0;              // scale-up domains the GPUs span
  int min_gpus_per_domain = 0;  // over the spanned domains
  int max_gpus_per_domain = 0;
  int local_src = -1;  // a pair inside one domain (level 1), if any
  int local_dst = -1;
};

// Validates `gpus` (valid, distinct ids: std::invalid_argument otherwise) and describes the ring.
RingShape ring_shape(const Cluster& cluster, std::span<const int> gpus);

// Route latency between two GPUs (the α of their level); 0 for an invalid pair (-1).
inline double route_latency_s(const Cluster& cluster, int src, int dst) {
  if (src < 0 || dst < 0 || src == dst) return 0;
  return cluster.route(src, dst).latency_s;
}

}  // namespace shardsim::cost_detail
