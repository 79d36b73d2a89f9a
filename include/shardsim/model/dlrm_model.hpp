#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "shardsim/core/precision.hpp"
#include "shardsim/model/embedding_table.hpp"

namespace shardsim {

enum class OptimizerKind { rowwise_adagrad, adagrad, sgd };
std::string to_string(OptimizerKind k);

// Bytes of optimizer state per embedding row: row-wise AdaGrad keeps one float per row
// (Neo §5.1), AdaGrad one per element, SGD none.
double optimizer_state_bytes_per_row(OptimizerKind k, std::uint32_t dim);

struct DlrmModel {
  std::vector<EmbeddingTable> tables;
  std::uint32_t dense_features = 0;
  std::vector<std::uint32_t> bottom_mlp;  // layer output widths; input = dense_features
  std::vector<std::uint32_t> top_mlp;     // input = interaction output
  Precision table_precision = Precision::fp32;
  // Wire formats of the embedding traffic (Neo §8.4: "FP16 in forward AlltoAll and BF16 in
  // backward AlltoAll"): comm_precision for the pooled embeddings of the forward pass (and the
  // input they are sized from), comm_bwd_precision for their gradients and the gradient
  // AllReduces of the backward pass.
  Precision comm_precision = Precision::fp32;
  Precision comm_bwd_precision = Precision::fp32;
  Precision mlp_precision = Precision::tf32;
  OptimizerKind optimizer = OptimizerKind::rowwise_adagrad;

  // Width of the dot interaction output: pairwise dot products of the (tables + 1) vectors
  // plus the bottom MLP output (DLRM's interaction; assumes equal dims as DLRM does).
  std::uint64_t interaction_output_width() const;
  std::uint64_t mlp_parameter_count() const;  // weights + biases of both MLPs
  double mlp_parameter_bytes() const;         // at fp32 master weights
};

}  // namespace shardsim
