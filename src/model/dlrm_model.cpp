#include "shardsim/model/dlrm_model.hpp"

namespace shardsim {

std::string to_string(OptimizerKind k) {
  switch (k) {
    case OptimizerKind::rowwise_adagrad:
      return "rowwise_adagrad";
    case OptimizerKind::adagrad:
      return "adagrad";
    case OptimizerKind::sgd:
      return "sgd";
    case OptimizerKind::adam:
      return "adam";
    case OptimizerKind::partial_rowwise_adam:
      return "partial_rowwise_adam";
  }
  return "?";
}

std::string to_string(DenseOptimizerKind k) {
  switch (k) {
    case DenseOptimizerKind::adam:
      return "adam";
    case DenseOptimizerKind::adagrad:
      return "adagrad";
    case DenseOptimizerKind::momentum:
      return "momentum";
    case DenseOptimizerKind::sgd:
      return "sgd";
  }
  return "?";
}

int dense_optimizer_states(DenseOptimizerKind k) {
  switch (k) {
    case DenseOptimizerKind::adam:
      return 2;
    case DenseOptimizerKind::adagrad:
    case DenseOptimizerKind::momentum:
      return 1;
    case DenseOptimizerKind::sgd:
      return 0;
  }
  return 0;
}

double optimizer_state_bytes_per_row(OptimizerKind k, std::uint32_t dim) {
  switch (k) {
    // Row-wise sparse AdaGrad keeps one fp32 moment per row, "a 1D tensor with H elements
    // instead of H x D" (Neo §5.1).
    case OptimizerKind::rowwise_adagrad:
      return 4.0;
    // Element-wise AdaGrad: one fp32 moment per element.
    case OptimizerKind::adagrad:
      return 4.0 * dim;
    case OptimizerKind::sgd:
      return 0.0;
    // Adam: first and second moments per element (FBGEMM EmbOptimType.ADAM,
    // state_size_nbytes = D·4 + D·4 at fp32 states).
    case OptimizerKind::adam:
      return 8.0 * dim;
    // Partial row-wise Adam: a per-element first moment and one second moment per row, padded to
    // 4 B (EmbOptimType.PARTIAL_ROWWISE_ADAM: pad4(4) + D·4).
    case OptimizerKind::partial_rowwise_adam:
      return 4.0 * dim + 4.0;
  }
  return 0.0;
}

namespace {
// Width of the dense vector that enters the interaction: the bottom MLP's output, or the dense
// features themselves when there is no bottom MLP.
std::uint64_t dense_output_width(const DlrmModel& m) {
  return m.bottom_mlp.empty() ? m.dense_features : m.bottom_mlp.back();
}

// Weights + biases of a stack of dense layers: Σ (in·out + out).
std::uint64_t stack_parameters(std::uint64_t input_width,
                               const std::vector<std::uint32_t>& layers) {
  std::uint64_t count = 0;
  std::uint64_t in = input_width;
  for (std::uint32_t out : layers) {
    count += in * out + out;
    in = out;
  }
  return count;
}
}  // namespace

std::string to_string(InteractionKind k) {
  return k == InteractionKind::concat ? "concat" : "dot";
}

std::uint64_t DlrmModel::interaction_output_width() const {
  if (interaction == InteractionKind::concat) {
    std::uint64_t width = dense_output_width(*this);
    for (const auto& t : tables) width += t.dim;
    return width;
  }
  // DLRM's dot interaction (Naumov et al. 2019) over F = tables + 1 vectors (the pooled
  // embeddings and the dense vector): F(F-1)/2 pairwise dot products, concatenated with the dense
  // vector. Without any dense input there is no dense vector: F = tables.
  const std::uint64_t dense = dense_output_width(*this);
  const std::uint64_t f = tables.size() + (dense > 0 ? 1 : 0);
  const std::uint64_t pairs = f > 0 ? f * (f - 1) / 2 : 0;
  return pairs + dense;
}

std::uint64_t DlrmModel::mlp_parameter_count() const {
  return stack_parameters(dense_features, bottom_mlp) +
         stack_parameters(interaction_output_width(), top_mlp);
}

std::uint64_t DlrmModel::bottom_mlp_parameter_count() const {
  return stack_parameters(dense_features, bottom_mlp);
}

std::uint64_t DlrmModel::dense_parameter_count() const {
  return mlp_parameter_count() + dense_arch.parameters;
}

double DlrmModel::table_row_bytes(std::uint32_t cols) const {
  return embedding_row_bytes(table_precision, cols, table_kernel);
}

double DlrmModel::mlp_parameter_bytes() const {
  // fp32 master weights: 4 bytes per parameter, whatever precision the MLP kernels run at.
  return 4.0 * static_cast<double>(mlp_parameter_count());
}

}  // namespace shardsim
