#pragma once
// `neuroshard`: NeuroShard's online search (seed 002, §3.3, Algorithms 1-2; released code
// daochenzha/neuroshard), column-wise halving by beam search around a greedy grid search over
// table placement, with the project's cost model (or a full simulation) in place of the
// pre-trained neural cost models. docs/planners.md, "neuroshard".
#include <optional>
#include <string>
#include <vector>

#include "plan/neuroshard/beam_search.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim::neuroshard {

enum class Backend { analytic, simulation };

struct NeuroShardOptions {
  BeamOptions beam;  // N, K, L, M (the paper's 10, 3, 10, 11)
  Backend backend = Backend::analytic;
  bool cache = true;                    // Table 3's "w/o caching" when false
  std::optional<double> time_budget_s;  // return the best plan so far after this long
  double headroom = 0;                  // fraction of HBM kept free
  // Where `backend` was given (for the error when no evaluator is available).
  SourceLocation backend_where;
};

struct NeuroShardResult {
  Plan plan;
  SearchResult search;
  std::uint64_t cache_queries = 0;
  std::uint64_t cache_hits = 0;
  std::string backend;
};

// Raises DoesNotFitError when the tables cannot fit the GPUs together (the pre-sharding
// filter) or when no column plan the search reaches can be placed.
NeuroShardResult neuroshard_plan_detailed(const PlanningContext& ctx, const NeuroShardOptions& o);

}  // namespace shardsim::neuroshard
