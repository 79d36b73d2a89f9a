#pragma once
// What planners and the iteration builder know about how one table is accessed, without
// materialising its rows. Issue "Power-law traces and access profiles" adds empirical profiles
// behind this same interface.
#include <cstdint>
#include <memory>

#include "shardsim/model/embedding_table.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/trace/row_range.hpp"

namespace shardsim {

class AccessProfile {
 public:
  virtual ~AccessProfile() = default;
  virtual std::uint64_t num_rows() const = 0;
  // Probability that one lookup lands in `rows` (sums to 1 over the table).
  virtual double mass(RowRange rows, RowSpace space) const = 0;
  // Expected number of distinct rows of `rows` touched when `lookups` independent lookups are
  // drawn from the whole table: sum over k in rows of 1 - (1 - p_k)^lookups.
  virtual double expected_distinct(RowRange rows, RowSpace space, double lookups) const = 0;

  // Where the row of popularity rank `rank` (0 = hottest) is stored, and back. The default is
  // the identity (hot rows clustered at low ids).
  virtual std::uint64_t row_of_rank(std::uint64_t rank) const { return rank; }
  virtual std::uint64_t rank_of_row(std::uint64_t row) const { return row; }

  // The smallest r such that the r hottest ranks carry at least `target_mass` (clamped to
  // [0, 1]); a bracketing search on mass() over rank prefixes.
  std::uint64_t ranks_covering(double target_mass) const;

  // The crossing of `target_mass` within a bracket of ranks: the smallest r in [lo, hi] with
  // mass([0, r)) >= target, hi when none (rounding), with the prefix masses on either side of it
  // as mass() gives them: mass_below = mass([0, r - 1)), mass_at = mass([0, r)). The caller
  // passes what it already knows: mass_below_lo = mass([0, lo - 1)), below the target, and
  // mass_at_hi = mass([0, hi)); 1 <= lo <= hi <= num_rows(). Where the prefix mass is monotone,
  // the rank is ranks_covering()'s whenever that lies in the bracket; a partitioning that walks
  // the table from its hottest rank brackets each step by the previous one and saves most of
  // the search (OPER §4.1: issue 21).
  struct Crossing {
    std::uint64_t rank = 0;
    double mass_below = 0;
    double mass_at = 0;
  };
  Crossing crossing_within(double target_mass, std::uint64_t lo, double mass_below_lo,
                           std::uint64_t hi, double mass_at_hi) const;

  // A non-decreasing transform of a rank count r in which the prefix mass is close to linear,
  // for ranks_covering's interpolation (a speed hint only: any monotone transform gives the same
  // answer). The default, log(1 + r), fits a Zipf law of exponent 1. prefix_shape_inverse is
  // its inverse.
  virtual double prefix_shape(double ranks) const;
  virtual double prefix_shape_inverse(double shape) const;
};

// The analytic Zipf–Mandelbrot profile of a table (with heavy hitters), under a layout and a
// seed (the scattered layout's hash is seeded). O(1) memory in the row count.
std::unique_ptr<AccessProfile> make_power_law_profile(const EmbeddingTable& table,
                                                      HotRowLayout layout, std::uint64_t seed);

}  // namespace shardsim
