// Ring shapes over GPU sets (see topology_terms.hpp).
#include "cost/topology_terms.hpp"

#include <algorithm>
#include <stdexcept>

namespace shardsim::cost_detail {

RingShape ring_shape(const Cluster& cluster, std::span<const int> gpus) {
  const int n = cluster.num_gpus();
  std::vector<int> ring(gpus.begin(), gpus.end());
  for (int g : ring) {
    if (g < 0 || g >= n) {
      throw std::invalid_argument(
          fmt::format("collective over GPU {} in a cluster of {} GPUs", g, n));
    }
  }
  std::sort(ring.begin(), ring.end());
  if (std::adjacent_find(ring.begin(), ring.end()) != ring.end()) {
    throw std::invalid_argument("collective lists the same GPU twice");
  }
  RingShape s;
  s.size = static_cast<int>(ring.size());
  if (s.size <= 1) {
    s.domains = s.size;
    s.min_gpus_per_domain = s.max_gpus_per_domain = s.size;
    return s;
  }
  for (int k = 0; k < s.size; ++k) {
    const int a = ring[static_cast<std::size_t>(k)];
    const int b = ring[static_cast<std::size_t>((k + 1) % s.size)];
    const int level = cluster.level_between(a, b);
    if (level > s.level) {
      s.level = level;
      s.far_src = a;
      s.far_dst = b;
    }
  }
  // GPUs per spanned domain. Domains are not assumed contiguous in id order, so count by id.
  std::vector<int> per_domain(static_cast<std::size_t>(cluster.num_scale_up_domains()), 0);
  std::vector<int> first_in_domain(per_domain.size(), -1);
  for (int g : ring) {
    const auto d = static_cast<std::size_t>(cluster.scale_up_domain_of(g));
    if (++per_domain[d] == 1) {
      first_in_domain[d] = g;
    } else if (s.local_src < 0) {
      s.local_src = first_in_domain[d];
      s.local_dst = g;
    }
  }
  s.min_gpus_per_domain = s.size;
  for (int c : per_domain) {
    if (c == 0) continue;
    ++s.domains;
    s.min_gpus_per_domain = std::min(s.min_gpus_per_domain, c);
    s.max_gpus_per_domain = std::max(s.max_gpus_per_domain, c);
  }
  return s;
}

}  // namespace shardsim::cost_detail
