#pragma once
// `shardsim trace fit` (docs/traces.md §13): generator parameters whose expected `trace stats`
// histograms come closest (L1) to target statistics.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "shardsim/model/embedding_table.hpp"
#include "shardsim/trace/expected_count_histograms.hpp"
#include "shardsim/trace/fit_target.hpp"

namespace shardsim {

// L1 distances of the two histograms (as shares) to a target's.
struct HistogramDistances {
  double rows = 0;
  double lookups = 0;
  double sum() const { return rows + lookups; }
};
HistogramDistances histogram_distances(const CountHistograms& h, const CountShares& target,
                                       std::size_t open_bin);

// The expected histograms of all these tables together (as `trace stats` pools them in
// `overall`), each drawn batch x E[pooling] times (rank space).
CountHistograms expected_overall_histograms(std::span<const EmbeddingTable> tables, double batch,
                                            double cell_ratio = 1.02);

// One Zipf–Mandelbrot table class of a fitted population and its share of the tables.
struct TableClass {
  std::uint64_t rows = 0;
  double alpha = 1;
  double q = 0;
  double share = 1;  // of the tables
};

struct FitOptions {
  int classes = 6;                 // table classes of a population fit
  int max_evaluations = 2000;      // of the objective, per Nelder–Mead run
  int restarts = 3;                // Nelder–Mead runs after the first, each from the last best
  double search_cell_ratio = 1.1;  // coarser cells while searching; the result is re-evaluated
  // A run stops when the simplex's objective values differ by less than this (L1 distances:
  // 1e-6 is far below the 0.001 rounding of published shares).
  double tolerance = 1e-6;
};

struct PopulationFit {
  std::vector<TableClass> classes;
  HistogramDistances after;  // closed form, fine cells
  int evaluations = 0;
};

// Fits `classes` Zipf–Mandelbrot classes (rows, alpha, q and share of the tables each; every
// table drawn target.batch_size x target.pooling times) to the target's overall histograms:
// Nelder–Mead on (log10 rows, alpha, log10(1 + q), softmax share logits), minimising the sum of
// the two L1 distances. Deterministic.
PopulationFit fit_population(const FitTarget& target, const FitOptions& options);

// The tables of a population: `count` tables apportioned to the classes by share (largest
// remainders), named <prefix><class>_<i>, each with fixed pooling and dim.
std::vector<EmbeddingTable> population_tables(std::span<const TableClass> classes,
                                              std::uint64_t count, double pooling,
                                              std::uint32_t dim, const std::string& prefix);

struct TableFit {
  TableClass fitted;          // share unused
  HistogramDistances before;  // of the start (alpha 1, q = 10^0.5 - 1, the given rows)
  HistogramDistances after;
};

// Fits each of target.per_table alone: alpha and q (and log10 rows when the target does not
// give rows), drawn its own lookups times. Tables are independent: `jobs` threads.
std::vector<TableFit> fit_tables(const FitTarget& target, const FitOptions& options, int jobs);

}  // namespace shardsim
