#include "shardsim/metrics/report.hpp"

namespace shardsim {

std::optional<PruningReport> report_pruning(const DlrmModel& model) {
  PruningReport p;
  double kept_lookups = 0;
  double original_lookups = 0;
  for (const EmbeddingTable& t : model.tables) {
    const double lookups = t.pooling.expected();
    kept_lookups += lookups;
    if (t.pruning.original_rows == 0) {
      original_lookups += lookups;
      p.original_rows += t.rows;
      continue;
    }
    ++p.pruned_tables;
    p.original_rows += t.pruning.original_rows;
    p.pruned_rows += t.pruning.original_rows - t.rows;
    original_lookups += lookups / t.pruning.lookup_survival;
  }
  if (p.pruned_tables == 0) return std::nullopt;
  p.dropped_lookup_fraction = original_lookups > 0 ? 1.0 - kept_lookups / original_lookups : 0.0;
  return p;
}

}  // namespace shardsim
