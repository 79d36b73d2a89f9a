// Reported traffic of a pair matrix (sim/pair_traffic.hpp).
#include "sim/pair_traffic.hpp"

#include <algorithm>
#include <vector>

namespace shardsim {

namespace {

// The reported traffic of a matrix without a dense part (entry (a, b) = to[a] + from[b]): pairs
// inside a scale-up domain one by one, as the pair loop adds them; beyond it, per GPU and level,
// count x its own part + the others' parts summed per level (bytes of idle pairs are 0, so
// every pair can be counted); the unit matrix from per-unit sums. O(GPUs x domain GPUs +
// nodes^2 x levels + units^2), not O(GPUs^2); equal to the pair loop to rounding.
void add_structured(const PairMatrix& m, const LevelTable& levels, const MatrixUnits& units,
                    LevelTraffic& lt, ByteMatrix& matrix) {
  const int num_levels = lt.num_levels();
  const std::vector<double>& to = m.to_every_other();
  const std::vector<double>& from = m.from_every_other();
  for (const std::vector<int>& members : levels.domain_gpus()) {
    for (int a : members) {
      for (int b : members) {
        if (a == b) continue;
        const double bytes = m.at(a, b);
        if (bytes > 0) lt.add(a, b, 1, bytes);
      }
    }
  }
  const std::size_t nodes = levels.num_nodes();
  const auto ul = static_cast<std::size_t>(num_levels);
  std::vector<double> node_to(nodes, 0.0), node_from(nodes, 0.0), node_gpus(nodes, 0.0);
  for (std::size_t node = 0; node < nodes; ++node) {
    for (int g : levels.node_gpus()[node]) {
      node_to[node] += to[static_cast<std::size_t>(g)];
      node_from[node] += from[static_cast<std::size_t>(g)];
      node_gpus[node] += 1;
    }
  }
  std::vector<double> count(ul), to_sum(ul), from_sum(ul);  // per level, from one node
  for (std::size_t node = 0; node < nodes; ++node) {
    const std::vector<int>& gpus = levels.node_gpus()[node];
    if (gpus.empty()) continue;
    std::fill(count.begin(), count.end(), 0.0);
    std::fill(to_sum.begin(), to_sum.end(), 0.0);
    std::fill(from_sum.begin(), from_sum.end(), 0.0);
    const std::uint8_t* row = levels.row_of(gpus.front());
    for (std::size_t other = 0; other < nodes; ++other) {
      const std::size_t level = row[other];
      if (level < 2 || node_gpus[other] == 0) continue;
      count[level] += node_gpus[other];
      to_sum[level] += node_to[other];
      from_sum[level] += node_from[other];
    }
    for (int g : gpus) {
      const auto ug = static_cast<std::size_t>(g);
      for (std::size_t level = 2; level < ul; ++level) {
        if (count[level] == 0) continue;
        const double sent = count[level] * to[ug] + from_sum[level];
        const double received = to_sum[level] + count[level] * from[ug];
        if (sent > 0) lt.add_sent(g, static_cast<int>(level), sent);
        if (received > 0) lt.add_received(g, static_cast<int>(level), received);
      }
    }
  }
  if (units.count <= 0) return;
  const auto uc = static_cast<std::size_t>(units.count);
  std::vector<double> unit_to(uc, 0.0), unit_from(uc, 0.0), unit_gpus(uc, 0.0);
  for (std::size_t g = 0; g < to.size(); ++g) {
    const auto u = static_cast<std::size_t>(units.unit_of[g]);
    unit_to[u] += to[g];
    unit_from[u] += from[g];
    unit_gpus[u] += 1;
  }
  // Pairs (a in U, b in V, a != b): each a sends to[a] to the |V| GPUs of V (one fewer in its
  // own unit) and each b receives from[b] from the |U| GPUs of U (one fewer).
  for (std::size_t u = 0; u < uc; ++u) {
    for (std::size_t v = 0; v < uc; ++v) {
      const double targets = unit_gpus[v] - (u == v ? 1.0 : 0.0);
      const double sources = unit_gpus[u] - (u == v ? 1.0 : 0.0);
      if (targets <= 0 && sources <= 0) continue;
      matrix.at(static_cast<int>(u), static_cast<int>(v)) +=
          unit_to[u] * targets + unit_from[v] * sources;
    }
  }
}

}  // namespace

void add_pair_traffic(const PairMatrix& m, const LevelTable& levels, const MatrixUnits& units,
                      LevelTraffic& lt, ByteMatrix& matrix) {
  if (!m.has_dense_part()) {
    add_structured(m, levels, units, lt, matrix);
    return;
  }
  const int n = m.size();
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      const double bytes = m.at(a, b);
      if (bytes > 0) lt.add(a, b, levels.level(a, b), bytes);
      if (units.count > 0) {
        matrix.at(units.unit_of[static_cast<std::size_t>(a)],
                  units.unit_of[static_cast<std::size_t>(b)]) += bytes;
      }
    }
  }
}

}  // namespace shardsim
