#pragma once
// The embedding traffic of one iteration, as the reports see it: per GPU and topology level
// (always), and as a matrix between units of the hierarchy (GPUs while there are at most
// kCommMatrixMaxUnits of them, else nodes, else the groups of the lowest tier that fits), so a
// 4096-GPU cluster never needs a 134 MB N x N matrix.
#include <string>
#include <vector>

#include "shardsim/core/byte_matrix.hpp"
#include "shardsim/cost/level_traffic.hpp"
#include "shardsim/hw/cluster.hpp"

namespace shardsim {

inline constexpr int kCommMatrixMaxUnits = 1024;

// The finest unit of the hierarchy with at most kCommMatrixMaxUnits members, for reports.
struct MatrixUnits {
  std::string granularity;   // "gpu", "node", a tier name ("rack"), or "none"
  std::vector<int> unit_of;  // per GPU; empty for "none"
  int count = 0;
};
MatrixUnits comm_matrix_units(const Cluster& cluster, int max_units = kCommMatrixMaxUnits);

struct CommTraffic {
  LevelTraffic fwd;                 // pooled embeddings, per GPU per level (bytes per iteration)
  LevelTraffic bwd;                 // their gradients
  std::string granularity = "gpu";  // of the matrices, see MatrixUnits
  ByteMatrix fwd_matrix;            // unit i -> unit j (the diagonal of a coarse unit is traffic
  ByteMatrix bwd_matrix;            // inside it); empty when the granularity is "none"
};

}  // namespace shardsim
