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
}

TEST(DlrmModel, Names) {
  EXPECT_EQ(to_string(OptimizerKind::rowwise_adagrad), "rowwise_adagrad");
  EXPECT_EQ(to_string(OptimizerKind::adagrad), "adagrad");
  EXPECT_EQ(to_string(OptimizerKind::sgd), "sgd");
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
