#pragma once
// The reported traffic of a pair matrix (core/pair_matrix.hpp): each pair's bytes per GPU and
// level (LevelTraffic) and per matrix unit (the report's communication matrix). A matrix with a
// dense part is walked pair by pair; one of broadcast and gather parts only (every uniform
// one-sided plan's) from per-domain, per-level and per-unit sums, in O(GPUs x domain GPUs +
// nodes^2 + units^2), equal to the pair walk to rounding.
#include "shardsim/core/byte_matrix.hpp"
#include "shardsim/core/pair_matrix.hpp"
#include "shardsim/cost/level_traffic.hpp"
#include "shardsim/hw/level_table.hpp"
#include "shardsim/sim/comm_traffic.hpp"

namespace shardsim {

// Adds m's entries to `lt` and (when units.count > 0) to `matrix` (units.count squared).
void add_pair_traffic(const PairMatrix& m, const LevelTable& levels, const MatrixUnits& units,
                      LevelTraffic& lt, ByteMatrix& matrix);

}  // namespace shardsim
