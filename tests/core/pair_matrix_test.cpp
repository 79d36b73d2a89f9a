// core/pair_matrix: the dense, broadcast and gather parts add up entry by entry.
#include "shardsim/core/pair_matrix.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace shardsim
