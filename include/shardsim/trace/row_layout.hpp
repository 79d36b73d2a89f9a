#pragma once
// Where the rows of each popularity rank are stored: the hot-row layout (DESIGN.md §5).
//   clustered: row id == rank (the hottest rows sit at the lowest ids);
//   scattered: a seeded bijection of [0, rows): a 4-round Feistel network over the smallest even
//              bit width that covers `rows`, with cycle-walking (a value that lands outside
//              [0, rows) is encrypted again until it lands inside; Black & Rogaway 2002).
// O(1) memory; both directions O(1) expected time.
#include <array>
#include <cstdint>

#include "shardsim/model/workload.hpp"

namespace shardsim {

class RowLayout {
 public:
  RowLayout(HotRowLayout kind, std::uint64_t rows, std::uint64_t seed);

  HotRowLayout kind() const { return kind_; }
  std::uint64_t rows() const { return rows_; }
  std::uint64_t row_of_rank(std::uint64_t rank) const;
  std::uint64_t rank_of_row(std::uint64_t row) const;

 private:
  static constexpr int kRounds = 4;
  std::uint64_t encrypt(std::uint64_t x) const;
  std::uint64_t decrypt(std::uint64_t x) const;
  std::uint64_t round_function(std::uint64_t half, int round) const;

  HotRowLayout kind_;
  std::uint64_t rows_;
  int half_bits_ = 1;
  std::uint64_t half_mask_ = 1;
  std::array<std::uint64_t, kRounds> keys_{};
};

}  // namespace shardsim
