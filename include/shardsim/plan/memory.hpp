#pragma once
// Memory per GPU of a plan (DESIGN.md §4 "Memory per GPU"): embedding weights + optimizer state
// + lookup activations + dense (MLP) state + reserved framework memory.
#include <vector>

#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/serving.hpp"

namespace shardsim {

struct GpuMemory {
  double weights_bytes = 0;     // embedding shards kept in HBM
  double optimizer_bytes = 0;   // their optimizer state (training only)
  double cache_bytes = 0;       // HBM caches (rows and cache state) of shards in host memory
  double activation_bytes = 0;  // lookup outputs/gradients, indices, MLP activations
  double dense_bytes = 0;       // MLP weights (+ gradients and optimizer state in training)
  double reserved_bytes = 0;    // framework/runtime (preset)
  // Not HBM: weights and optimizer state of this GPU's shards kept in host memory (uvm,
  // uvm_caching), a share of its node's host memory.
  double host_bytes = 0;
  // HBM in use.
  double total_bytes() const {
    return weights_bytes + optimizer_bytes + cache_bytes + activation_bytes + dense_bytes +
           reserved_bytes;
  }
};

// The pieces, so planners can account memory incrementally with the same formulas.
// What a shard stores, wherever it lives: its weights, and their optimizer state (training).
double shard_weight_bytes(const Shard& shard, const DlrmModel& model);
double shard_optimizer_bytes(const Shard& shard, const DlrmModel& model, Mode mode);
// The HBM cache of a uvm_caching shard (0 otherwise): cached rows x (row bytes + cache state);
// docs/model.md "Memory tiers".
double shard_cache_bytes(const Shard& shard, const DlrmModel& model);
// What a shard stored where its storage says: in HBM (weights + optimizer state of an HBM
// shard; the cache of a uvm_caching one; nothing for uvm) and in host memory (weights +
// optimizer state of a uvm or uvm_caching shard). Activations are apart (always HBM).
double shard_hbm_stored_bytes(const Shard& shard, const DlrmModel& model, Mode mode);
double shard_host_bytes(const Shard& shard, const DlrmModel& model, Mode mode);
// Pooled outputs a shard produces for the samples it serves (and their gradients in training),
// plus the indices it receives. `served_samples` is the number of samples whose lookups it serves.
double shard_activation_bytes(const Shard& shard, const DlrmModel& model, Mode mode,
                              double served_samples, double mean_pooling);
// What every GPU needs whatever it holds: MLP state and activations, the pooled embeddings of its
// own batch, and the reserve.
GpuMemory base_gpu_memory(const Cluster& cluster, const DlrmModel& model, const Workload& workload);
// The same from the preset alone (it depends on nothing else of the cluster).
GpuMemory base_gpu_memory(const HardwarePreset& preset, const DlrmModel& model,
                          const Workload& workload);

// What a bottom MLP on `bottom_gpu` (Plan::bottom_mlp_gpu) changes in each GPU's HBM against a
// data-parallel one, as plan_memory counts it: that GPU holds the global batch's bottom layers
// (positive), the others drop the bottom MLP's state and layers (negative). For planners that
// place the bottom MLP themselves.
std::vector<double> bottom_mlp_memory_delta_bytes(int bottom_gpu, int num_gpus,
                                                  const DlrmModel& model, const Workload& workload);

// Samples a shard serves: all samples of the GPUs it serves (see fetch rules in plan.hpp).
// Shards of one table with the same columns on one GPU share one output buffer: their
// activations are counted once (for the most samples any of them serves). A one-sided plan
// (LookupComm::one_sided) has no shard activations: requesters pool what they fetch.
std::vector<GpuMemory> plan_memory(const Plan& plan, const Cluster& cluster, const DlrmModel& model,
                                   const Workload& workload);
// The same with the plan's serving map already built (plan/plan_analysis.hpp builds it once).
std::vector<GpuMemory> plan_memory(const Plan& plan, const ServingMap& serving,
                                   const Cluster& cluster, const DlrmModel& model,
                                   const Workload& workload);

// Throws DoesNotFitError for the GPU with the largest overshoot, if any GPU exceeds its HBM, or,
// when no GPU does, for the first node whose shards in host memory exceed its host memory (an
// error naming no GPU, gpu() < 0).
void check_fits(const std::vector<GpuMemory>& memory, const Cluster& cluster);

}  // namespace shardsim
