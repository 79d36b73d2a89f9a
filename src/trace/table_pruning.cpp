#include "shardsim/trace/table_pruning.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "shardsim/model/validation.hpp"
#include "shardsim/trace/power_law_profile.hpp"

namespace shardsim {

std::uint64_t rows_kept_after_pruning(std::uint64_t rows, double fraction) {
  if (!std::isfinite(fraction) || fraction < 0 || fraction >= 1) {
    throw std::invalid_argument(fmt::format("prune fraction {} is not in [0, 1)", fraction));
  }
  const double removed = fraction * static_cast<double>(rows);
  const double nearest = std::round(removed);
  const double whole =
      std::abs(removed - nearest) <= 1e-9 * std::max(1.0, removed) ? nearest : std::floor(removed);
  const auto pruned = static_cast<std::uint64_t>(std::max(0.0, whole));
  return pruned >= rows ? 1 : rows - pruned;
}

EmbeddingTable prune_coldest_rows(const EmbeddingTable& table, double fraction) {
  const std::uint64_t kept = rows_kept_after_pruning(table.rows, fraction);
  if (table.pruning.original_rows != 0) {
    throw std::invalid_argument(fmt::format("table '{}' is already pruned", table.name));
  }
  if (auto p = check_table(table)) {
    throw std::invalid_argument(fmt::format("table '{}': {}: {}", table.name, p->key, p->problem));
  }
  if (fraction == 0) return table;

  EmbeddingTable out = table;
  out.pruning.fraction = fraction;
  out.pruning.original_rows = table.rows;
  out.pruning.original_heavy_hitters = table.heavy_hitters;
  out.pruning.original_keep = table.pooling.keep;
  const std::size_t heavy = table.heavy_hitters.size();
  double survival = 1;
  if (kept < table.rows) {
    if (kept <= heavy) {
      // Only heavy hitters remain: their own sum, exactly (they then sum to 1 on K rows).
      survival = 0;
      for (std::size_t i = 0; i < kept; ++i) survival += table.heavy_hitters[i];
      out.heavy_hitters.resize(kept);
    } else {
      // Rank space does not depend on the layout or the seed.
      const PowerLawProfile profile(table, HotRowLayout::clustered, 0);
      survival = profile.mass(RowRange{0, kept}, RowSpace::rank);
    }
    if (!(survival > 0)) {
      throw std::invalid_argument(
          fmt::format("table '{}': its {} hottest rows carry no lookups", table.name, kept));
    }
    out.rows = kept;
    for (double& h : out.heavy_hitters) h /= survival;
  }
  out.pruning.lookup_survival = survival;
  out.pooling.keep = table.pooling.keep * survival;
  return out;
}

EmbeddingTable unpruned_table(const EmbeddingTable& table) {
  if (table.pruning.original_rows == 0) return table;
  EmbeddingTable out = table;
  out.rows = table.pruning.original_rows;
  out.heavy_hitters = table.pruning.original_heavy_hitters;
  out.pooling.keep = table.pruning.original_keep;
  out.pruning = TablePruning{};
  out.pruning.fraction = table.pruning.fraction;
  return out;
}

}  // namespace shardsim
