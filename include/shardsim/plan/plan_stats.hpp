#pragma once
// Plan statistics: what a plan puts on each GPU and how balanced it is, computed from the plan,
// the access profiles and the pure cost model, never from the engine (docs/report.md, "Plan
// statistics"). Shown by `shardsim plan --stats` and in every run report. TorchRec's planner
// statistics are the familiar reference: per GPU memory, input/output bytes, estimated forward
// and backward compute and communication, and shard counts by type.
#include <array>
#include <string>
#include <vector>

#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/plan_analysis.hpp"
#include "shardsim/trace/trace_source.hpp"

namespace shardsim {

inline constexpr int kNumShardKinds = 5;  // ShardKind values, in declaration order

struct GpuPlanStats {
  int gpu = 0;
  int node = 0;
  GpuMemory memory;           // plan_memory: weights, optimizer, activations, dense, reserve
  double hbm_used_bytes = 0;  // memory.total_bytes()
  double hbm_capacity_bytes = 0;
  double lookups = 0;        // expected embedding lookups it serves per iteration
  double input_bytes = 0;    // indices it receives for them (index_bytes_per_lookup each)
  double output_bytes = 0;   // pooled vectors (or partial sums) its shards produce
  double fwd_compute_s = 0;  // embedding forward kernel (fused: one launch)
  double bwd_compute_s = 0;  // fused backward + optimizer (training)
  double fwd_comm_s = 0;     // its share of the forward AlltoAll (injection bound)
  double bwd_comm_s = 0;     // its share of the backward AlltoAll (training)
  // AllReduces of the replicated blocks it holds (training; plan/replica_sync.hpp): gradients
  // of data-parallel replicas, and 2D peer syncs amortised over their interval, per iteration.
  double sync_comm_s = 0;
  double comm_sent_bytes = 0;  // pooled embeddings + gradients, per iteration, fwd + bwd
  double comm_received_bytes = 0;
  double sync_bytes = 0;  // their AllReduce payloads per iteration (training)
  std::array<int, kNumShardKinds> shards_by_kind{};  // indexed by ShardKind

  double compute_s() const { return fwd_compute_s + bwd_compute_s; }
  double comm_s() const { return fwd_comm_s + bwd_comm_s + sync_comm_s; }
  double total_s() const { return compute_s() + comm_s(); }  // estimated embedding time
  double comm_bytes() const { return comm_sent_bytes + comm_received_bytes; }
  int shards() const;
};

// The spread of one per-GPU quantity (OPER §6.4: max − min; DESIGN.md §6: also max ÷ mean) and
// how far its max is from a lower bound on the max of any plan, or of this plan's mean.
struct BalanceStat {
  double min = 0, mean = 0, max = 0;
  int min_gpu = -1, max_gpu = -1;
  double lower_bound = 0;
  double max_minus_min() const { return max - min; }
  double max_over_mean() const;  // NaN when the mean is 0
  double gap_to_bound() const;   // max ÷ lower_bound − 1 (0 = perfect); NaN when the bound is 0
};

struct PlanStats {
  std::string planner;
  int num_gpus = 0;
  int num_tables = 0;
  double hbm_capacity_bytes = 0;
  std::vector<GpuPlanStats> gpus;
  std::array<int, kNumShardKinds> shards_by_kind{};  // over all GPUs

  // Balance. Lower bounds: memory, the reserve and MLP state plus every table's weights and
  // optimizer state stored once and split evenly (any plan needs that much on its fullest GPU);
  // lookups, all lookups of an iteration ÷ GPUs (the same for every plan); the others, this
  // plan's mean (so their gap is max ÷ mean − 1).
  BalanceStat memory_bytes;
  BalanceStat lookups;
  BalanceStat compute_s;
  BalanceStat comm_bytes;
  BalanceStat comm_s;
  BalanceStat total_s;
  // min ÷ max of the per-GPU estimated comm_s: the cost model's estimate, not the report's DoB
  // (OPER Table 3, measured on the traffic matrix); 1 with no traffic.
  double estimated_degree_of_balance = 1;

  // The whole AlltoAlls of the pooled embeddings (the AlltoAll(v) over the plan's byte matrix,
  // each GPU's peers those of the largest sparse-parallel group; every GPU waits for them), and
  // the largest per-GPU estimated embedding time.
  double alltoall_fwd_s = 0;
  double alltoall_bwd_s = 0;
  double estimated_embedding_s = 0;  // max over GPUs of total_s

  // The planner's counts of its own search (Plan::planner_counts), as it gave them.
  std::vector<PlannerCount> planner_counts;
};

// Computes the statistics of a valid plan. Lookups and distinct rows are the access profiles'
// expectations (as the iteration builder's `expected` trace mode); costs come from cost/.
PlanStats compute_plan_stats(const Plan& plan, const Cluster& cluster, const DlrmModel& model,
                             const Workload& workload, const TraceSource& trace,
                             const CostParams& cost);
// The same from the plan's analysis (plan_analysis.hpp), computed with the same inputs.
PlanStats compute_plan_stats(const Plan& plan, const PlanAnalysis& analysis, const Cluster& cluster,
                             const DlrmModel& model, const Workload& workload,
                             const TraceSource& trace, const CostParams& cost);

}  // namespace shardsim
