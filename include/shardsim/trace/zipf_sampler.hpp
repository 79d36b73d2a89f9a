#pragma once
// Exact draws from a table's Zipf–Mandelbrot law with heavy hitters (docs/traces.md §6), in
// memory that grows with log(rows), never with rows: about a thousand categories for 10^9 rows.
//
// The ranks are split into categories: each heavy hitter, then the tail ranks in consecutive
// cells [a, b] short enough that the law falls by at most 2% across a cell,
// ((a + q)/(b + q))^alpha >= 0.98 (single ranks near the top, geometric cells deeper). A draw
//   1. picks a category by Walker's alias method (Vose's construction) with the categories'
//      exact masses (power_sum), from one 64-bit random number: the high half of r·n is the
//      slot, the low half the uniform that decides between the slot and its alias;
//   2. inside a cell, draws k uniformly on [a, b] and accepts it with probability
//      f(k)/f(a) = ((a + q)/(k + q))^alpha (rejection from the flat envelope f(a)), again from
//      one random number: the high half of r·width is the offset, the low half the uniform.
//      A uniform below the cell's squeeze f(b)/f(a) >= 0.98 accepts at once; only the rest
//      evaluates pow().
// Both steps are exact for the law (the rejection step is textbook rejection sampling); the only
// approximation is 64-bit arithmetic (the uniform that accompanies an offset lives on a grid of
// width/2^64, below 10^-9 for any table of up to 10^10 rows).
#include <cstdint>
#include <span>
#include <vector>

#include "shardsim/core/rng.hpp"
#include "shardsim/model/embedding_table.hpp"

namespace shardsim {

class ZipfMandelbrotSampler {
 public:
  // Throws std::invalid_argument when check_table(table) reports a problem.
  explicit ZipfMandelbrotSampler(const EmbeddingTable& table);

  // One 0-based rank (0 = hottest).
  std::uint64_t operator()(Rng& rng) const {
    const std::uint64_t r = rng.next_u64();
    const unsigned __int128 pick = static_cast<unsigned __int128>(r) * slots_.size();
    const auto slot = static_cast<std::size_t>(pick >> 64);
    const Slot& s = slots_[slot];
    // The slot or its alias, without a branch (the choice is a coin toss the predictor loses).
    const std::size_t keep = static_cast<std::uint64_t>(pick) < s.threshold;
    const Cell& c = cells_[(slot & (0 - keep)) | (s.alias & (keep - 1))];
    // Every category draws an offset, a single rank too (offset 0, accepted at once: its squeeze
    // is 2^64 - 1): a branch on the width would be mispredicted at every hot rank.
    while (true) {
      const unsigned __int128 x = static_cast<unsigned __int128>(rng.next_u64()) * c.width;
      const std::uint64_t k = c.first + static_cast<std::uint64_t>(x >> 64);
      const auto u = static_cast<std::uint64_t>(x);
      if (u < c.squeeze || accept(c, k, u)) return k;
    }
  }
  // Fills `ranks` with independent draws (the same as calling operator() once for each, in order).
  void fill(Rng& rng, std::span<std::uint64_t> ranks) const;

  std::size_t num_categories() const { return cells_.size(); }
  std::uint64_t num_rows() const { return rows_; }

 private:
  // Ranks [first, first + width) of one category (0-based); a heavy hitter has width 1.
  struct Cell {
    std::uint64_t first = 0;
    std::uint64_t width = 1;
    std::uint64_t squeeze = 0;  // floor(2^64 · f(last)/f(first)): accept at once below it
    double y_first = 1;         // first + 1 + q
  };
  struct Slot {
    std::uint64_t threshold = 0;  // keep the slot's own category when the uniform is below
    std::uint32_t alias = 0;
  };
  // The exact test u/2^64 < ((first + 1 + q)/(k + 1 + q))^alpha.
  bool accept(const Cell& c, std::uint64_t k, std::uint64_t u) const;

  std::vector<Cell> cells_;
  std::vector<Slot> slots_;
  double alpha_ = 0;
  double q_ = 0;
  std::uint64_t rows_ = 0;
};

}  // namespace shardsim
