// OPER §3.2's cost matrix L and Eq. 1-3, on OPER Fig. 2's situation: three tables on two GPUs,
// placed table-wise, row-wise, per embedding, and per embedding with duplication. Every value
// below is computed by hand in the comments.
#include <gtest/gtest.h>

#include "plan/oper/oper_fixture.hpp"
#include "plan/oper/oper_model.hpp"

namespace shardsim::oper {
namespace {

using testing::OperFixture;

// Rows of 4 fp32 = 16 B. Hand preset, no losses:
//   L[i][i] = (16 + 8) B / 1e12 B/s = 24 ps
//   L[i][j] = 16 B / 100e9 B/s = 160 ps       (same node)
//           = 16 B / 10e9 B/s  = 1600 ps      (other node)
constexpr double kLocal = 24e-12, kNear = 160e-12, kFar = 1600e-12;

TEST(OperCostMatrix, FromTopologyAndCostModel) {
  const OperFixture f(2, 2, {{1}}, 1);  // 2 nodes x 2 GPUs
  const CostMatrix L(f.cluster, f.cost);
  ASSERT_EQ(L.num_gpus(), 4);
  EXPECT_DOUBLE_EQ(L.row_s(0, 0, 16), kLocal);
  EXPECT_DOUBLE_EQ(L.row_s(0, 1, 16), kNear);
  EXPECT_DOUBLE_EQ(L.row_s(1, 0, 16), kNear);
  EXPECT_DOUBLE_EQ(L.row_s(0, 2, 16), kFar);
  EXPECT_DOUBLE_EQ(L.row_s(3, 0, 16), kFar);
  EXPECT_EQ(L.level(0, 0), 0);
  EXPECT_EQ(L.level(2, 3), 1);
  EXPECT_EQ(L.level(1, 2), 2);
  // Per-row overheads add to remote rows only: 16 B / 10 GB/s + 5 ns across nodes.
  CostParams c = f.cost;
  c.one_sided_scale_out_overhead_s = 5e-9;
  c.one_sided_scale_up_overhead_s = 1e-9;
  const CostMatrix M(f.cluster, c);
  EXPECT_DOUBLE_EQ(M.row_s(0, 2, 16), kFar + 5e-9);
  EXPECT_DOUBLE_EQ(M.row_s(0, 1, 16), kNear + 1e-9);
  EXPECT_DOUBLE_EQ(M.row_s(0, 0, 16), kLocal);
}

TEST(OperCostMatrix, MeanRemoteRowIsTheMeanOverEveryPair) {
  // 2 nodes x 2 GPUs: of the 12 ordered pairs 4 are in a node (kNear), 8 across (kFar).
  const OperFixture f(2, 2, {{1}}, 1);
  const CostMatrix L(f.cluster, f.cost);
  EXPECT_NEAR(L.mean_remote_row_s(16), (4 * kNear + 8 * kFar) / 12, 1e-24);
  // Against the pairs themselves on 3 nodes x 4 GPUs and another row size.
  const OperFixture g(3, 4, {{1}}, 1);
  const CostMatrix M(g.cluster, g.cost);
  double sum = 0;
  for (int i = 0; i < M.num_gpus(); ++i) {
    for (int j = 0; j < M.num_gpus(); ++j) {
      if (i != j) sum += M.row_s(i, j, 64);
    }
  }
  EXPECT_NEAR(M.mean_remote_row_s(64), sum / (12.0 * 11), 1e-12 * sum / (12.0 * 11));
}

// Fig. 2: tables A, B, C of 4 rows each; per-GPU access counts A: 8 4 2 2, B: 6 6 2 2,
// C: 4 4 4 4 (Fig. 2's own counts are in the figure, lost in the text copy). Footprint 16 B a
// row (inference: no optimizer state).
Partition part(std::size_t table, std::uint64_t b, std::uint64_t e, double access) {
  Partition p;
  p.table = table;
  p.ranks = {b, e};
  p.access = access;
  p.bytes = 16.0 * static_cast<double>(e - b);
  p.row_bytes = 16;
  return p;
}

TEST(OperEquations, TableWiseFig2a) {
  const OperFixture f(2, 1, {{1}}, 1);
  const CostMatrix L(f.cluster, f.cost);
  // A and C on GPU 0, B on GPU 1 (the whole tables; accesses 16, 16, 16).
  const std::vector<Partition> parts = {part(0, 0, 4, 16), part(1, 0, 4, 16), part(2, 0, 4, 16)};
  Placement pl;
  pl.owner = {0, 1, 0};
  pl.fetch.resize(3);
  const ModelTotals t = evaluate(parts, pl, L);
  // Eq. 1: M_0 = (4 + 4) x 16 = 128 B, M_1 = 64 B.
  EXPECT_DOUBLE_EQ(t.memory_bytes[0], 128);
  EXPECT_DOUBLE_EQ(t.memory_bytes[1], 64);
  // Eq. 2: both GPUs fetch every partition: E_0 = (16 + 16) x 2 x 24 ps = 1536 ps,
  // E_1 = 16 x 2 x 24 ps = 768 ps.
  EXPECT_NEAR(t.lookup_s[0], 1536e-12, 1e-24);
  EXPECT_NEAR(t.lookup_s[1], 768e-12, 1e-24);
  // Eq. 3: C[0][1] = 16 x 160 ps = 2560 ps (GPU 0 fetching B), C[1][0] = 32 x 160 ps = 5120 ps;
  // the diagonals are local lookups: C[0][0] = 32 x 24 ps, C[1][1] = 16 x 24 ps.
  EXPECT_NEAR(t.comm(0, 1), 2560e-12, 1e-24);
  EXPECT_NEAR(t.comm(1, 0), 5120e-12, 1e-24);
  EXPECT_NEAR(t.comm(0, 0), 768e-12, 1e-24);
  EXPECT_NEAR(t.comm(1, 1), 384e-12, 1e-24);
  EXPECT_NEAR(t.fetch_s(0), 2560e-12, 1e-24);
  EXPECT_NEAR(t.fetch_s(1), 5120e-12, 1e-24);
  // Asymmetric communication and workload, as Fig. 2a shows: DoB of fetch cost 0.5.
  EXPECT_DOUBLE_EQ(degree_of_balance(std::vector<double>{t.fetch_s(0), t.fetch_s(1)}), 0.5);
}

TEST(OperEquations, RowWiseFig2b) {
  const OperFixture f(2, 1, {{1}}, 1);
  const CostMatrix L(f.cluster, f.cost);
  // Every table's first two rows on GPU 0, last two on GPU 1: accesses A 12 | 4, B 12 | 4,
  // C 8 | 8.
  const std::vector<Partition> parts = {part(0, 0, 2, 12), part(0, 2, 4, 4), part(1, 0, 2, 12),
                                        part(1, 2, 4, 4),  part(2, 0, 2, 8), part(2, 2, 4, 8)};
  Placement pl;
  pl.owner = {0, 1, 0, 1, 0, 1};
  pl.fetch.resize(6);
  const ModelTotals t = evaluate(parts, pl, L);
  EXPECT_DOUBLE_EQ(t.memory_bytes[0], 96);  // memory balanced: 6 rows each
  EXPECT_DOUBLE_EQ(t.memory_bytes[1], 96);
  // E_0 = 32 x 2 x 24 ps = 1536 ps; E_1 = 16 x 2 x 24 ps = 768 ps: a 2x workload gap.
  EXPECT_NEAR(t.lookup_s[0], 1536e-12, 1e-24);
  EXPECT_NEAR(t.lookup_s[1], 768e-12, 1e-24);
  // C[1][0] = 32 x 160 ps, C[0][1] = 16 x 160 ps.
  EXPECT_NEAR(t.comm(1, 0), 5120e-12, 1e-24);
  EXPECT_NEAR(t.comm(0, 1), 2560e-12, 1e-24);
}

TEST(OperEquations, PerEmbeddingFig2cAndDuplicationFig2d) {
  const OperFixture f(2, 1, {{1}}, 1);
  const CostMatrix L(f.cluster, f.cost);
  // (c) Per embedding, balancing both access and memory: {A0, A1, B2, B3, C0, C1} on GPU 0
  // (8+4+2+2+4+4 = 24 accesses, 6 rows) and {A2, A3, B0, B1, C2, C3} on GPU 1 (2+2+6+6+4+4 =
  // 24 accesses, 6 rows).
  std::vector<Partition> parts = {part(0, 0, 2, 12), part(1, 2, 4, 4),  part(2, 0, 2, 8),
                                  part(0, 2, 4, 4),  part(1, 0, 2, 12), part(2, 2, 4, 8)};
  Placement pl;
  pl.owner = {0, 0, 0, 1, 1, 1};
  pl.fetch.resize(6);
  ModelTotals t = evaluate(parts, pl, L);
  EXPECT_DOUBLE_EQ(t.memory_bytes[0], t.memory_bytes[1]);
  EXPECT_DOUBLE_EQ(t.lookup_s[0], t.lookup_s[1]);  // 24 x 2 x 24 ps each
  EXPECT_NEAR(t.comm(0, 1), 24 * kNear, 1e-24);
  EXPECT_NEAR(t.comm(1, 0), 24 * kNear, 1e-24);
  // (d) Duplicate the hottest partitions (A0-1 on GPU 1, B0-1 on GPU 0: 32 B extra each):
  // each GPU now fetches only 12 accesses remotely, and holds 128 B (Eq. 1's H() counts a copy
  // once per GPU that serves a fetch).
  pl.fetch[0] = {0, 1};
  pl.fetch[4] = {0, 1};
  t = evaluate(parts, pl, L);
  EXPECT_DOUBLE_EQ(t.memory_bytes[0], 96 + 32);
  EXPECT_DOUBLE_EQ(t.memory_bytes[1], 96 + 32);
  EXPECT_NEAR(t.comm(0, 1), 12 * kNear, 1e-24);
  EXPECT_NEAR(t.comm(1, 0), 12 * kNear, 1e-24);
  // Eq. 2, accesses served x fetchers: GPU 0 serves A0-1 (12, to itself only), B2-3 (4, to
  // both), C0-1 (8, to both) and its copy of B0-1 (12, to itself): 12 + 8 + 16 + 12 = 48
  // accesses, 48 x 24 ps; GPU 1 likewise.
  EXPECT_NEAR(t.lookup_s[0], 48 * kLocal, 1e-24);
  EXPECT_NEAR(t.lookup_s[1], 48 * kLocal, 1e-24);
  EXPECT_EQ(pl.holders(0, 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(pl.holders(1, 2), (std::vector<int>{0}));
}

TEST(OperEquations, DegreeOfBalance) {
  EXPECT_DOUBLE_EQ(degree_of_balance(std::vector<double>{2, 4, 3}), 0.5);
  EXPECT_DOUBLE_EQ(degree_of_balance(std::vector<double>{0, 0}), 1.0);
  EXPECT_DOUBLE_EQ(degree_of_balance(std::vector<double>{}), 1.0);
}

}  // namespace
}  // namespace shardsim::oper
