#include "trace/row_blocks.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace shardsim {

namespace {
std::string describe(const RowBlock& b) {
  return "[" + std::to_string(b.rows.begin) + ", " + std::to_string(b.rows.end) + ")";
}
}  // namespace

BlockIndex::BlockIndex(std::span<const RowBlock> blocks, std::uint64_t rows) {
  if (blocks.empty()) throw std::invalid_argument("blocks: no blocks given");
  space_ = blocks.front().space;
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const RowBlock& b = blocks[i];
    if (b.space != space_)
      throw std::invalid_argument("blocks: mixing row-id and rank blocks in one table");
    if (b.rows.begin > b.rows.end || b.rows.end > rows)
      throw std::invalid_argument("blocks: block " + std::to_string(i) + " " + describe(b) +
                                  " is not inside [0, " + std::to_string(rows) + ")");
    if (b.rows.size() > 0) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return blocks[a].rows.begin < blocks[b].rows.begin;
  });
  std::uint64_t next = 0;
  for (std::size_t i : order) {
    if (blocks[i].rows.begin != next)
      throw std::invalid_argument(
          "blocks: " + std::string(blocks[i].rows.begin > next ? "gap" : "overlap") + " at row " +
          std::to_string(std::min(next, blocks[i].rows.begin)) + " (block " + std::to_string(i) +
          " " + describe(blocks[i]) + ")");
    next = blocks[i].rows.end;
    begins_.push_back(blocks[i].rows.begin);
    original_.push_back(i);
  }
  if (next != rows)
    throw std::invalid_argument("blocks: rows [" + std::to_string(next) + ", " +
                                std::to_string(rows) + ") are in no block");
}

std::size_t BlockIndex::block_of(std::uint64_t row) const {
  const auto it = std::upper_bound(begins_.begin(), begins_.end(), row);
  return original_[static_cast<std::size_t>(it - begins_.begin()) - 1];
}

}  // namespace shardsim
