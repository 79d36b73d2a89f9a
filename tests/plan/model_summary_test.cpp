// The model summary of `validate` and `plan` (plan/model_summary.hpp; docs/report.md "Model
// summary") against hand calculations.
#include "shardsim/plan/model_summary.hpp"

#include <gtest/gtest.h>

#include "support/hand_model.hpp"
#include "support/hand_preset.hpp"

namespace shardsim {
namespace model_summary_test {

Workload training(std::uint32_t batch_per_gpu) {
  Workload w;
  w.mode = Mode::training;
  w.batch_per_gpu = batch_per_gpu;
  return w;
}

// hand_model(4 tables, dim 32, pooling 10): dense 16 -> bottom [64] -> dot interaction of 5
// vectors (10 pairs + 64) -> top [1].
constexpr double kDenseParams = (16 * 64 + 64) + (74 * 1 + 1);  // 1163
// Training: fp32 weights, gradients and two Adam moments.
constexpr double kDenseTrainingBytes = 16 * kDenseParams;
// Local batch, training (x2): received pooled embeddings 4 x 32 fp32 values, MLP outputs of the
// widths 16 + 64 + 74 + 1 = 155 at 4 B.
constexpr double kLocalPerSample = 2 * (4 * 32 * 4 + 155 * 4);  // 2264 B
// Lookups of one sample, training: per table 32 fp32 outputs and their gradients, 10 int64 indices.
constexpr double kOutputsPerSample = 4 * (2 * 32 * 4);  // 1024 B
constexpr double kIndicesPerSample = 4 * (10 * 8);      // 320 B
// A row: 32 fp32 values + row-wise AdaGrad's one float.
constexpr double kStoredRowBytes = 32 * 4 + 4;

TEST(ModelSummary, TablesBySizeClassAndTotals) {
  // Weights of 32 fp32 columns (128 B a row): 128 kB, 128 MB, 12.8 GB, and 512 GB (128 columns).
  DlrmModel m = testing::hand_model(4, 1000, 32, 10);
  m.tables[1].rows = 1'000'000;
  m.tables[2].rows = 100'000'000;
  m.tables[3].rows = 1'000'000'000;
  m.tables[3].dim = 128;
  const ModelSummary s = summarize_model(m, training(100), testing::hand_preset(8), 2);
  EXPECT_EQ(s.tables, 4u);
  EXPECT_DOUBLE_EQ(s.rows, 1'101'001'000.0);
  ASSERT_EQ(s.size_classes.size(), 5u);
  const std::size_t counts[] = {1, 1, 0, 1, 1};
  const double weights[] = {128e3, 128e6, 0, 12.8e9, 512e9};
  const double rows[] = {1000, 1e6, 0, 1e8, 1e9};
  for (std::size_t c = 0; c < 5; ++c) {
    EXPECT_EQ(s.size_classes[c].tables, counts[c]) << s.size_classes[c].label;
    EXPECT_DOUBLE_EQ(s.size_classes[c].weight_bytes, weights[c]) << s.size_classes[c].label;
    EXPECT_DOUBLE_EQ(s.size_classes[c].rows, rows[c]) << s.size_classes[c].label;
    // Row-wise AdaGrad: 4 B a row.
    EXPECT_DOUBLE_EQ(s.size_classes[c].optimizer_bytes, 4 * rows[c]) << s.size_classes[c].label;
  }
  EXPECT_EQ(s.size_classes[0].label, "< 1 MB");
  EXPECT_EQ(s.size_classes[4].label, ">= 100 GB");
  EXPECT_DOUBLE_EQ(s.weight_bytes, 128e3 + 128e6 + 12.8e9 + 512e9);
  EXPECT_DOUBLE_EQ(s.optimizer_bytes, 4 * s.rows);
  // 100 samples a GPU on 2 nodes of 8 GPUs.
  EXPECT_EQ(s.global_batch, 1600u);
  EXPECT_FALSE(s.global_batch_given);
  EXPECT_EQ(s.preset, "hand");
  EXPECT_DOUBLE_EQ(s.hbm_bytes_per_gpu, 40e9);
}

TEST(ModelSummary, DenseStateAndActivationsPerSample) {
  const DlrmModel m = testing::hand_model(4, 1000, 32, 10);
  const ModelSummary s = summarize_model(m, training(1000), testing::hand_preset(1), 1);
  EXPECT_EQ(s.dense_parameters, static_cast<std::uint64_t>(kDenseParams));
  EXPECT_DOUBLE_EQ(s.dense_bytes_per_gpu, kDenseTrainingBytes);
  EXPECT_DOUBLE_EQ(s.reserved_bytes_per_gpu, 0.0);
  EXPECT_DOUBLE_EQ(s.local_activation_bytes_per_sample, kLocalPerSample);
  EXPECT_DOUBLE_EQ(s.lookup_output_bytes_per_sample, kOutputsPerSample);
  EXPECT_DOUBLE_EQ(s.lookup_index_bytes_per_sample, kIndicesPerSample);
  EXPECT_DOUBLE_EQ(s.lookup_activation_bytes_per_sample(), kOutputsPerSample + kIndicesPerSample);
  EXPECT_DOUBLE_EQ(s.base_bytes_per_gpu, kDenseTrainingBytes + 1000 * kLocalPerSample);
}

// The dense state follows model.dense_optimizer: weights and gradients (8 B) and its states
// (4 B each): SGD none, momentum and AdaGrad one, Adam two.
TEST(ModelSummary, DenseStateFollowsTheDenseOptimizer) {
  DlrmModel m = testing::hand_model(4, 1000, 32, 10);
  const std::pair<DenseOptimizerKind, double> cases[] = {{DenseOptimizerKind::sgd, 8},
                                                         {DenseOptimizerKind::momentum, 12},
                                                         {DenseOptimizerKind::adagrad, 12},
                                                         {DenseOptimizerKind::adam, 16}};
  for (const auto& [kind, bytes] : cases) {
    m.dense_optimizer = kind;
    const ModelSummary s = summarize_model(m, training(1000), testing::hand_preset(1), 1);
    EXPECT_DOUBLE_EQ(s.dense_bytes_per_gpu, bytes * kDenseParams) << to_string(kind);
  }
}

TEST(ModelSummary, InferenceKeepsNoOptimizerStateNorGradients) {
  const DlrmModel m = testing::hand_model(4, 1000, 32, 10);
  Workload w = training(10);
  w.mode = Mode::inference;
  const ModelSummary s = summarize_model(m, w, testing::hand_preset(1), 1);
  EXPECT_DOUBLE_EQ(s.optimizer_bytes, 0.0);
  EXPECT_DOUBLE_EQ(s.dense_bytes_per_gpu, 4 * kDenseParams);
  EXPECT_DOUBLE_EQ(s.local_activation_bytes_per_sample, kLocalPerSample / 2);
  EXPECT_DOUBLE_EQ(s.lookup_output_bytes_per_sample, kOutputsPerSample / 2);
  EXPECT_DOUBLE_EQ(s.lookup_index_bytes_per_sample, kIndicesPerSample);
}

TEST(ModelSummary, WeightsAtTheStoredRowSize) {
  // int8 rows in the training TBE: 32 values + fp32 scale and bias = 40 B.
  DlrmModel m = testing::hand_model(4, 1000, 32, 10);
  m.table_precision = Precision::int8;
  const ModelSummary s = summarize_model(m, training(10), testing::hand_preset(1), 1);
  EXPECT_DOUBLE_EQ(s.weight_bytes, 4 * 1000 * 40.0);
  EXPECT_EQ(s.table_precision, Precision::int8);
}

// 4 tables of 140M rows: 4 x 140e6 x 132 B = 73.92 GB stored. One GPU a node (40 GB HBM, no
// reserve), 1e6 samples a GPU: a GPU keeps 40e9 - 18,608 - 1e6 x 2264 = 37.736 GB for tables, and
// 36.392 GB once the lookups of its 1e6 samples (1344 B each) are held too.
constexpr std::uint64_t kBigRows = 140'000'000;
constexpr double kStored = 4 * kBigRows * kStoredRowBytes;
constexpr double kFreeOneSided = 40e9 - kDenseTrainingBytes - 1e6 * kLocalPerSample;
constexpr double kFreePooled = kFreeOneSided - 1e6 * (kOutputsPerSample + kIndicesPerSample);

TEST(ModelSummary, FewestNodesByHbm) {
  const DlrmModel m = testing::hand_model(4, kBigRows, 32, 10);
  const ModelSummary s = summarize_model(m, training(1'000'000), testing::hand_preset(1), 1);
  EXPECT_DOUBLE_EQ(s.stored_bytes(), kStored);
  // Pooled plans: 2 x 36.392 = 72.78 GB < 73.92 GB <= 3 x 36.392 GB.
  ASSERT_LT(2 * kFreePooled, kStored);
  ASSERT_GE(3 * kFreePooled, kStored);
  EXPECT_TRUE(s.hbm_nodes.fits);
  EXPECT_EQ(s.hbm_nodes.nodes, 3);
  EXPECT_EQ(s.hbm_nodes.gpus, 3);
  // One-sided plans: 73.92 GB <= 2 x 37.736 GB.
  ASSERT_GE(2 * kFreeOneSided, kStored);
  EXPECT_EQ(s.hbm_nodes_one_sided.nodes, 2);
  // The hand preset has no host block.
  EXPECT_FALSE(s.host_tier_nodes.fits);
  EXPECT_DOUBLE_EQ(s.host_bytes_per_node, 0.0);
  // GPUs per node multiply: 2 GPUs a node hold it on 2 nodes (4 GPUs).
  const ModelSummary two = summarize_model(m, training(1'000'000), testing::hand_preset(2), 1);
  EXPECT_EQ(two.hbm_nodes.nodes, 2);
  EXPECT_EQ(two.hbm_nodes.gpus, 4);
  EXPECT_EQ(two.hbm_nodes_one_sided.nodes, 1);
}

TEST(ModelSummary, AGlobalBatchIsSharedByMoreGpus) {
  // workload.global_batch of 1e6 samples (one GPU in the scenario): on 2 GPUs each holds the
  // local activations of 5e5 samples, and the lookups of all 1e6 are held once:
  // 2 x (40e9 - 18,608 - 5e5 x 2264) - 1e6 x 1344 = 76.39 GB >= 73.92 GB.
  const DlrmModel m = testing::hand_model(4, kBigRows, 32, 10);
  Workload w = training(1'000'000);
  w.global_batch_given = true;
  const ModelSummary s = summarize_model(m, w, testing::hand_preset(1), 1);
  EXPECT_EQ(s.global_batch, 1'000'000u);
  EXPECT_TRUE(s.global_batch_given);
  EXPECT_EQ(s.hbm_nodes.nodes, 2);
}

TEST(ModelSummary, FewestNodesWithHostMemory) {
  // Caching a table (20% of its rows, LRU) keeps 28M slots x (128 B row + 8 B index + 8 B
  // timestamp) = 4.032 GB in HBM of its 18.48 GB: it saves 14.448 GB of HBM per 18.48 GB of host
  // memory. On 1 node 73.92 - 36.392 = 37.528 GB must leave HBM: 37.528 x 18.48 / 14.448 = 48.0
  // GB of host memory.
  const DlrmModel m = testing::hand_model(4, kBigRows, 32, 10);
  HardwarePreset p = testing::hand_preset(1);
  p.host.memory_bytes_per_node = 100e9;
  const ModelSummary roomy = summarize_model(m, training(1'000'000), p, 1);
  EXPECT_EQ(roomy.hbm_nodes.nodes, 3);  // unchanged by the host
  EXPECT_TRUE(roomy.host_tier_nodes.fits);
  EXPECT_EQ(roomy.host_tier_nodes.nodes, 1);
  EXPECT_DOUBLE_EQ(roomy.host_cache_fraction, 0.2);
  // 40 GB of host memory a node: 48.0 GB do not fit one node; on 2 nodes 1.14 GB leave HBM.
  const double host_on_one = (kStored - kFreePooled) * (kBigRows * kStoredRowBytes) /
                             (kBigRows * kStoredRowBytes - 28e6 * 144.0);
  ASSERT_GT(host_on_one, 40e9);
  p.host.memory_bytes_per_node = 40e9;
  EXPECT_EQ(summarize_model(m, training(1'000'000), p, 1).host_tier_nodes.nodes, 2);
}

TEST(ModelSummary, NoClusterHoldsAGpuWhoseBaseMemoryExceedsItsHbm) {
  const DlrmModel m = testing::hand_model(4, 1000, 32, 10);
  HardwarePreset p = testing::hand_preset(8);
  p.reserved_memory_bytes = 41e9;
  p.host.memory_bytes_per_node = 1e12;
  const ModelSummary s = summarize_model(m, training(10), p, 1);
  EXPECT_FALSE(s.hbm_nodes.fits);
  EXPECT_FALSE(s.hbm_nodes_one_sided.fits);
  EXPECT_FALSE(s.host_tier_nodes.fits);
}

}  // namespace model_summary_test
}  // namespace shardsim
