#include "shardsim/model/dlrm_model.hpp"

#include <gtest/gtest.h>

#include "shardsim/model/table_memory.hpp"
#include "shardsim/model/workload.hpp"

namespace shardsim {
namespace {

DlrmModel criteo_kaggle_like() {
  // OPER Table 1 (Criteo Kaggle): 26 tables, 13 dense features, bottom MLP 512-256-64-16,
  // top MLP 512-256-1.
  DlrmModel m;
  m.tables.resize(26);
  m.dense_features = 13;
  m.bottom_mlp = {512, 256, 64, 16};
  m.top_mlp = {512, 256, 1};
  return m;
}

TEST(DlrmModel, InteractionWidthCountsPairsPlusDenseVector) {
  // F = 26 + 1 = 27 vectors -> 27·26/2 = 351 dot products, plus the 16-wide bottom output.
  EXPECT_EQ(criteo_kaggle_like().interaction_output_width(), 351u + 16u);
}

TEST(DlrmModel, InteractionWidthWithoutBottomMlpUsesDenseFeatures) {
  DlrmModel m;
  m.tables.resize(3);
  m.dense_features = 5;
  // F = 4 -> 6 pairs, plus 5 dense features.
  EXPECT_EQ(m.interaction_output_width(), 11u);
  m.dense_features = 0;
  // No dense vector at all: F = 3 -> 3 pairs.
  EXPECT_EQ(m.interaction_output_width(), 3u);
}

TEST(DlrmModel, MlpParameterCountByHand) {
  // Bottom: 13·512+512 = 7168; 512·256+256 = 131328; 256·64+64 = 16448; 64·16+16 = 1040
  //         -> 155984.
  // Top (input 367): 367·512+512 = 188416; 512·256+256 = 131328; 256·1+1 = 257 -> 320001.
  const DlrmModel m = criteo_kaggle_like();
  EXPECT_EQ(m.mlp_parameter_count(), 155984u + 320001u);
  EXPECT_DOUBLE_EQ(m.mlp_parameter_bytes(), 4.0 * (155984 + 320001));
}

TEST(DlrmModel, EmptyMlpsHaveNoParameters) {
  DlrmModel m;
  m.tables.resize(2);
  EXPECT_EQ(m.mlp_parameter_count(), 0u);
  m.top_mlp = {1};
  // Interaction width: F = 2 -> 1 pair; top: 1·1 + 1 = 2.
  EXPECT_EQ(m.mlp_parameter_count(), 2u);
}

TEST(DlrmModel, OptimizerStatePerRow) {
  EXPECT_DOUBLE_EQ(optimizer_state_bytes_per_row(OptimizerKind::rowwise_adagrad, 128), 4.0);
  EXPECT_DOUBLE_EQ(optimizer_state_bytes_per_row(OptimizerKind::adagrad, 128), 512.0);
  EXPECT_DOUBLE_EQ(optimizer_state_bytes_per_row(OptimizerKind::sgd, 128), 0.0);
  // Adam: two fp32 moments per element, 2 x 4 x 128; partial row-wise Adam: one per element and
  // one per row, 4 x 128 + 4 (FBGEMM EmbOptimType.state_size_nbytes).
  EXPECT_DOUBLE_EQ(optimizer_state_bytes_per_row(OptimizerKind::adam, 128), 1024.0);
  EXPECT_DOUBLE_EQ(optimizer_state_bytes_per_row(OptimizerKind::partial_rowwise_adam, 128), 516.0);
}

// One stored row (core/precision.hpp, FBGEMM's row layouts), by hand:
TEST(DlrmModel, EmbeddingRowBytes) {
  // Float rows: dim x element, whichever TBE stores them.
  EXPECT_DOUBLE_EQ(embedding_row_bytes(Precision::fp32, 64, TableKernel::training), 256.0);
  EXPECT_DOUBLE_EQ(embedding_row_bytes(Precision::bf16, 64, TableKernel::inference), 128.0);
  EXPECT_DOUBLE_EQ(embedding_row_bytes(Precision::fp16, 12, TableKernel::inference), 24.0);
  // int8, training TBE: 64 values + fp32 scale + fp32 bias = 72 B (INT8_EMB_ROW_DIM_OFFSET).
  EXPECT_DOUBLE_EQ(embedding_row_bytes(Precision::int8, 64, TableKernel::training), 72.0);
  // int8, inference TBE: 64 + fp16 scale + fp16 bias = 68 -> padded to 16 B: 80.
  EXPECT_DOUBLE_EQ(embedding_row_bytes(Precision::int8, 64, TableKernel::inference), 80.0);
  // int4: 64 x 4 bits = 32 + 4 = 36 -> 48; int2: 16 + 4 = 20 -> 32.
  EXPECT_DOUBLE_EQ(embedding_row_bytes(Precision::int4, 64, TableKernel::inference), 48.0);
  EXPECT_DOUBLE_EQ(embedding_row_bytes(Precision::int2, 64, TableKernel::inference), 32.0);
  // int4 of 128: 64 + 4 = 68 -> 80; an odd dim packs into whole bytes: 13 x 4 bits -> 7 + 4 -> 16.
  EXPECT_DOUBLE_EQ(embedding_row_bytes(Precision::int4, 128, TableKernel::inference), 80.0);
  EXPECT_DOUBLE_EQ(embedding_row_bytes(Precision::int4, 13, TableKernel::inference), 16.0);
  // fp8: one byte a value, no scale or bias, 16 B rows: 64 -> 64, 20 -> 32.
  EXPECT_DOUBLE_EQ(embedding_row_bytes(Precision::fp8, 64, TableKernel::inference), 64.0);
  EXPECT_DOUBLE_EQ(embedding_row_bytes(Precision::fp8, 20, TableKernel::inference), 32.0);
  // Pooled outputs: the table's element for float tables, fp16 for the quantised ones.
  EXPECT_DOUBLE_EQ(pooled_bytes_per_element(Precision::fp32), 4.0);
  EXPECT_DOUBLE_EQ(pooled_bytes_per_element(Precision::int4), 2.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(Precision::fp8), 1.0);
  EXPECT_TRUE(is_quantized(Precision::int2));
  EXPECT_FALSE(is_quantized(Precision::fp8));
}

TEST(DlrmModel, TableMemory) {
  EmbeddingTable t;
  t.rows = 1000;
  t.dim = 64;
  // 1000 x 64 x 4 bytes; fp16 halves it.
  EXPECT_DOUBLE_EQ(table_weight_bytes(t, Precision::fp32), 256000.0);
  EXPECT_DOUBLE_EQ(table_weight_bytes(t, Precision::fp16), 128000.0);
  EXPECT_DOUBLE_EQ(table_optimizer_state_bytes(t, OptimizerKind::rowwise_adagrad), 4000.0);
  EXPECT_DOUBLE_EQ(table_optimizer_state_bytes(t, OptimizerKind::adagrad), 256000.0);
  // int8 training rows 72 B, int4 inference rows 48 B; Adam 512 B a row.
  EXPECT_DOUBLE_EQ(table_weight_bytes(t, Precision::int8, TableKernel::training), 72000.0);
  EXPECT_DOUBLE_EQ(table_weight_bytes(t, Precision::int4, TableKernel::inference), 48000.0);
  EXPECT_DOUBLE_EQ(table_optimizer_state_bytes(t, OptimizerKind::adam), 512000.0);
}

TEST(DlrmModel, Names) {
  EXPECT_EQ(to_string(OptimizerKind::rowwise_adagrad), "rowwise_adagrad");
  EXPECT_EQ(to_string(OptimizerKind::adagrad), "adagrad");
  EXPECT_EQ(to_string(OptimizerKind::sgd), "sgd");
  EXPECT_EQ(to_string(OptimizerKind::adam), "adam");
  EXPECT_EQ(to_string(OptimizerKind::partial_rowwise_adam), "partial_rowwise_adam");
  EXPECT_EQ(to_string(Precision::int4), "int4");
  EXPECT_EQ(to_string(Precision::fp8), "fp8");
  EXPECT_EQ(to_string(Mode::training), "training");
  EXPECT_EQ(to_string(Mode::inference), "inference");
  EXPECT_EQ(to_string(HotRowLayout::clustered), "clustered");
  EXPECT_EQ(to_string(HotRowLayout::scattered), "scattered");
  EXPECT_EQ(to_string(TraceMode::expected), "expected");
  EXPECT_EQ(to_string(TraceMode::sampled), "sampled");
}

TEST(DlrmModel, ConcatInteractionWidthIsTheTableDimsPlusTheDenseVector) {
  // 26 tables: 10 of dim 16 and 16 of dim 32 = 160 + 512 = 672, plus the 16-wide bottom output.
  DlrmModel m = criteo_kaggle_like();
  for (std::size_t t = 0; t < m.tables.size(); ++t) m.tables[t].dim = t < 10 ? 16 : 32;
  m.interaction = InteractionKind::concat;
  EXPECT_EQ(m.interaction_output_width(), 672u + 16u);
  EXPECT_EQ(to_string(m.interaction), "concat");
}

TEST(DlrmModel, DenseArchParametersJoinTheDenseParameters) {
  DlrmModel m = criteo_kaggle_like();
  const std::uint64_t mlp = m.mlp_parameter_count();
  EXPECT_EQ(m.dense_parameter_count(), mlp);
  m.dense_arch.parameters = 1'000'000;
  EXPECT_EQ(m.dense_parameter_count(), mlp + 1'000'000);
  EXPECT_EQ(m.mlp_parameter_count(), mlp);  // the MLPs alone are unchanged
}

}  // namespace
}  // namespace shardsim
