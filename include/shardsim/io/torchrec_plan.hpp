#pragma once
// TorchRec's ShardingPlan in shardsim (docs/python.md, "TorchRec"): a file of format
// `shardsim-torchrec-1` (scripts/torchrec_export.py writes one; the Python module makes one from
// TorchRec's objects) read as a Plan, and a Plan written in TorchRec's vocabulary.
//
//   {"format": "shardsim-torchrec-1",
//    "world_size": 16,                                      (optional: checked)
//    "model": {...},                                        (optional: for scenarios; ignored here)
//    "tables": {"t0": {"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0, 1],
//                      "shards": [{"rank": 0, "offset": [0, 0], "size": [500, 64]}, ...]}}}
//
// sharding_type: data_parallel, table_wise, column_wise, table_column_wise, row_wise,
// table_row_wise (TorchRec's ShardingType values); compute_kernel: dense, fused, fused_uvm,
// fused_uvm_caching (EmbeddingComputeKernel). A shard is TorchRec's ShardMetadata: offset and
// size as [rows, columns], on `rank`. A data-parallel table has no shards: a replica on each of
// its ranks.
#include <nlohmann/json.hpp>
#include <string>

#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/plan/plan.hpp"

namespace shardsim {

inline constexpr const char* kTorchrecPlanFormatTag = "shardsim-torchrec-1";

// The cache of a fused_uvm_caching shard holds this fraction of its rows unless the table says
// otherwise (`cache_load_factor`): TorchRec's default (CacheParams.load_factor, 0.2).
inline constexpr double kTorchrecDefaultCacheLoadFactor = 0.2;

// Reads and checks the plan: every table of the model once, known types and kernels, ranks in
// the cluster, shards inside their table that cover it exactly once (no overlap, no gap). A bad
// plan is an InputError naming the table, the shard and what is wrong.
Plan read_torchrec_plan(const YamlValue& root, const DlrmModel& model, const Cluster& cluster);

// `plan` as TorchRec's ShardingPlan of the model's tables (the "tables" object above), each
// table's sharding type and kernel inferred from its shards. A plan TorchRec cannot express
// (popularity-rank rows, a table split by rows and columns at once, replicas of part of a table,
// row shards across hosts on only some GPUs, 2D groups, one-sided lookups) is an InputError
// saying which table and why.
nlohmann::ordered_json torchrec_plan_json(const Plan& plan, const DlrmModel& model,
                                          const Cluster& cluster);

}  // namespace shardsim
