// The embedding kernels' HBM efficiency (cost/kernel_efficiency.hpp, docs/model.md).
#include "cost/kernel_efficiency.hpp"

#include <algorithm>

namespace shardsim {

namespace {

// x / (x + half): 1 when the term is off (half = 0) or the quantity is not positive.
double saturating(double x, double half) {
  if (!(half > 0) || !(x > 0)) return 1.0;
  return x / (x + half);
}

}  // namespace

double embedding_shard_efficiency(const EmbeddingWork& work, const CostParams& p) {
  double eta = p.kernel_hbm_efficiency;
  eta *= saturating(static_cast<double>(work.cols), p.kernel_dim_half_cols);
  if (work.pooled_outputs > 0) {
    eta *= saturating(work.lookups / work.pooled_outputs, p.kernel_pooling_half);
  }
  if (p.kernel_distinct_penalty > 0 && work.lookups > 0) {
    const double distinct_per_lookup = std::clamp(work.distinct_rows / work.lookups, 0.0, 1.0);
    eta /= 1.0 + p.kernel_distinct_penalty * distinct_per_lookup;
  }
  return eta;
}

double embedding_fusion_efficiency(std::size_t tables, const CostParams& p) {
  return saturating(static_cast<double>(tables), p.kernel_tables_half);
}

}  // namespace shardsim
