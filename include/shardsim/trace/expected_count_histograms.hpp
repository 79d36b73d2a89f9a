#pragma once
// The histograms `shardsim trace stats` reports (docs/traces.md §11), in expectation and in closed
// form: for a table's access profile and n lookups drawn from it, the expected number of distinct
// rows whose access count falls in each power-of-two bin, and the expected lookups on those rows
// (docs/traces.md §12). Computed over rank ranges (binomial per range), never per row.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "shardsim/trace/access_profile.hpp"

namespace shardsim {

// Bin j holds access counts c in (2^(j-1), 2^j]; bin 0 holds c = 1 (as `trace stats`).
std::size_t count_bin(std::uint64_t count);

// Per bin: rows (distinct rows with a count in the bin) and lookups (their accesses). Not
// normalised: the sums are the distinct rows and the lookups.
struct CountHistograms {
  std::vector<double> rows;
  std::vector<double> lookups;
  // Adds `other` scaled by `weight`, growing the bins as needed.
  void add(const CountHistograms& other, double weight = 1.0);
};

// Expected histograms of `lookups` independent draws from the profile (rank space). The count
// of a rank is Binomial(n, p_k); ranks are grouped into cells ([k, k] for the 64 hottest, then
// cells whose ends differ by at most 2%) that share the cell's mean probability: the rows of
// a cell add width * P(count in bin), its lookups width * n p * P(1 + Binomial(n - 1, p) in bin).
// The binomial is summed term by term around its mode, or taken as normal (with continuity
// correction) when its variance exceeds 400. n may be fractional (an expected lookup count).
// cell_ratio: (b + 1) / a of a cell past the head (1.02 by default; the fitter uses coarser cells
// while searching).
CountHistograms expected_count_histograms(const AccessProfile& profile, double lookups,
                                          double cell_ratio = 1.02);

// The bins as shares of their sum (all zero when the sum is 0). With `open_last_bin` > 0 the
// bins from open_last_bin on are folded into bin open_last_bin (a target whose last bin is
// "2^(j-1) and more"), and the result has open_last_bin + 1 bins.
std::vector<double> bin_shares(std::span<const double> bins, std::size_t open_last_bin = 0);

// Σ |a_j - b_j| over the bins of either (missing bins count as 0).
double l1_distance(std::span<const double> a, std::span<const double> b);

}  // namespace shardsim
