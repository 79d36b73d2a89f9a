#pragma once
// Checks that the blocks handed to a trace source partition a table, and finds the block of a
// row by binary search.
#include <cstdint>
#include <span>
#include <vector>

#include "shardsim/trace/trace_source.hpp"

namespace shardsim {

// The blocks' non-empty members sorted by begin, for lookups by row.
class BlockIndex {
 public:
  // Throws std::invalid_argument (a programming error, not user input) unless the blocks are all
  // in one space and partition [0, rows): sorted by begin, the non-empty blocks are contiguous
  // from 0 to rows. Empty blocks are allowed anywhere inside [0, rows].
  BlockIndex(std::span<const RowBlock> blocks, std::uint64_t rows);

  RowSpace space() const { return space_; }
  // Index (into the original span) of the block holding `row`; row < rows.
  std::size_t block_of(std::uint64_t row) const;

 private:
  RowSpace space_ = RowSpace::row_id;
  std::vector<std::uint64_t> begins_;  // of the non-empty blocks, ascending
  std::vector<std::size_t> original_;  // their indices in the span
};

}  // namespace shardsim
