#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "shardsim/model/pooling.hpp"

namespace shardsim {

// What frequency pruning removed from a table (AdaEmbed what-if, docs/model.md "Pruning"): the
// table as loaded is already the pruned one (its hottest rows, its pooling thinned); this
// records the original so reports can say what went. Not pruned: fraction 0, original_rows 0.
struct TablePruning {
  double fraction = 0;              // `prune_fraction`: the share of the rows asked to be removed
  std::uint64_t original_rows = 0;  // rows before pruning
  double lookup_survival = 1;       // mass of the kept ranks: the share of lookups that remain
  // What pruning changed besides the rows, so that the table as written can be recovered
  // (unpruned_table, trace/table_pruning.hpp; `validate --tables-out`): the heavy hitters before
  // they were cut and renormalised, and the pooling's survival probability before thinning.
  std::vector<double> original_heavy_hitters;
  double original_keep = 1;

  bool operator==(const TablePruning&) const = default;
};

// One embedding table and the statistics of how it is accessed.
struct EmbeddingTable {
  std::string name;
  std::uint64_t rows = 0;
  std::uint32_t dim = 0;
  PoolingSpec pooling;  // lookups per sample ("bag size")
  double alpha = 1.0;   // Zipf–Mandelbrot exponent: p(k) ~ (k + q)^-alpha, k = 1..rows
  double q = 0.0;       // Zipf–Mandelbrot offset (0 = plain Zipf)
  std::vector<double> heavy_hitters;  // explicit probabilities of the hottest ranks 1, 2, ...
  TablePruning pruning;               // what pruning removed (nothing by default)

  // Every field equal, doubles bit for bit (NaN never appears: the loader rejects it).
  bool operator==(const EmbeddingTable&) const = default;
};

}  // namespace shardsim
