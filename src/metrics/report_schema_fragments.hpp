#pragma once
// metrics-private. The JSON Schema fragments of the report schema's structured fields (arrays and
// objects whose inner layout io/ writes), as JSON text: `shardsim schema report` embeds them.
#include <string_view>

namespace shardsim::report_schema_fragments {

// JSON Schema fragments of the structured fields (their inner layout is written by io/).
inline constexpr std::string_view kBreakdownSchema = R"json({
  "type": ["object", "null"],
  "description": "per phase of the critical GPU's iteration (means per measured iteration): serialized s, exposed s (the exposed times add up to the iteration time) and, of the exposed time, s waiting for a collective's peers",
  "additionalProperties": {"type": "object", "required": ["serialized", "exposed", "waiting"],
    "properties": {"serialized": {"type": ["number", "null"]}, "exposed": {"type": ["number", "null"]}, "waiting": {"type": ["number", "null"]}}}
})json";
inline constexpr std::string_view kPhaseMaxSchema = R"json({
  "type": ["object", "null"],
  "description": "per phase, the largest time any GPU spent in it per iteration (max s), that GPU's exposed and waiting s",
  "additionalProperties": {"type": "object", "required": ["max", "exposed", "waiting"],
    "properties": {"max": {"type": ["number", "null"]}, "exposed": {"type": ["number", "null"]}, "waiting": {"type": ["number", "null"]}}}
})json";
inline constexpr std::string_view kLinksSchema = R"json({
  "type": ["array", "null"],
  "description": "per class of links: directed links, mean and max utilisation of achievable bandwidth over the measured iterations, and the busiest link",
  "items": {"type": "object", "required": ["class", "links", "mean_utilization", "max_utilization", "busiest_link"],
    "properties": {"class": {"type": "string"}, "links": {"type": "integer"},
      "mean_utilization": {"type": ["number", "null"]}, "max_utilization": {"type": ["number", "null"]},
      "busiest_link": {"type": ["string", "null"]}}}
})json";
inline constexpr std::string_view kTimesSchema = R"json({
  "type": ["array", "null"], "description": "each measured iteration's time, s",
  "items": {"type": ["number", "null"]}
})json";
inline constexpr std::string_view kMemoryPerGpuSchema = R"json({
  "type": "array", "description": "each GPU's memory, bytes", "items": {"type": ["number", "null"]}
})json";
inline constexpr std::string_view kBalanceSchema = R"json({
  "type": "object",
  "description": "spread over GPUs (min, mean, max, max - min, max / mean, the GPUs of the extremes) of memory bytes, lookups and communication bytes (sent + received)",
  "required": ["memory_bytes", "lookups", "comm_bytes"],
  "properties": {"memory_bytes": {"$ref": "#/$defs/spread"}, "lookups": {"$ref": "#/$defs/spread"},
    "comm_bytes": {"$ref": "#/$defs/spread"}}
})json";
inline constexpr std::string_view kPerGpuSchema =
    R"json({"type": "array", "description": "one object per GPU (the per-GPU fields below)",
  "items": {"$ref": "#/$defs/gpu"}})json";
