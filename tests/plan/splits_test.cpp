#include "plan/splits.hpp"

#include <gtest/gtest.h>

namespace shardsim {
namespace {

TEST(Splits, EvenRowRangesDifferByAtMostOneRow) {
  EXPECT_EQ(even_row_ranges(10, 4), (std::vector<RowRange>{{0, 3}, {3, 6}, {6, 8}, {8, 10}}));
  EXPECT_EQ(even_row_ranges(3, 8), (std::vector<RowRange>{{0, 1}, {1, 2}, {2, 3}}));
  EXPECT_TRUE(even_row_ranges(0, 4).empty());
}

TEST(Splits, ColumnBlocksAreMultiplesOfFour) {
  // 64 columns = 16 units of 4 over 3 blocks: 6, 5, 5 units = 24, 20, 20 columns.
  EXPECT_EQ(column_blocks(64, 3), (std::vector<ColRange>{{0, 24}, {24, 44}, {44, 64}}));
  // 18 columns = 4 whole units (+2): 2 blocks of 2 units, the remainder joins the last.
  EXPECT_EQ(column_blocks(18, 2), (std::vector<ColRange>{{0, 8}, {8, 18}}));
  // More blocks than units: one block per unit. Tiny dims stay whole.
  EXPECT_EQ(column_blocks(8, 5), (std::vector<ColRange>{{0, 4}, {4, 8}}));
  EXPECT_EQ(column_blocks(3, 4), (std::vector<ColRange>{{0, 3}}));
  EXPECT_EQ(fixed_column_blocks(40, 16), (std::vector<ColRange>{{0, 16}, {16, 32}, {32, 40}}));
}

}  // namespace
}  // namespace shardsim
