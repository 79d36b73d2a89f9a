#pragma once
// The analytic Zipf–Mandelbrot access profile of one table (DESIGN.md §5):
//   ranks k = 1..N (RowRange ranks are 0-based: rank r is k = r + 1);
//   the m heavy hitters take probabilities h_1..h_m (the hottest ranks);
//   the other ranks share T = 1 - Σh by p(k) = T (k + q)^-alpha / Z, Z = Σ_{k=m+1}^{N} (k +
//   q)^-alpha.
// Every query is O(1) in N (O(log H) more under the scattered layout) with relative error < 1e-6;
// docs/traces.md gives the formulas and their error bounds.
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "shardsim/model/embedding_table.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/trace/access_profile.hpp"
#include "shardsim/trace/power_sum.hpp"
#include "shardsim/trace/row_layout.hpp"

namespace shardsim {

struct PowerLawOptions {
  // Under the scattered layout, the hottest `head_ranks` ranks are located exactly through the
  // hash; the rest of the mass is spread over the other rows by their count. All ranks are exact
  // when the table has no more rows than this. Costs 32 bytes per head rank, once a row-id query
  // is made (PowerLawProfile::memory_bytes).
  std::uint64_t head_ranks = 4096;
};

class PowerLawProfile final : public AccessProfile {
 public:
  // Throws std::invalid_argument when check_table(table) reports a problem.
  PowerLawProfile(const EmbeddingTable& table, HotRowLayout layout, std::uint64_t seed,
                  PowerLawOptions options = {});
  ~PowerLawProfile() override;

  // The most memory a profile of `table` holds: the object, its heavy hitters' two arrays and,
  // under the scattered layout, the head index a row-id query builds (32 B a head rank). What the
  // shared profiles of a process (trace/shared_profiles.hpp) and the memory estimate count.
  static std::size_t memory_bytes(const EmbeddingTable& table, HotRowLayout layout,
                                  PowerLawOptions options = {});

  std::uint64_t num_rows() const override { return rows_; }
  double mass(RowRange rows, RowSpace space) const override;
  double expected_distinct(RowRange rows, RowSpace space, double lookups) const override;
  std::uint64_t row_of_rank(std::uint64_t rank) const override;
  std::uint64_t rank_of_row(std::uint64_t row) const override;
  // The prefix mass of (k + q)^-alpha grows like the integral, (r + q + 1)^(1 - alpha) (its
  // logarithm at alpha = 1), negated where that falls so the shape rises.
  double prefix_shape(double ranks) const override;
  double prefix_shape_inverse(double shape) const override;

  // Probability that one lookup hits the row of 0-based rank `rank`.
  double probability(std::uint64_t rank) const;
  double alpha() const { return alpha_; }
  double q() const { return q_; }
  std::span<const double> heavy_hitters() const { return heavy_; }
  double tail_mass() const { return tail_mass_; }  // 1 - Σ heavy hitters
  const RowLayout& layout() const { return layout_; }

 private:
  struct HeadIndex;
  void check_range(RowRange rows) const;
  // Whether `rows` of `space` is answered in rank space: rank space itself, the clustered layout
  // (row id = rank) or the whole table.
  bool rank_space_will_do(RowRange rows, RowSpace space) const;
  double rank_mass(std::uint64_t begin, std::uint64_t end) const;
  double rank_distinct(std::uint64_t begin, std::uint64_t end, double lookups) const;
  // Σ_{k=first}^{last} 1 - (1 - p_k)^n over 1-based tail ranks (first > m).
  double tail_distinct(std::uint64_t first, std::uint64_t last, double n) const;
  double transition_distinct(std::uint64_t first, std::uint64_t last, double n) const;
  double series_distinct(std::uint64_t first, std::uint64_t last, double n) const;
  const HeadIndex& head_index() const;
  double beyond_head_distinct(double lookups) const;

  std::uint64_t rows_;
  double alpha_;
  double q_;
  std::vector<double> heavy_;
  std::vector<double> heavy_cum_;  // heavy_cum_[i] = h_1 + ... + h_i
  double tail_mass_;
  double tail_scale_ = 0;       // T / Z: p(k) = tail_scale_ · (k + q)^-alpha for k > m
  PowerSumFrom tail_from_top_;  // power_sum(alpha, q, m + 1, ·): the tail's prefix sums
  RowLayout layout_;
  PowerLawOptions options_;
  mutable std::once_flag head_once_;
  mutable std::unique_ptr<HeadIndex> head_;
  mutable std::mutex cache_mutex_;
  mutable double cached_lookups_ = -1;  // beyond_head_distinct's last argument and value
  mutable double cached_beyond_head_ = 0;
};

}  // namespace shardsim