inline constexpr std::string_view kGroupsSchema = R"json({
  "type": "array",
  "description": "2D sparse-parallel groups (empty without groups): group, num_gpus, first_gpu, lookup_max_s, lookup_mean_s, imbalance_ratio, memory_max_bytes, memory_mean_bytes, lookups, comm_sent_bytes, sync_s (timings null when not simulated)",
  "items": {"type": "object",
    "required": ["group", "num_gpus", "first_gpu", "lookup_max_s", "lookup_mean_s", "imbalance_ratio", "memory_max_bytes", "memory_mean_bytes", "lookups", "comm_sent_bytes", "sync_s"],
    "properties": {"group": {"type": "integer"}, "num_gpus": {"type": "integer"}, "first_gpu": {"type": "integer"},
      "lookup_max_s": {"type": ["number", "null"]}, "lookup_mean_s": {"type": ["number", "null"]},
      "imbalance_ratio": {"type": ["number", "null"]}, "memory_max_bytes": {"type": ["number", "null"]},
      "memory_mean_bytes": {"type": ["number", "null"]}, "lookups": {"type": ["number", "null"]},
      "comm_sent_bytes": {"type": ["number", "null"]}, "sync_s": {"type": ["number", "null"]}}}
})json";
inline constexpr std::string_view kReplicaSyncSchema = R"json({
  "type": ["object", "null"],
  "description": "2D replica synchronisation (null without two or more groups): mode, interval (iterations), peers, bytes_per_sync, max_gpu_bytes_per_sync, sync_Bps, eq1_s (2D §5 Eq. 1), simulated_s",
  "required": ["mode", "interval", "peers", "bytes_per_sync", "max_gpu_bytes_per_sync", "sync_Bps", "eq1_s", "simulated_s"],
  "properties": {"mode": {"enum": ["dense", "touched_rows"]}, "interval": {"type": "integer"}, "peers": {"type": "integer"},
    "bytes_per_sync": {"type": ["number", "null"]}, "max_gpu_bytes_per_sync": {"type": ["number", "null"]},
    "sync_Bps": {"type": ["number", "null"]}, "eq1_s": {"type": ["number", "null"]}, "simulated_s": {"type": ["number", "null"]}}
})json";
inline constexpr std::string_view kPruningSchema = R"json({
  "type": "object",
  "description": "frequency pruning (only when some table is pruned): pruned_tables, original_rows, pruned_rows, dropped_lookup_fraction",
  "required": ["pruned_tables", "original_rows", "pruned_rows", "dropped_lookup_fraction"],
  "properties": {"pruned_tables": {"type": "integer"}, "original_rows": {"type": "integer"},
    "pruned_rows": {"type": "integer"}, "dropped_lookup_fraction": {"type": ["number", "null"]}}
})json";
inline constexpr std::string_view kCommBytesSchema = R"json({
  "type": ["object", "null"],
  "description": "bytes unit i -> unit j per iteration, forward and backward; the unit is `granularity` (gpu, node, a tier name, or none with null matrices); null where a writer leaves the matrices to files",
  "required": ["granularity", "fwd", "bwd"],
  "properties": {"granularity": {"type": "string"},
    "fwd": {"type": ["array", "null"], "items": {"type": "array", "items": {"type": ["number", "null"]}}},
    "bwd": {"type": ["array", "null"], "items": {"type": "array", "items": {"type": ["number", "null"]}}}}
})json";
inline constexpr std::string_view kInputHashesSchema = R"json({
  "type": ["object", "null"],
  "description": "hashes of the inputs (the resolved scenario document, the hardware preset, the cost parameters); null when not built from a loaded scenario",
  "required": ["scenario", "hardware", "cost"],
  "properties": {"scenario": {"type": ["string", "null"]}, "hardware": {"type": ["string", "null"]}, "cost": {"type": ["string", "null"]}}
})json";
inline constexpr std::string_view kPlanStatsSchema = R"json({
  "type": ["object", "null"],
  "description": "what the plan puts on each GPU and how balanced it is, from the plan and the cost model (docs/report.md, \"Plan statistics\"); null without a plan",
  "required": ["planner", "estimated_embedding_s", "alltoall_fwd_s", "alltoall_bwd_s", "estimated_degree_of_balance", "shards_by_kind", "balance", "per_gpu"],
  "properties": {"planner": {"type": "string"},
    "estimated_embedding_s": {"type": ["number", "null"], "description": "the largest per-GPU estimated embedding time, s"},
    "alltoall_fwd_s": {"type": ["number", "null"], "description": "the estimated forward AlltoAll of the pooled embeddings, s"},
    "alltoall_bwd_s": {"type": ["number", "null"], "description": "the estimated backward AlltoAll, s"},
    "estimated_degree_of_balance": {"type": ["number", "null"], "description": "min / max per-GPU estimated communication time"},
    "shards_by_kind": {"type": "object", "description": "shards over all GPUs by kind"},
    "balance": {"type": "object", "description": "per quantity: min, mean, max, the GPUs of the extremes, a lower bound and the gap to it"},
    "per_gpu": {"type": "object", "description": "one array per quantity, one value per GPU"}}
})json";
inline constexpr std::string_view kScenarioValuesSchema = R"json({
  "type": "object", "additionalProperties": true
})json";

}  // namespace shardsim::report_schema_fragments
