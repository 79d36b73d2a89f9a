#pragma once
// Which tables leave HBM when the model does not fit in the cluster's HBM (docs/planners.md,
// "Memory tiers"): before placing, a memory-aware planner (memory_greedy, hybrid) estimates what
// the whole model needs in HBM; when that exceeds what the cluster offers, it moves the tables
// with the fewest lookups per stored byte first into host memory with an HBM cache (FBGEMM's
// UVM caching; TorchRec's `fused_uvm_caching` with its `cache_load_factor`), until the model
// fits, and places the shards with the HBM footprint of their storage (plan/memory.hpp). A
// placement decision made from the access profile alone, never from simulation.
#include <string>
#include <vector>

#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/planner.hpp"
#include "shardsim/plan/planner_options.hpp"

namespace shardsim {

struct StorageTierOptions {
  bool allow_host = true;                 // `host_tables: auto` (true) or `never`
  double cache_fraction = 0.2;            // `cache_fraction`: TorchRec's default cache_load_factor
  CachePolicy policy = CachePolicy::lru;  // `cache_policy`: FBGEMM's default algorithm
};

// The options a planner that calls choose_table_storage declares, and their values.
std::vector<OptionSpec> storage_tier_option_specs();
StorageTierOptions storage_tier_options_of(const PlannerOptions& options);

// Per table: its storage. All HBM when the model fits (or the options or the preset allow no
// host tables). Otherwise the coldest tables (expected lookups per stored byte, ascending; ties
// by index) become uvm_caching until the estimate fits in `fill_fraction` of the HBM left after
// each GPU's base memory and `headroom`; when even every table cached does not fit, every table
// is cached and the packer reports what does not fit. The estimate counts each table's stored
// bytes and its activations for the global batch (as a table-wise shard serving every GPU).
std::vector<ShardStorage> choose_table_storage(const PlanningContext& ctx, double headroom,
                                               const StorageTierOptions& options);

}  // namespace shardsim
