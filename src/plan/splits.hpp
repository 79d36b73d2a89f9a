#pragma once
// How planners cut one table: even contiguous row ranges, rank ranges balanced by access and
// rows, and column blocks whose bounds are multiples of 4 (validate_plan's rule).
#include <cstdint>
#include <vector>

#include "shardsim/plan/plan.hpp"
#include "shardsim/trace/access_profile.hpp"

namespace shardsim {

// Columns of a shard must start and end on multiples of this (except at the table's last
// column when its dim is not a multiple): FBGEMM's kernels load rows in 4-element vectors,
// and TorchRec's column-wise sharding keeps shards 4-aligned for the same reason.
inline constexpr std::uint32_t kColumnAlignment = 4;

// [0, rows) cut into min(parts, rows) contiguous ranges whose sizes differ by at most one, the
// larger ones first (10 rows, 4 parts: 3, 3, 2, 2).
std::vector<RowRange> even_row_ranges(std::uint64_t rows, std::uint64_t parts);

// The rank space [0, rows) cut into min(parts, rows) contiguous rank ranges so that each holds
// about the same share of w(r) = (mass of the r hottest ranks + r / rows) / 2, i.e. half access,
// half rows: the hottest ranges are short, the coldest long, and no range holds more than
// 2/parts of the accesses or of the rows (up to one row). O(parts · log rows) mass queries.
std::vector<RowRange> rank_balanced_ranges(const AccessProfile& profile, std::uint64_t parts);

// Columns [0, dim) cut into at most `parts` blocks, each a multiple of kColumnAlignment columns
// (the last one ends at dim), as even as alignment allows. A dim of at most 4 stays one block.
std::vector<ColRange> column_blocks(std::uint32_t dim, std::uint32_t parts);

// Columns [0, dim) cut into blocks of `cols_per_block` columns (a multiple of 4), the last one
// holding what is left.
std::vector<ColRange> fixed_column_blocks(std::uint32_t dim, std::uint32_t cols_per_block);

}  // namespace shardsim
