#include "shardsim/plan/memory.hpp"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "shardsim/core/error.hpp"
#include "shardsim/plan/serving.hpp"

namespace shardsim {

namespace {
constexpr double kIndexBytes = 8;  // int64 indices, as TorchRec/FBGEMM use by default
// Dense parameters in training: fp32 weights, gradients and two Adam moments (16 B/param);
// in inference the weights only. A documented choice (docs/model.md), not a paper figure.
constexpr double kDenseTrainingBytesPerParam = 16;
constexpr double kDenseInferenceBytesPerParam = 4;
}  // namespace

double shard_weight_bytes(const Shard& shard, const DlrmModel& model) {
  return static_cast<double>(shard.rows.size()) * model.table_row_bytes(shard.cols.size());
}

double shard_optimizer_bytes(const Shard& shard, const DlrmModel& model, Mode mode) {
  if (mode == Mode::inference) return 0;
  return static_cast<double>(shard.rows.size()) *
         optimizer_state_bytes_per_row(model.optimizer, shard.cols.size());
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
  const double per_param =
      workload.mode == Mode::training ? kDenseTrainingBytesPerParam : kDenseInferenceBytesPerParam;
  m.dense_bytes = static_cast<double>(model.dense_parameter_count()) * per_param;
  // Activations of the local batch: the pooled embeddings it receives (and their gradients),
  // and the MLP layer outputs kept for backward.
  double emb_width = 0;
  for (const auto& t : model.tables) emb_width += t.dim;
  double mlp_width = model.dense_features;
  for (auto w : model.bottom_mlp) mlp_width += w;
  mlp_width += static_cast<double>(model.interaction_output_width());
  for (auto w : model.top_mlp) mlp_width += w;
  const double batch = workload.batch_per_gpu;
  const double factor = workload.mode == Mode::training ? 2.0 : 1.0;
  m.activation_bytes =
      factor * batch * (emb_width * bytes_per_element(model.comm_precision) + mlp_width * 4.0);
  return m;
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
  for (const Shard& sh : plan.shards) {
    GpuMemory& m = mem.at(sh.gpu);
    m.weights_bytes += shard_weight_bytes(sh, model);
    m.optimizer_bytes += shard_optimizer_bytes(sh, model, workload.mode);
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
  if (worst < 0) return;
  const GpuMemory& m = memory[worst];
  throw DoesNotFitError(
      worst, m.total_bytes(), capacity,
      fmt::format("embedding weights {:.3f} GB, optimizer state {:.3f} GB, activations {:.3f} GB, "
                  "dense {:.3f} GB, reserved {:.3f} GB",
                  m.weights_bytes / 1e9, m.optimizer_bytes / 1e9, m.activation_bytes / 1e9,
                  m.dense_bytes / 1e9, m.reserved_bytes / 1e9));
}

}  // namespace shardsim
