#pragma once
// The results of simulating one (scenario, planner) pair: what every writer (text, JSON, CSV)
// prints. Field names carry units; the JSON keys are the DESIGN.md §3 contract.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "shardsim/core/byte_matrix.hpp"
#include "shardsim/core/input_hashes.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/plan/plan_stats.hpp"

namespace shardsim {

struct TimeStats {
  double mean_s = 0;
  double p50_s = 0;
  double p99_s = 0;
  double min_s = 0;
  double max_s = 0;
};

// Time of one phase of the iteration, per iteration averaged over measured iterations, on the
// critical GPU: `serialized` is its whole duration, `exposed` the instants of the iteration
// attributed to it (Neo Fig. 10's breakdown). Attribution gives every instant of the iteration to
// exactly one phase (docs/report.md, "Exposed time": compute before communication before waiting
// for a collective's peers before the host step), and the rest to the pseudo-phase "idle", so
// the exposed times add up to the iteration time.
struct PhaseTime {
  std::string phase;  // "bottom_mlp_fwd", "embedding_lookup_fwd", "alltoall_fwd", ..., "idle"
  double serialized_s = 0;
  double exposed_s = 0;
  // Of `exposed_s`, the time the GPU waited for the collective's other members (nothing else
  // to run); 0 for phases that are not collectives.
  double waiting_s = 0;
};

// One GPU's iteration, every instant counted once with the priority of PhaseTime (means per
// measured iteration); the six parts add up to the iteration time.
struct GpuTimeShares {
  double embedding_s = 0;      // its embedding kernels (sparse compute stream)
  double dense_compute_s = 0;  // MLPs and interaction (dense compute stream)
  double comm_s = 0;           // a collective of its was moving data, no kernel ran
  double comm_wait_s = 0;      // it had arrived at a collective whose peers had not
  double host_s = 0;           // only the host's step or the input delivery was running
  double idle_s = 0;           // none of the above
};

// How busy one class of links was over the measured iterations (both directions together).
// Utilisation is the fraction of a link's achievable bandwidth (its bandwidth x
// collective_bandwidth_efficiency) in use, averaged over the measured window.
struct LinkClassUse {
  std::string link_class;       // "scale_up", "gpu_nic", "nic_rack", "rack_pod", ...
  int links = 0;                // directed links of the class
  double mean_utilization = 0;  // mean over the class's links
  double max_utilization = 0;   // the busiest link's
  std::string busiest_link;     // its name, e.g. "nic3->rack0" (empty when none carried bytes)
};

struct GpuReport {
  int gpu = 0;
  int node = 0;
  double lookup_s = 0;  // embedding forward + backward kernel time per iteration (mean)
  // Per iteration (means), within the iteration's window, each a union over its streams (so
  // none exceeds the iteration time):
  double busy_s = 0;           // some GPU stream of its ran a task
  double compute_s = 0;        // a compute stream ran a kernel
  double comm_transfer_s = 0;  // a collective of its was moving data (members end together)
  double comm_wait_s = 0;      // a communication stream had arrived at a collective, peers not
  double idle_s = 0;           // the iteration time minus busy_s
  GpuTimeShares shares;        // the iteration's instants, each given to one kind of work
  double memory_bytes = 0;
  double memory_capacity_bytes = 0;
  double weights_bytes = 0;
  double optimizer_bytes = 0;
  double cache_bytes = 0;  // HBM caches of its shards in host memory (memory tiers)
  double activation_bytes = 0;
  double reserved_bytes = 0;
  double host_memory_bytes = 0;  // its shards' weights + optimizer state in host memory (not HBM)
  double host_link_bytes = 0;    // over its host link per iteration (mean), both directions
  double lookups = 0;            // embedding lookups served per iteration (mean)
  int shards = 0;
  double comm_sent_bytes = 0;  // per iteration, forward + backward
  double comm_received_bytes = 0;
};

// One sparse-parallel group of a 2D plan (docs/report.md, "groups"). Timings are means per
// measured iteration; they do not exist for a plan that was not simulated.
struct GroupReport {
  int group = 0;
  int num_gpus = 0;
  int first_gpu = 0;           // its lowest GPU id
  double lookup_max_s = 0;     // embedding kernel time (fwd + bwd) of its slowest member
  double lookup_mean_s = 0;    // over its members
  double imbalance_ratio = 0;  // lookup_max_s / lookup_mean_s (2D §4.2, inside the group)
  double memory_max_bytes = 0;
  double memory_mean_bytes = 0;
  double lookups = 0;     // served by its members per iteration
  double comm_bytes = 0;  // pooled-embedding bytes its members send, fwd + bwd
  double sync_s = 0;      // replica sync time of its slowest member per iteration
};

// The 2D replica synchronisation of a plan with two or more groups (docs/report.md).
struct ReplicaSyncReport {
  std::string mode;           // "dense" | "touched_rows"
  int interval = 1;           // iterations per sync
  int peers = 0;              // replicas per block: the number of groups M
  double bytes_per_sync = 0;  // Σ over peer sets of the AllReduce payload of one sync (dense: S)
  double max_gpu_bytes = 0;   // the largest payload one GPU contributes to one sync
  double sync_Bps = 0;        // B_sync: slowest route between replica peers x efficiency
  double eq1_s = 0;           // §5 Eq. 1: 2 S (M-1) / (T B_sync), S = bytes_per_sync
  double simulated_s = 0;     // the slowest GPU's sync time per syncing iteration (mean)
};

// What training (or serving) costs at the scenario's price (docs/report.md, "Cost"): present
// only when the scenario gives `cluster.price_per_gpu_hour`. Currency-free: the price's unit.
struct CostReport {
  double price_per_gpu_hour = 0;  // as given
  // price x GPUs x (10^6 / QPS) / 3600 s per hour; NaN when the plan was not simulated.
  double cost_per_million_samples = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t dataset_samples = 0;  // `workload.dataset_samples`; 0: not given
  // price x GPUs x (dataset_samples / QPS) / 3600; NaN without dataset_samples or timings.
  double cost_per_epoch = std::numeric_limits<double>::quiet_NaN();
};

// What frequency pruning removed from the model (docs/model.md "Pruning"); a report has one only
// when some table is pruned.
struct PruningReport {
  int pruned_tables = 0;
  std::uint64_t original_rows = 0;  // every table's rows before pruning
  std::uint64_t pruned_rows = 0;    // rows removed, over all tables
  // Lookups per sample dropped (they hit pruned rows) over those of the unpruned model.
  double dropped_lookup_fraction = 0;
};

struct Report {
  std::string scenario;
  std::string scenario_source;
  std::string planner;
  std::string sweep_point;  // label of the sweep point, empty if none
  std::string mode;         // "training" | "inference"
  std::string preset;
  int num_gpus = 0;
  int num_nodes = 0;
  int num_tables = 0;
  int iterations = 0;
  int warmup = 0;
  std::uint64_t seed = 0;
  std::uint64_t global_batch = 0;
  // The GPU that ran the bottom MLP for the global batch (Plan::bottom_mlp_gpu); -1: data
  // parallel, every GPU on its own samples (the JSON then leaves the key out).
  int bottom_mlp_gpu = -1;
  TimeStats iteration_time;
  std::vector<double> iteration_times_s;  // each measured iteration
  double qps = 0;
  double imbalance_ratio = 0;  // max/mean embedding lookup time over GPUs (2D §4.2)
  // max/mean over GPUs of busy_s: the imbalance of all their work, not only the lookups.
  double busy_imbalance_ratio = 0;
  double degree_of_balance = 0;  // min/max per-GPU communication cost (OPER Table 3)
  // The GPU with the most busy time (ties: the lowest id), whose iteration `breakdown` shows.
  int critical_gpu = 0;
  std::vector<PhaseTime> breakdown;
  // Per phase, the largest time any GPU spent in it per iteration (2D Fig. 6's "maximum kernel
  // costs"); `exposed_s` is that GPU's exposed part.
  std::vector<PhaseTime> phase_max;
  // QPS speed-up over the first report of the same planner and seed in a sweep, divided by the
  // GPU-count multiplier (2D §4.3); NaN when there is no such reference (docs/report.md).
  double scaling_factor = std::numeric_limits<double>::quiet_NaN();
  // 2D groups (empty when the plan has none) and their replica synchronisation.
  std::vector<GroupReport> groups;
  std::optional<ReplicaSyncReport> replica_sync;
  // Link classes in topology order; empty when link sharing is off (no flows are simulated).
  std::vector<LinkClassUse> link_utilization;
  std::vector<GpuReport> per_gpu;
  double memory_max_bytes = 0;
  double memory_mean_bytes = 0;
  double memory_capacity_bytes = 0;
  bool fits_in_memory = true;
  int worst_memory_gpu = 0;
  // Why the plan does not fit, when it does not (the planner's or the memory check's message);
  // such a report has memory figures but no timings (iteration_times_s is empty).
  std::string fit_error;
  // Bytes unit i -> unit j per iteration, forward and backward. The unit is the GPU up to
  // kCommMatrixMaxUnits (1024) GPUs, else the node, else the lowest tier's group that fits
  // (`comm_granularity`: "gpu", "node", a tier name, or "none" with empty matrices).
  std::string comm_granularity = "gpu";
  ByteMatrix comm_fwd;
  ByteMatrix comm_bwd;
  // Wall time the planner took. Not deterministic, so it is recorded only on request (`--timings`);
  // NaN otherwise, which writers print as null / n/a, keeping reports byte-identical per seed.
  double planning_time_s = std::numeric_limits<double>::quiet_NaN();
  std::string shardsim_version;
  // The inputs that produced it (scenario document, hardware preset, cost parameters); empty
  // when the report was not built from a loaded scenario. Lets `compare` detect stale baselines.
  InputHashes input_hashes;
  // The resolved scenario as dotted keys and canonical (JSON) values, after every --set and the
  // sweep point's values (Scenario::values); empty when not built from a loaded scenario.
  std::vector<std::pair<std::string, std::string>> scenario_values;
  // What the plan puts on each GPU and how balanced it is, from the plan and the cost model
  // (plan/plan_stats.hpp); absent when there is no plan (the planner could not place the tables).
  std::optional<PlanStats> plan_stats;
  // Cost at cluster.price_per_gpu_hour; absent when the scenario gives no price.
  std::optional<CostReport> cost;
  // Frequency pruning of the model's tables; absent when no table is pruned.
  std::optional<PruningReport> pruning;
};

// The pruning of `model`'s tables, or nothing when none is pruned.
std::optional<PruningReport> report_pruning(const DlrmModel& model);

// The cost of `r` at `price_per_gpu_hour` (> 0) with `dataset_samples` per epoch (0: none).
CostReport report_cost(const Report& r, double price_per_gpu_hour, std::uint64_t dataset_samples);

}  // namespace shardsim
