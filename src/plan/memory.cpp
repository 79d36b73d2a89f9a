#include "shardsim/plan/memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "shardsim/core/error.hpp"
#include "shardsim/plan/serving.hpp"

namespace shardsim {

namespace {
constexpr double kIndexBytes = 8;  // int64 indices, as TorchRec/FBGEMM use by default
// Dense parameters in training: fp32 weights, gradients and the dense optimizer's states
// (model.dense_optimizer; Adam, the default: two, 16 B/param); in inference the weights only.
constexpr double kDenseInferenceBytesPerParam = 4;
double dense_training_bytes_per_param(DenseOptimizerKind k) {
  return 4.0 * (2 + dense_optimizer_states(k));
}
double dense_bytes_per_param(const DlrmModel& model, Mode mode) {
  return mode == Mode::training ? dense_training_bytes_per_param(model.dense_optimizer)
                                : kDenseInferenceBytesPerParam;
}
// Copies of the local batch's activations kept: the outputs, and their gradients in training.
double activation_copies(Mode mode) {
  return mode == Mode::training ? 2.0 : 1.0;
}
// fp32 values a sample the bottom MLP keeps: its input and every layer's output.
double bottom_layers_width(const DlrmModel& model) {
  double width = model.dense_features;
  for (auto w : model.bottom_mlp) width += w;
  return width;
}
}  // namespace

double shard_weight_bytes(const Shard& shard, const DlrmModel& model) {
  return static_cast<double>(shard.rows.size()) * model.table_row_bytes(shard.cols.size());
}

double shard_optimizer_bytes(const Shard& shard, const DlrmModel& model, Mode mode) {
  if (mode == Mode::inference) return 0;
  return static_cast<double>(shard.rows.size()) *
         optimizer_state_bytes_per_row(model.optimizer, shard.cols.size());
}

namespace {
// FBGEMM's cache state per cache slot (split_table_batched_embeddings_ops_training.py,
// `lxu_cache_state`: one int64 row index per slot; with LRU `lxu_state` one int64 timestamp per
// slot; with LFU `lxu_state` one int64 counter per row of the table instead).
constexpr double kCacheSlotIndexBytes = 8;
constexpr double kCacheLruStateBytesPerSlot = 8;
constexpr double kCacheLfuStateBytesPerRow = 8;
}  // namespace

double shard_cache_bytes(const Shard& shard, const DlrmModel& model) {
  if (shard.storage.kind != StorageKind::uvm_caching) return 0;
  const double rows = static_cast<double>(shard.rows.size());
  const double slots = std::ceil(rows * shard.storage.cache_fraction);
  const double row_bytes = model.table_row_bytes(shard.cols.size());
  const double state = shard.storage.policy == CachePolicy::lru ? slots * kCacheLruStateBytesPerSlot
                                                                : rows * kCacheLfuStateBytesPerRow;
  return slots * (row_bytes + kCacheSlotIndexBytes) + state;
}

double shard_hbm_stored_bytes(const Shard& shard, const DlrmModel& model, Mode mode) {
  switch (shard.storage.kind) {
    case StorageKind::hbm:
      return shard_weight_bytes(shard, model) + shard_optimizer_bytes(shard, model, mode);
    case StorageKind::uvm:
      return 0;
    case StorageKind::uvm_caching:
      return shard_cache_bytes(shard, model);
  }
  return 0;
}

double shard_host_bytes(const Shard& shard, const DlrmModel& model, Mode mode) {
  if (!shard.storage.in_host()) return 0;
  return shard_weight_bytes(shard, model) + shard_optimizer_bytes(shard, model, mode);
}

double shard_activation_bytes(const Shard& shard, const DlrmModel& model, Mode mode,
                              double served_samples, double mean_pooling) {
  // Pooled outputs (or partial sums) for every sample served, their gradients in training, and
  // the indices received. This is why activation memory grows with the number of GPUs under
  // full model parallelism (2D paper §2.2): a shard serves the whole global batch.
  const double outputs =
      served_samples * shard.cols.size() * bytes_per_element(model.comm_precision);
  const double grads = mode == Mode::training ? outputs : 0.0;
  const double indices = served_samples * mean_pooling * kIndexBytes;
  return outputs + grads + indices;
}

GpuMemory base_gpu_memory(const Cluster& cluster, const DlrmModel& model,
                          const Workload& workload) {
  return base_gpu_memory(cluster.preset(), model, workload);
}

GpuMemory base_gpu_memory(const HardwarePreset& preset, const DlrmModel& model,
                          const Workload& workload) {
  GpuMemory m;
  m.reserved_bytes = preset.reserved_memory_bytes;
  m.dense_bytes = static_cast<double>(model.dense_parameter_count()) *
                  dense_bytes_per_param(model, workload.mode);
  // Activations of the local batch: the pooled embeddings it receives (and their gradients),
  // and the MLP layer outputs kept for backward.
  double emb_width = 0;
  for (const auto& t : model.tables) emb_width += t.dim;
  double mlp_width = bottom_layers_width(model);
  mlp_width += static_cast<double>(model.interaction_output_width());
  for (auto w : model.top_mlp) mlp_width += w;
  const double batch = workload.batch_per_gpu;
  const double factor = activation_copies(workload.mode);
  m.activation_bytes =
      factor * batch * (emb_width * bytes_per_element(model.comm_precision) + mlp_width * 4.0);
  return m;
}

namespace {

// A bottom MLP on one GPU (Plan::bottom_mlp_gpu): that GPU keeps its layer outputs for the
// global batch; the others keep neither its parameters nor its layers, and receive its output
// (one vector a sample, at the AlltoAll's precision) as they receive the pooled embeddings.
void place_bottom_mlp_memory(std::vector<GpuMemory>& mem, int bottom_gpu, const DlrmModel& model,
                             const Workload& workload) {
  if (model.bottom_mlp.empty()) return;  // nothing to place (plan validation refuses the key)
  const double copies = activation_copies(workload.mode);
  const double batch = workload.batch_per_gpu;
  const double layers_bytes = copies * batch * bottom_layers_width(model) * 4.0;
  const double received_bytes = copies * batch * static_cast<double>(model.bottom_mlp.back()) *
                                bytes_per_element(model.comm_precision);
  const double params_bytes = static_cast<double>(model.bottom_mlp_parameter_count()) *
                              dense_bytes_per_param(model, workload.mode);
  const auto n = static_cast<double>(mem.size());
  for (std::size_t g = 0; g < mem.size(); ++g) {
    if (static_cast<int>(g) == bottom_gpu) {
      mem[g].activation_bytes += (n - 1) * layers_bytes;
    } else {
      mem[g].activation_bytes += received_bytes - layers_bytes;
      mem[g].dense_bytes -= params_bytes;
    }
  }
}

}  // namespace

std::vector<double> bottom_mlp_memory_delta_bytes(int bottom_gpu, int num_gpus,
                                                  const DlrmModel& model,
                                                  const Workload& workload) {
  std::vector<GpuMemory> mem(static_cast<std::size_t>(num_gpus));
  place_bottom_mlp_memory(mem, bottom_gpu, model, workload);
  std::vector<double> delta;
  delta.reserve(mem.size());
  for (const GpuMemory& m : mem) delta.push_back(m.total_bytes());
  return delta;
}

std::vector<GpuMemory> plan_memory(const Plan& plan, const Cluster& cluster, const DlrmModel& model,
                                   const Workload& workload) {
  return plan_memory(plan, build_serving_map(plan, cluster), cluster, model, workload);
}

std::vector<GpuMemory> plan_memory(const Plan& plan, const ServingMap& serving,
                                   const Cluster& cluster, const DlrmModel& model,
                                   const Workload& workload) {
  const int n = cluster.num_gpus();
  std::vector<GpuMemory> mem(n, base_gpu_memory(cluster, model, workload));
  if (plan.bottom_mlp_gpu >= 0) place_bottom_mlp_memory(mem, plan.bottom_mlp_gpu, model, workload);
  for (const Shard& sh : plan.shards) {
    GpuMemory& m = mem.at(sh.gpu);
    if (sh.storage.in_host()) {
      m.cache_bytes += shard_cache_bytes(sh, model);
      m.host_bytes += shard_host_bytes(sh, model, workload.mode);
    } else {
      m.weights_bytes += shard_weight_bytes(sh, model);
      m.optimizer_bytes += shard_optimizer_bytes(sh, model, workload.mode);
    }
  }
  // One-sided plans (OPER §5): the requester fetches rows and pools them itself, so a shard
  // keeps no buffers for the samples it serves; each GPU's own pooled embeddings are part of
  // base_gpu_memory.
  if (plan.lookup_comm == LookupComm::one_sided) return mem;
  const std::vector<double> served_gpus = served_gpu_counts(plan, serving, n);
  // Shards of one table with the same columns on one GPU (OPER-style rank chunks, or any
  // hand-made plan) pool into one output buffer: their activations are counted once, for the
  // most samples any of them serves.
  std::map<std::tuple<int, std::size_t, std::uint32_t, std::uint32_t>, std::size_t> group;
  for (std::size_t s = 0; s < plan.shards.size(); ++s) {
    const Shard& sh = plan.shards[s];
    auto [it, fresh] = group.try_emplace({sh.gpu, sh.table, sh.cols.begin, sh.cols.end}, s);
    if (!fresh && served_gpus[s] > served_gpus[it->second]) it->second = s;
  }
  for (const auto& [key, s] : group) {
    const Shard& sh = plan.shards[s];
    const double samples = served_gpus[s] * workload.batch_per_gpu;
    mem.at(sh.gpu).activation_bytes += shard_activation_bytes(
        sh, model, workload.mode, samples, model.tables[sh.table].pooling.expected());
  }
  return mem;
}

void check_fits(const std::vector<GpuMemory>& memory, const Cluster& cluster) {
  const double capacity = cluster.gpu().hbm_capacity_bytes;
  int worst = -1;
  double worst_over = 0;
  for (std::size_t g = 0; g < memory.size(); ++g) {
    const double over = memory[g].total_bytes() - capacity;
    if (over > worst_over) {
      worst_over = over;
      worst = static_cast<int>(g);
    }
  }
  if (worst >= 0) {
    const GpuMemory& m = memory[worst];
    throw DoesNotFitError(
        worst, m.total_bytes(), capacity,
        fmt::format("embedding weights {:.3f} GB, optimizer state {:.3f} GB, HBM caches {:.3f} "
                    "GB, activations {:.3f} GB, dense {:.3f} GB, reserved {:.3f} GB",
                    m.weights_bytes / 1e9, m.optimizer_bytes / 1e9, m.cache_bytes / 1e9,
                    m.activation_bytes / 1e9, m.dense_bytes / 1e9, m.reserved_bytes / 1e9));
  }
  // Host memory is per node: the shards in host memory of its GPUs share it (the error names no
  // GPU).
  const int per_node = cluster.preset().gpus_per_node;
  const double host_capacity = cluster.preset().host.memory_bytes_per_node;
  for (std::size_t first = 0; first < memory.size(); first += static_cast<std::size_t>(per_node)) {
    double host = 0;
    for (std::size_t g = first; g < std::min(memory.size(), first + per_node); ++g) {
      host += memory[g].host_bytes;
    }
    if (host > host_capacity) {
      throw DoesNotFitError(
          -1, host, host_capacity,
          fmt::format("the tables in host memory of node {} need {:.3f} GB, and its host memory "
                      "is {:.3f} GB (preset key host.memory_GiB)",
                      first / static_cast<std::size_t>(per_node), host / 1e9, host_capacity / 1e9));
    }
  }
}

}  // namespace shardsim
