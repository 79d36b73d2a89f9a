// Host-link transfer time (cost/host_link_cost.hpp).
#include "shardsim/cost/host_link_cost.hpp"

#include <algorithm>

namespace shardsim {

double host_link_s(double h2d_bytes, double d2h_bytes, const HostSpec& host) {
  const double bytes = std::max(h2d_bytes, d2h_bytes);
  if (!(bytes > 0)) return 0;
  return host.link.latency_s + bytes / host.link.bandwidth_Bps;
}

}  // namespace shardsim
