// Reported traffic of a pair matrix (sim/pair_traffic.hpp): broadcast and gather parts summed
// per domain, level and unit give what the pair-by-pair walk of the same entries gives.
#include "sim/pair_traffic.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim {
namespace {

void expect_close(double a, double b, const std::string& what) {
  EXPECT_NEAR(a, b, 1e-12 * std::abs(b) + 1e-9) << what;
}

TEST(PairTraffic, PartsEqualThePairWalk) {
  HardwarePreset domains = builtin_preset("dgx-h100");
  domains.scale_up_domain_nodes = 2;
  const std::vector<std::pair<HardwarePreset, int>> fabrics = {{builtin_preset("dgx-h100"), 6},
                                                               {builtin_preset("dgx-2"), 3},
                                                               {builtin_preset("hpc-a100x4"), 4},
                                                               {domains, 8}};
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> amount(0.0, 1e6);
  for (const auto& [preset, nodes] : fabrics) {
    const Cluster cluster(preset, nodes);
    const LevelTable levels(cluster);
    const int n = cluster.num_gpus();
    for (const int max_units : {n, nodes, 2}) {
      const MatrixUnits units = comm_matrix_units(cluster, max_units);
      PairMatrix parts(n);
      for (int g = 0; g < n; ++g) {
        const auto kind = rng() % 4;  // idle, sender, gatherer, both
        if (kind == 1 || kind == 3) parts.add_to_every_other(g, amount(rng));
        if (kind == 2 || kind == 3) parts.add_from_every_other(g, amount(rng));
      }
      ByteMatrix entries(n);
      for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) entries.at(a, b) = parts.at(a, b);
      }
      const PairMatrix dense(std::move(entries));
      LevelTraffic fast(cluster), walk(cluster);
      ByteMatrix fast_matrix(units.count), walk_matrix(units.count);
      add_pair_traffic(parts, levels, units, fast, fast_matrix);
      add_pair_traffic(dense, levels, units, walk, walk_matrix);
      const std::string where =
          preset.name + " x " + std::to_string(nodes) + ", " + units.granularity + " units";
      for (int g = 0; g < n; ++g) {
        for (int level = 1; level < cluster.num_levels(); ++level) {
          expect_close(fast.sent(g, level), walk.sent(g, level), where + " sent");
          expect_close(fast.received(g, level), walk.received(g, level), where + " received");
        }
      }
      if (walk.has_domain_pairs()) {
        for (int a = 0; a < n; ++a) {
          for (int b = 0; b < n; ++b) {
            if (levels.level(a, b) == 1) {
              EXPECT_EQ(fast.domain_pair(a, b), walk.domain_pair(a, b)) << where;
            }
          }
        }
      }
      for (int u = 0; u < units.count; ++u) {
        for (int v = 0; v < units.count; ++v) {
          expect_close(fast_matrix.at(u, v), walk_matrix.at(u, v), where + " matrix");
        }
      }
    }
  }
}

}  // namespace
}  // namespace shardsim
