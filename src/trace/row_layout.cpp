#include "shardsim/trace/row_layout.hpp"

#include <bit>
#include <stdexcept>

#include "shardsim/core/rng.hpp"

namespace shardsim {

RowLayout::RowLayout(HotRowLayout kind, std::uint64_t rows, std::uint64_t seed)
    : kind_(kind), rows_(rows) {
  if (rows == 0) throw std::invalid_argument("RowLayout: a table needs at least one row");
  if (rows > (std::uint64_t{1} << 62))
    throw std::invalid_argument("RowLayout: more than 2^62 rows are not supported");
  // Domain 2^(2·half_bits) >= rows: at most 4·rows, so cycle-walking takes < 4 steps on average.
  const int bits = std::max(2, static_cast<int>(std::bit_width(rows - 1)));
  half_bits_ = (bits + 1) / 2;
  half_mask_ = (std::uint64_t{1} << half_bits_) - 1;
  for (int r = 0; r < kRounds; ++r)
    keys_[r] = stream_seed(seed, {0x524f574c41594f55ULL /* "ROWLAYOU" */, std::uint64_t(r)});
}

std::uint64_t RowLayout::round_function(std::uint64_t half, int round) const {
  return mix64(half ^ keys_[round]) & half_mask_;
}

std::uint64_t RowLayout::encrypt(std::uint64_t x) const {
  std::uint64_t left = x >> half_bits_;
  std::uint64_t right = x & half_mask_;
  for (int r = 0; r < kRounds; ++r) {
    const std::uint64_t next = left ^ round_function(right, r);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

std::uint64_t RowLayout::decrypt(std::uint64_t x) const {
  std::uint64_t left = x >> half_bits_;
  std::uint64_t right = x & half_mask_;
  for (int r = kRounds - 1; r >= 0; --r) {
    const std::uint64_t prev = right ^ round_function(left, r);
    right = left;
    left = prev;
  }
  return (left << half_bits_) | right;
}

std::uint64_t RowLayout::row_of_rank(std::uint64_t rank) const {
  if (rank >= rows_) throw std::out_of_range("RowLayout::row_of_rank: rank past the table");
  if (kind_ == HotRowLayout::clustered) return rank;
  std::uint64_t x = encrypt(rank);
  while (x >= rows_) x = encrypt(x);  // cycle-walking stays a bijection of [0, rows)
  return x;
}

std::uint64_t RowLayout::rank_of_row(std::uint64_t row) const {
  if (row >= rows_) throw std::out_of_range("RowLayout::rank_of_row: row past the table");
  if (kind_ == HotRowLayout::clustered) return row;
  std::uint64_t x = decrypt(row);
  while (x >= rows_) x = decrypt(x);
  return x;
}

}  // namespace shardsim
