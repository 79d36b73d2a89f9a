#pragma once
// Statistics of a trace (`shardsim trace stats`; docs/traces.md §11), per table and overall,
// from the tables' empirical profiles.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shardsim/trace/empirical_profile.hpp"
#include "shardsim/trace/table_counts.hpp"

namespace shardsim {

struct TraceTableStats {
  std::string name;
  std::uint64_t rows = 0;     // of the table (all tables, for `overall`)
  std::uint64_t samples = 0;  // bags (samples x tables, for `overall`)
  std::uint64_t lookups = 0;
  double distinct_rows = 0;    // rows accessed at least once
  bool distinct_exact = true;  // false when estimated from a sample of rows
  double mean_pooling = 0;     // lookups / bags
  double top1pct_share = 0;    // share of lookups of the ceil(rows / 100) most-accessed rows
  // Bin j holds the rows accessed c times with c in (2^(j-1), 2^j] ((0, 1] for j = 0): their
  // number, and their share of the lookups. As long as the largest bin with rows.
  std::vector<double> hist_distinct_by_count;
  std::vector<double> hist_lookups_by_count;
  // Maximum-likelihood exponent of p(k) ∝ k^-alpha over ranks 1..rows, the rows ranked by their
  // counts (overall: one exponent shared by all tables). None without lookups.
  std::optional<double> alpha_fit;
};

struct TraceStats {
  std::vector<TraceTableStats> tables;
  TraceTableStats overall;
};

// The statistics of tables with these counts, names and bags per table.
TraceStats compute_trace_stats(std::span<const TableCounts> tables,
                               std::span<const std::string> names, std::uint64_t samples);
// The same, of the tables' profiles (through table_counts).
TraceStats compute_trace_stats(std::span<const EmpiricalProfile* const> profiles,
                               std::span<const std::string> names, std::uint64_t samples);

// The maximum-likelihood Zipf exponent of rank-frequency data: counts grouped as in
// EmpiricalProfile::count_groups (hottest first, ranks 1.. in that order) over `rows` ranks.
// Maximises -alpha Σ c_k ln k - M ln H(rows, alpha) over alpha in [0, 20] (concave in alpha).
std::optional<double> fit_zipf_alpha(std::span<const CountGroup> groups, std::uint64_t rows);

}  // namespace shardsim
