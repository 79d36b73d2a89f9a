// Embedding forward and fused backward + optimizer: roofline over HBM bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "round_presets.hpp"
#include "shardsim/cost/kernel_cost.hpp"

namespace shardsim {
namespace {

using test::round_gpu;

// L = 1e6 lookups touching D = 4e5 distinct rows, O = 1e5 pooled outputs, 64 fp32 columns
// (row = 256 B), 1e8 rows stored (27 key bits: 4 radix passes of 8 bits). Default parameters:
// f = 0.25, 8 B index and offset, backward index 36 + 4 x 35 = 176 B, 20 backward launches.
EmbeddingWork hand_work() {
  EmbeddingWork w;
  w.lookups = 1e6;
  w.distinct_rows = 4e5;
  w.pooled_outputs = 1e5;
  w.cols = 64;
  w.precision = Precision::fp32;
  w.rows = 1e8;
  return w;
}

TEST(EmbeddingCost, ForwardMatchesHandCalculation) {
  // indices   1e6 x 8 B                          =   8.0e6 B
  // offsets   1e5 x 8 B                          =   0.8e6 B
  // rows      (4e5 + 6e5 x 0.25) x 256 B         = 140.8e6 B
  // outputs   1e5 x 256 B                        =  25.6e6 B
  // total                                        = 175.2e6 B
  // time = 175.2e6 B / 1e12 B/s + 1 launch x 5 us = 175.2 us + 5 us = 180.2 us
  const CostParams p = default_cost_params();
  EXPECT_DOUBLE_EQ(embedding_forward_bytes(hand_work(), p), 175.2e6);
  EXPECT_NEAR(embedding_forward_s(round_gpu(), hand_work(), p), 180.2e-6, 1e-12);
}

TEST(EmbeddingCost, BackwardMatchesHandCalculationRowwiseAdagrad) {
  // index sort      1e6 x 176 B                               = 176.0e6 B
  // grad reads      (min(1e6,1e5) + 9e5 x 0.25) x 256 B       =  3.25e5 x 256 = 83.2e6 B
  // update          2 x 4e5 x (256 B row + 4 B state)         = 208.0e6 B
  //                 (row-wise AdaGrad: one fp32 per row, Neo §5.1)
  // total                                                     = 467.2e6 B
  // time = 467.2 us + 20 launches x 5 us = 567.2 us
  const CostParams p = default_cost_params();
  EXPECT_DOUBLE_EQ(embedding_backward_bytes(hand_work(), OptimizerKind::rowwise_adagrad, p, 1e8),
                   467.2e6);
  EXPECT_NEAR(embedding_backward_s(round_gpu(), hand_work(), OptimizerKind::rowwise_adagrad, p),
              567.2e-6, 1e-12);
}

TEST(EmbeddingCost, BackwardWithSgdHasNoOptimizerState) {
  // update = 2 x 4e5 x 256 B = 204.8e6 B; total = 176 + 83.2 + 204.8 = 464e6 B
  // -> 464 us + 100 us
  const CostParams p = default_cost_params();
  EXPECT_NEAR(embedding_backward_s(round_gpu(), hand_work(), OptimizerKind::sgd, p), 564e-6, 1e-12);
}

TEST(EmbeddingCost, HalfPrecisionHalvesRowBytes) {
  // fp16 row = 128 B: 8e6 + 0.8e6 + 5.5e5 x 128 + 1e5 x 128 = 8.8e6 + 70.4e6 + 12.8e6 = 92e6 B
  EmbeddingWork w = hand_work();
  w.precision = Precision::fp16;
  EXPECT_DOUBLE_EQ(embedding_forward_bytes(w, default_cost_params()), 92e6);
}

TEST(EmbeddingCost, QuantisedRowsCarryScaleAndBiasAndOutputFp16) {
  // int8 in the training TBE: row = 64 + 8 B = 72 B; pooled outputs and their gradients fp16,
  // 64 x 2 = 128 B. Forward: 8e6 + 0.8e6 + 5.5e5 x 72 + 1e5 x 128 = 8.8e6 + 39.6e6 + 12.8e6
  //   = 61.2e6 B.
  // Backward, Adam (512 B of state a row): 176e6 + 3.25e5 x 128 + 2 x 4e5 x (72 + 512)
  //   = 176e6 + 41.6e6 + 467.2e6 = 684.8e6 B.
  const CostParams p = default_cost_params();
  EmbeddingWork w = hand_work();
  w.precision = Precision::int8;
  EXPECT_DOUBLE_EQ(embedding_forward_bytes(w, p), 61.2e6);
  EXPECT_DOUBLE_EQ(embedding_backward_bytes(w, OptimizerKind::adam, p, 1e8), 684.8e6);
  // int4 in the inference TBE: row = round_up(32 + 4, 16) = 48 B:
  // 8.8e6 + 5.5e5 x 48 + 12.8e6 = 8.8e6 + 26.4e6 + 12.8e6 = 48e6 B.
  w.precision = Precision::int4;
  w.kernel = TableKernel::inference;
  EXPECT_DOUBLE_EQ(embedding_forward_bytes(w, p), 48e6);
}

TEST(EmbeddingCost, PartialRowwiseAdamStateInTheUpdate) {
  // fp32 rows 256 B, state 64 x 4 + 4 = 260 B: update 2 x 4e5 x 516 = 412.8e6 B;
  // total = 176e6 + 83.2e6 + 412.8e6 = 672e6 B.
  EXPECT_DOUBLE_EQ(embedding_backward_bytes(hand_work(), OptimizerKind::partial_rowwise_adam,
                                            default_cost_params(), 1e8),
                   672e6);
}

TEST(EmbeddingCost, SkewMakesHotRowsCheap) {
  // Same lookups, fewer distinct rows (a more skewed index distribution) => less time
  // (NeuroShard §2.1). Strictly monotone in distinct rows while f < 1.
  const CostParams p = default_cost_params();
  EmbeddingWork w = hand_work();
  double prev_fwd = 0;
  double prev_bwd = 0;
  for (double distinct : {1e3, 1e4, 1e5, 4e5, 1e6}) {
    w.distinct_rows = distinct;
    const double fwd = embedding_forward_s(round_gpu(), w, p);
    const double bwd = embedding_backward_s(round_gpu(), w, OptimizerKind::rowwise_adagrad, p);
    EXPECT_GT(fwd, prev_fwd) << distinct;
    EXPECT_GT(bwd, prev_bwd) << distinct;
    prev_fwd = fwd;
    prev_bwd = bwd;
  }
}

TEST(EmbeddingCost, NoReuseBenefitMakesDistinctRowsIrrelevant) {
  // f = 1: every lookup reads its row from HBM, so the forward does not depend on D.
  CostParams p = default_cost_params();
  p.repeat_lookup_hbm_fraction = 1.0;
  EmbeddingWork a = hand_work();
  EmbeddingWork b = hand_work();
  b.distinct_rows = 10;
  EXPECT_DOUBLE_EQ(embedding_forward_bytes(a, p), embedding_forward_bytes(b, p));
}

TEST(EmbeddingCost, DistinctRowsAreClampedToLookups) {
  const CostParams p = default_cost_params();
  EmbeddingWork a = hand_work();
  a.distinct_rows = a.lookups;
  EmbeddingWork b = a;
  b.distinct_rows = 2 * a.lookups;  // impossible; treated as every lookup distinct
  EXPECT_DOUBLE_EQ(embedding_forward_bytes(a, p), embedding_forward_bytes(b, p));
}

TEST(EmbeddingCost, MonotoneInLookupsAndColumns) {
  const CostParams p = default_cost_params();
  EmbeddingWork w = hand_work();
  const double base = embedding_forward_s(round_gpu(), w, p);
  EmbeddingWork more_lookups = w;
  more_lookups.lookups *= 2;
  EmbeddingWork wider = w;
  wider.cols *= 2;
  EXPECT_GT(embedding_forward_s(round_gpu(), more_lookups, p), base);
  EXPECT_GT(embedding_forward_s(round_gpu(), wider, p), base);
}

TEST(EmbeddingCost, ZeroWorkCostsNothing) {
  const CostParams p = default_cost_params();
  const EmbeddingWork empty;
  EXPECT_EQ(embedding_forward_s(round_gpu(), empty, p), 0.0);
  EXPECT_EQ(embedding_backward_s(round_gpu(), empty, OptimizerKind::rowwise_adagrad, p), 0.0);
  EXPECT_EQ(embedding_forward_s(round_gpu(), std::span<const EmbeddingWork>{}, p), 0.0);
}

TEST(EmbeddingCost, FusedShardsPayOneLaunch) {
  // Two copies of the hand work in one fused kernel: 2 x 175.2 us + one 5 us launch = 355.4 us,
  // versus 360.4 us as two separate kernels.
  const CostParams p = default_cost_params();
  const std::vector<EmbeddingWork> works = {hand_work(), hand_work()};
  EXPECT_NEAR(embedding_forward_s(round_gpu(), works, p), 355.4e-6, 1e-12);
  EXPECT_NEAR(2 * embedding_forward_s(round_gpu(), hand_work(), p), 360.4e-6, 1e-12);
  // An empty shard adds nothing to a fused kernel.
  const std::vector<EmbeddingWork> with_empty = {hand_work(), EmbeddingWork{}};
  EXPECT_DOUBLE_EQ(embedding_forward_s(round_gpu(), with_empty, p),
                   embedding_forward_s(round_gpu(), hand_work(), p));
}

TEST(EmbeddingCost, SortKeyBitsAreFbgemmsTotalHashSizeBits) {
  // int(log2(rows)) + 1, and 0 for no rows.
  EXPECT_EQ(sort_key_bits(0), 0);
  EXPECT_EQ(sort_key_bits(1), 1);
  EXPECT_EQ(sort_key_bits(2), 2);
  EXPECT_EQ(sort_key_bits(3), 2);
  EXPECT_EQ(sort_key_bits(1000), 10);
  EXPECT_EQ(sort_key_bits(1024), 11);
  EXPECT_EQ(sort_key_bits(1e8), 27);
  EXPECT_EQ(sort_key_bits(std::ldexp(1.0, 40) - 1), 40);
  EXPECT_EQ(sort_key_bits(std::ldexp(1.0, 40)), 41);
  const CostParams p = default_cost_params();  // 8 bits a pass
  EXPECT_EQ(radix_sort_passes(0, p), 0);
  EXPECT_EQ(radix_sort_passes(1, p), 1);
  EXPECT_EQ(radix_sort_passes(8, p), 1);
  EXPECT_EQ(radix_sort_passes(9, p), 2);
  EXPECT_EQ(radix_sort_passes(27, p), 4);
  EXPECT_EQ(radix_sort_passes(64, p), 8);
}

TEST(EmbeddingCost, FewerRowsSortFewerPasses) {
  // 1e6 rows: 20 bits, 3 passes: index bytes 36 + 3 x 35 = 141 B a lookup, 35e6 B fewer than
  // the hand work's 4 passes. 1000 rows: 10 bits, 2 passes, 70e6 B fewer.
  const CostParams p = default_cost_params();
  const double at_1e8 = embedding_backward_bytes(hand_work(), OptimizerKind::sgd, p, 1e8);
  EXPECT_DOUBLE_EQ(at_1e8 - embedding_backward_bytes(hand_work(), OptimizerKind::sgd, p, 1e6),
                   35e6);
  EXPECT_DOUBLE_EQ(at_1e8 - embedding_backward_bytes(hand_work(), OptimizerKind::sgd, p, 1000),
                   70e6);
}

TEST(EmbeddingCost, AFusedKernelSortsTheKeysOfAllItsRows) {
  // Two shards of 2^23 rows: alone each sorts 24 bits (3 passes); fused, the ids span 2^24 rows,
  // 25 bits, 4 passes: 35 B more a lookup over both shards' 2e6 lookups.
  const CostParams p = default_cost_params();
  EmbeddingWork w = hand_work();
  w.rows = std::ldexp(1.0, 23);
  const std::vector<EmbeddingWork> two = {w, w};
  const double alone = embedding_backward_s(round_gpu(), w, OptimizerKind::sgd, p);
  const double launches = 20 * 5e-6;
  EXPECT_NEAR(embedding_backward_s(round_gpu(), two, OptimizerKind::sgd, p),
              2 * (alone - launches) + 2e6 * 35 / 1e12 + launches, 1e-12);
}

TEST(EmbeddingCost, LookupsWithoutRowsAreABug) {
  // A work that sorts lookups over no rows: the rows were not filled in upstream.
  EmbeddingWork w = hand_work();
  w.rows = 0;
  EXPECT_THROW(embedding_backward_s(round_gpu(), w, OptimizerKind::sgd, default_cost_params()),
               std::invalid_argument);
  EXPECT_NO_THROW(embedding_forward_s(round_gpu(), w, default_cost_params()));
}

TEST(EmbeddingCost, NegativeWorkIsRejected) {
  EmbeddingWork w = hand_work();
  w.lookups = -1;
  EXPECT_THROW(embedding_forward_s(round_gpu(), w, default_cost_params()), std::invalid_argument);
}

TEST(EmbeddingCost, GpuWithoutHbmBandwidthIsAnInputError) {
  GpuSpec gpu = round_gpu();
  gpu.hbm_achievable_Bps = 0;
  try {
    embedding_forward_s(gpu, hand_work(), default_cost_params());
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "gpu.hbm_achievable_GBps");
  }
}

}  // namespace
}  // namespace shardsim
