#pragma once
// What a model is, before any plan (issue 16; printed by `shardsim validate` and `shardsim plan`,
// docs/report.md "Model summary"): its tables by size class, the bytes of their weights and
// optimizer state, the dense parameters, the activation memory a sample causes, the global batch,
// and the fewest nodes of the preset whose memory could hold it — a lower bound from the memory
// formulas of plan/memory.hpp alone (perfect packing), never from a planner.
#include <cstdint>
#include <string>
#include <vector>

#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"

namespace shardsim {

// Tables whose weights (rows x DlrmModel::table_row_bytes) lie in [min_bytes, max_bytes).
struct TableSizeClass {
  std::string label;  // "< 1 MB", "1 MB - 1 GB", "1 - 10 GB", "10 - 100 GB", ">= 100 GB"
  double min_bytes = 0;
  double max_bytes = 0;  // +infinity for the last class
  std::size_t tables = 0;
  double rows = 0;  // a double: thousands of 1e13-row tables overflow no counter
  double weight_bytes = 0;
  double optimizer_bytes = 0;  // 0 in inference
};

// The fewest nodes whose memory could hold the model (see summarize_model).
struct NodeBound {
  bool fits = false;  // false: no node count up to the largest cluster (4 Mi GPUs) fits
  int nodes = 0;      // when it fits
  int gpus = 0;       // nodes x GPUs per node
};

struct ModelSummary {
  Mode mode = Mode::training;
  Precision table_precision = Precision::fp32;
  OptimizerKind optimizer = OptimizerKind::rowwise_adagrad;
  DenseOptimizerKind dense_optimizer = DenseOptimizerKind::adam;
  std::size_t tables = 0;
  double rows = 0;
  std::vector<TableSizeClass> size_classes;  // all five, smallest first (empty ones too)
  double weight_bytes = 0;                   // every table once, at its stored row size
  double optimizer_bytes = 0;                // their optimizer state (training only)
  double stored_bytes() const { return weight_bytes + optimizer_bytes; }

  // Dense (MLP and dense-arch) parameters, replicated on every GPU: their weights, and in
  // training their gradients and optimizer state (base_gpu_memory's dense_bytes).
  std::uint64_t dense_parameters = 0;
  double dense_bytes_per_gpu = 0;
  double reserved_bytes_per_gpu = 0;  // the preset's reserved_memory

  // Activations per sample. Of the local batch (base_gpu_memory's activations: the pooled
  // embeddings a GPU receives for its samples and the MLP outputs, x2 in training); of the
  // lookups a sample causes at the GPUs serving its tables (shard_activation_bytes of each whole
  // table for one sample): pooled outputs (+ their gradients in training) and int64 indices.
  double local_activation_bytes_per_sample = 0;
  double lookup_output_bytes_per_sample = 0;
  double lookup_index_bytes_per_sample = 0;
  double lookup_activation_bytes_per_sample() const {
    return lookup_output_bytes_per_sample + lookup_index_bytes_per_sample;
  }

  std::uint32_t batch_per_gpu = 0;
  std::uint64_t global_batch = 0;   // batch_per_gpu x the scenario's GPUs
  bool global_batch_given = false;  // workload.global_batch: fixed when the GPU count changes
  // Memory every GPU needs whatever tables it holds, at the scenario's batch_per_gpu
  // (base_gpu_memory: reserved + dense + local-batch activations).
  double base_bytes_per_gpu = 0;

  // The preset.
  std::string preset;
  int gpus_per_node = 0;
  int scenario_nodes = 0;
  double hbm_bytes_per_gpu = 0;
  double host_bytes_per_node = 0;  // 0: the preset has no host block (no table leaves HBM)

  // The fewest nodes by memory alone (docs/report.md "Model summary" states the formulas).
  // All tables in HBM, with the lookup activations of pooled plans (every sample's outputs and
  // indices held once, at the GPU serving the table).
  NodeBound hbm_nodes;
  // All tables in HBM, one-sided plans (OPER): no lookup activations.
  NodeBound hbm_nodes_one_sided;
  // Tables may live in host memory behind an HBM cache of `host_cache_fraction` of their rows
  // (LRU, the default of the memory-aware planners); host memory per node bounds them. Not
  // computed (fits false) when the preset has no host block.
  NodeBound host_tier_nodes;
  double host_cache_fraction = 0.2;
};

// The summary of `model` under `workload` on `nodes` nodes of `preset` (the scenario's: the
// global batch is batch_per_gpu x its GPUs). Pure: the formulas of plan/memory.hpp.
ModelSummary summarize_model(const DlrmModel& model, const Workload& workload,
                             const HardwarePreset& preset, int nodes);

}  // namespace shardsim
