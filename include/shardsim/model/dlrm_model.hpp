#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "shardsim/core/precision.hpp"
#include "shardsim/model/embedding_table.hpp"

namespace shardsim {

enum class OptimizerKind { rowwise_adagrad, adagrad, sgd, adam, partial_rowwise_adam };
std::string to_string(OptimizerKind k);

// Bytes of optimizer state per embedding row (fp32 states, FBGEMM's EmbOptimType
// state_size_nbytes): row-wise AdaGrad keeps one float per row (Neo §5.1), AdaGrad one per
// element, Adam two per element, partial row-wise Adam one per element and one per row (padded
// to 4 B), SGD none.
double optimizer_state_bytes_per_row(OptimizerKind k, std::uint32_t dim);

// The optimizer of the data-parallel dense parameters (`model.dense_optimizer`), as PyTorch's
// torch.optim updates fp32 parameters: Adam keeps two states per parameter (exp_avg,
// exp_avg_sq), AdaGrad one (state_sum), SGD with momentum one (momentum_buffer), plain SGD none.
enum class DenseOptimizerKind { adam, adagrad, momentum, sgd };
std::string to_string(DenseOptimizerKind k);
int dense_optimizer_states(DenseOptimizerKind k);  // fp32 states per parameter

// A dense arch beyond the DLRM MLPs (`model.dense_arch`), e.g. DHEN layers or transformer
// blocks of a large ranking model, given only by its forward FLOPs per sample and its
// parameters: its time follows the MLP roofline (FLOPs / achievable FLOP/s, backward twice the
// forward) and its parameters join the dense state and the gradient AllReduce. docs/model.md.
struct DenseArch {
  double flops_per_sample = 0;   // forward
  std::uint64_t parameters = 0;  // weights (fp32 master copy, like the MLPs)
};

// How the pooled embeddings and the dense vector meet (`model.interaction`): DLRM's pairwise
// dot products (Naumov et al. 2019), or their concatenation (Wide & Deep style), which models
// with thousands of tables use instead of V² dot products.
enum class InteractionKind { dot, concat };
std::string to_string(InteractionKind k);

struct DlrmModel {
  std::vector<EmbeddingTable> tables;
  // `model.prune_fraction` as written: the share pruned from every table that gives no fraction
  // of its own (the tables above are already pruned; this is kept so that they can be written
  // out again, io/tables_writer.hpp).
  double prune_fraction = 0;
  std::uint32_t dense_features = 0;
  std::vector<std::uint32_t> bottom_mlp;  // layer output widths; input = dense_features
  std::vector<std::uint32_t> top_mlp;     // input = interaction output
  Precision table_precision = Precision::fp32;
  // The TBE that stores the tables: the scenario loader sets it from workload.mode; it decides
  // the row layout of int8 tables (embedding_row_bytes, core/precision.hpp).
  TableKernel table_kernel = TableKernel::training;
  // Wire formats of the embedding traffic (Neo §8.4: "FP16 in forward AlltoAll and BF16 in
  // backward AlltoAll"): comm_precision for the pooled embeddings of the forward pass (and the
  // input they are sized from), comm_bwd_precision for their gradients and the gradient
  // AllReduces of replicated embedding blocks.
  Precision comm_precision = Precision::fp32;
  Precision comm_bwd_precision = Precision::fp32;
  // Wire format of the dense gradient AllReduce (MLPs and dense arch): fp32 as DDP sends the
  // gradients of fp32 parameters; fp16/bf16 as DDP's compression hooks. Neo §8.4 quantizes the
  // AlltoAlls only, and TorchRec's QComms covers the embedding traffic only.
  Precision dense_grad_precision = Precision::fp32;
  Precision mlp_precision = Precision::tf32;
  OptimizerKind optimizer = OptimizerKind::rowwise_adagrad;  // of the embedding tables
  DenseOptimizerKind dense_optimizer = DenseOptimizerKind::adam;
  DenseArch dense_arch;  // none by default
  InteractionKind interaction = InteractionKind::dot;

  // Width of the interaction output. dot: pairwise dot products of the (tables + 1) vectors
  // plus the bottom MLP output (DLRM's interaction; assumes equal dims as DLRM does); concat:
  // the sum of the table dims plus the bottom MLP output.
  std::uint64_t interaction_output_width() const;
  std::uint64_t mlp_parameter_count() const;         // weights + biases of both MLPs
  std::uint64_t bottom_mlp_parameter_count() const;  // weights + biases of the bottom MLP
  // Every data-parallel dense parameter: the MLPs and the dense arch (memory, AllReduce).
  std::uint64_t dense_parameter_count() const;
  double mlp_parameter_bytes() const;  // at fp32 master weights
  // Bytes of one stored row of `cols` columns of a table (or of a column shard, which FBGEMM
  // stores, and quantises, as a table of its own): embedding_row_bytes at table_precision.
  double table_row_bytes(std::uint32_t cols) const;
};

}  // namespace shardsim
