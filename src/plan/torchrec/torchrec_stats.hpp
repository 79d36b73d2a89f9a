#pragma once
// TorchRec's "Planner Statistics" (EmbeddingStats in torchrec/distributed/planner/stats.py at
// pytorch/torchrec@a48cef79) for the plan `torchrec` chose: its per-rank table (HBM, DDR, Perf
// with its breakdown, Input, Output, Shards), its imbalance measures (DDR's when a rank holds
// DDR) and its max/mean lines, in
// TorchRec's own estimates and rounding (docs/planners.md, "torchrec"). The rank table shows
// every rank up to 16, else the first 8 and the last 4 (shardsim's own stats convention).
#include <span>
#include <string>
#include <vector>

#include "plan/torchrec/torchrec_planner.hpp"

namespace shardsim::torchrec {

// stats.py's imbalance measures of a distribution x over k ranks (p = x / Σx), each from 0
// (even) to 1 (everything on one rank):
//   total variation  max_i |p_i − 1/k|
//   total distance   Σ_i |p_i − 1/k|
//   chi divergence   Σ_i k·(p_i − 1/k)² / (((k−1)/k)²·k + (k−1)/k)
//   KL divergence    Σ_{p_i>0} p_i·ln(k·p_i) / ln k
struct Imbalance {
  double total_variation = 0;
  double total_distance = 0;
  double chi_divergence = 0;
  double kl_divergence = 0;
};
Imbalance imbalance(std::span<const double> x);

// The statistics as text lines (no trailing newlines).
std::vector<std::string> stats_lines(const TorchrecResult& result);

}  // namespace shardsim::torchrec
