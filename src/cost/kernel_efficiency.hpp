#pragma once
// The HBM efficiency of the embedding kernels (docs/model.md, "Embedding kernel efficiency"):
// the fraction of the GPU's achievable HBM bandwidth that one shard's bytes move at, and the
// factor of a fused kernel over several tables. Pure functions of (work, parameters); with the
// default parameters (configs/cost/default.yaml) every factor is exactly 1.
#include <cstddef>

#include "shardsim/cost/cost_params.hpp"
#include "shardsim/cost/kernel_cost.hpp"

namespace shardsim {

// η_shard = kernel_hbm_efficiency · η_dim · η_pool · η_distinct, in (0, 1]:
//   η_dim      = c / (c + kernel_dim_half_cols)               c = work.cols
//   η_pool     = P / (P + kernel_pooling_half)                P = lookups / pooled_outputs
//   η_distinct = 1 / (1 + kernel_distinct_penalty · D / L)    D = distinct rows, L = lookups
// A factor whose parameter is 0, or whose quantity is undefined (no lookups, no outputs), is 1.
double embedding_shard_efficiency(const EmbeddingWork& work, const CostParams& p);

// η_tables = T / (T + kernel_tables_half) for one kernel over `tables` shards with work; 1 when
// the parameter is 0 or there are no tables.
double embedding_fusion_efficiency(std::size_t tables, const CostParams& p);

}  // namespace shardsim
