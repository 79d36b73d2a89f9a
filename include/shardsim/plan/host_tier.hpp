#pragma once
// The expected host-link traffic of the shards a plan keeps in host memory (Shard::storage:
// uvm, uvm_caching), per iteration (docs/model.md, "Memory tiers"). Computed once per plan from
// the access profiles, never by materialising rows:
//   uvm          the forward reads every looked-up row over the host link (distinct rows fully,
//                repeated lookups x repeat_lookup_hbm_fraction, as in HBM); in training the
//                fused backward reads and writes each distinct row and its optimizer state.
//   uvm_caching  the forward fetches the missed rows into the HBM cache: with LRU, the distinct
//                rows of the iteration's L lookups not among those of the T lookups before it,
//                D(T + L) - D(T), T Che's characteristic time (D(T) = cached rows); with LFU the
//                missed lookups (1 - hit rate) x lookups, at most D(L). In training as many
//                evicted rows are written back (every touched row is dirty), and the optimizer
//                state (in host memory, FBGEMM's momentum is not cached) of each distinct row is
//                read and written.
// D(x) is AccessProfile::expected_distinct over the shard's rows for x table lookups of the
// samples it serves.
#include <span>
#include <vector>

#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/trace/trace_source.hpp"

namespace shardsim {

struct HostTierShard {
  double lookups = 0;             // expected lookups into the shard per iteration
  double distinct_rows = 0;       // expected distinct rows they touch
  double cache_hit_rate = 0;      // of the shard's lookups (0 for uvm)
  double fetched_rows = 0;        // rows the forward reads over the host link
  double h2d_forward_bytes = 0;   // host -> GPU in the forward
  double h2d_backward_bytes = 0;  // host -> GPU in the backward (optimizer state)
  double d2h_backward_bytes = 0;  // GPU -> host in the backward (write-back, optimizer state)
  double uvm_faults = 0;          // host pages the forward's fetched rows touch (uvm_pages_touched)
  double uvm_fault_s = 0;         // their service time (uvm_fault_s; 0 when the cost is off)
};

struct HostTierTraffic {
  // Per Plan::shards index (zeros for HBM shards); empty when no shard is in host memory.
  std::vector<HostTierShard> shards;
  bool empty() const { return shards.empty(); }
};

// Per GPU, what its shards in host memory move over its host link, and the time that takes
// (cost/host_link_cost.hpp): the simulation adds the times to the GPU's embedding kernels, the
// plan statistics to their estimates.
struct GpuHostLink {
  double h2d_forward_bytes = 0;
  double h2d_backward_bytes = 0;
  double d2h_backward_bytes = 0;
  double uvm_fault_s = 0;  // its shards' UVM fault service time, in the forward
  double forward_s = 0;    // host_link_s(h2d forward, 0) + uvm_fault_s
  double backward_s = 0;   // host_link_s(h2d backward, d2h backward)
  double total_bytes() const { return h2d_forward_bytes + h2d_backward_bytes + d2h_backward_bytes; }
};
// Each shard's expected bytes times `lookup_scale[s]` (its drawn lookups over the expected ones;
// 1 for every shard when empty), summed per GPU. Empty `traffic`: no GPU moves anything.
std::vector<GpuHostLink> host_link_by_gpu(const Plan& plan, const HostTierTraffic& traffic,
                                          const Cluster& cluster,
                                          std::span<const double> lookup_scale = {});

// One shard (in host memory or not: an HBM shard has no host traffic) serving the batches of
// `served_gpus` GPUs, `profile` its table's.
HostTierShard host_tier_shard(const Shard& shard, double served_gpus, const DlrmModel& model,
                              const Workload& workload, const AccessProfile& profile,
                              const CostParams& cost);

// `served_gpus_by_shard`: how many GPUs' batches each shard serves (PlanAnalysis).
HostTierTraffic host_tier_traffic(const Plan& plan, const std::vector<double>& served_gpus_by_shard,
                                  const DlrmModel& model, const Workload& workload,
                                  const TraceSource& trace, const CostParams& cost);

}  // namespace shardsim
