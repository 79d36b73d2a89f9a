// core/pair_matrix: the dense, broadcast and gather parts add up entry by entry.
#include "shardsim/core/pair_matrix.hpp"

#include <gtest/gtest.h>

#include <random>

namespace shardsim {
namespace {

TEST(PairMatrix, PartsAddUpEntryByEntry) {
  PairMatrix m(4);
  EXPECT_FALSE(m.has_dense_part());
  m.add_to_every_other(1, 10);   // 1 -> 0, 2, 3
  m.add_from_every_other(2, 3);  // 0, 1, 3 -> 2
  EXPECT_FALSE(m.has_dense_part());
  m.add(3, 0, 0.5);
  EXPECT_TRUE(m.has_dense_part());
  EXPECT_EQ(m.at(1, 0), 10);
  EXPECT_EQ(m.at(1, 2), 13);
  EXPECT_EQ(m.at(0, 2), 3);
  EXPECT_EQ(m.at(3, 0), 0.5);
  EXPECT_EQ(m.at(3, 1), 0);
  for (int g = 0; g < 4; ++g) EXPECT_EQ(m.at(g, g), 0) << g;  // never on the diagonal
  EXPECT_EQ(m.sent_by(1), 33);
  EXPECT_EQ(m.received_by(2), 19);
  EXPECT_EQ(m.received_by(0), 10.5);
  EXPECT_EQ(m.total(), 30 + 9 + 0.5);
}

TEST(PairMatrix, FromADenseMatrix) {
  ByteMatrix dense(3);
  dense.at(0, 1) = 2;
  dense.at(2, 0) = 5;
  const PairMatrix m(dense);
  EXPECT_EQ(m.at(0, 1), 2);
  EXPECT_EQ(m.at(2, 0), 5);
  EXPECT_EQ(m.total(), dense.total());
  dense.at(1, 1) = 1;
  EXPECT_THROW(PairMatrix{dense}, std::invalid_argument);
}

// Property: without a dense part, sums() and total() (O(N)) equal the entry-by-entry sums to
// rounding; with one, bit for bit.
TEST(PairMatrix, SumsAgreeWithEntryByEntrySums) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> amount(0.0, 1e9);
  for (int n : {1, 2, 3, 17, 200}) {
    PairMatrix m(n);
    for (int g = 0; g < n; ++g) {
      if (rng() % 3 != 0) m.add_to_every_other(g, amount(rng));
      if (rng() % 2 != 0) m.add_from_every_other(g, amount(rng) * 1e-6);
    }
    ASSERT_FALSE(m.has_dense_part());
    const PairMatrix::Sums s = m.sums();
    double total = 0;
    for (int g = 0; g < n; ++g) {
      EXPECT_NEAR(s.sent[g], m.sent_by(g), 1e-13 * m.sent_by(g)) << n << " " << g;
      EXPECT_NEAR(s.received[g], m.received_by(g), 1e-13 * m.received_by(g)) << n << " " << g;
      total += m.sent_by(g);
    }
    EXPECT_NEAR(m.total(), total, 1e-13 * total) << n;
    m.add(0, n - 1, 5.0);  // a dense part: the entry-by-entry sums themselves
    if (n > 1) {
      const PairMatrix::Sums d = m.sums();
      for (int g = 0; g < n; ++g) {
        EXPECT_EQ(d.sent[g], m.sent_by(g));
        EXPECT_EQ(d.received[g], m.received_by(g));
      }
    }
  }
}

TEST(PairMatrix, SumsOfAHandMatrix) {
  PairMatrix m(3);
  m.add_to_every_other(0, 4);    // 0 -> 1, 2
  m.add_from_every_other(2, 1);  // 0, 1 -> 2
  const PairMatrix::Sums s = m.sums();
  EXPECT_EQ(s.sent, (std::vector<double>{9, 1, 0}));
  EXPECT_EQ(s.received, (std::vector<double>{0, 4, 6}));
  EXPECT_EQ(m.total(), 10);
}

}  // namespace
}  // namespace shardsim
