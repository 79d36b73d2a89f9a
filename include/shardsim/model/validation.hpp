#pragma once
// Checks of the statistics of a table and of a pooling spec, for loaders to turn into InputErrors
// (the loader knows the file, line and key path; these checks know what is wrong). Code past the
// loader (profiles, trace sources) treats a spec that fails these checks as a programming error
// (std::invalid_argument).
#include <optional>
#include <string>

#include "shardsim/model/embedding_table.hpp"
#include "shardsim/model/pooling.hpp"

namespace shardsim {

// Upper bounds of a table's statistics (docs/scenario.md). The expected-distinct-rows series sums
// power_sum at exponents j·alpha, j <= 40, and power_sum is accurate to 1e-8 up to exponent 2048
// (trace/power_sum.cpp): alpha <= 50 keeps every term there.
inline constexpr double kMaxAlpha = 50.0;
// k + q stays within 2^-13 of a rank for q <= 1e12 (the samplers add q to ranks in doubles);
// q far above the row count is uniform (alpha 0) in all but name.
inline constexpr double kMaxQ = 1e12;
// Lookups a sample of one table: a million keeps batch × pooling × 8 bytes of indices finite and
// exact in the memory model for any batch below 2^40.
inline constexpr double kMaxPooling = 1e6;

struct SpecProblem {
  std::string key;      // relative to the checked spec, e.g. "sigma", "heavy_hitters[1]"
  std::string problem;  // what is wrong, with the value found
  std::string hint;     // how to fix it (may be empty)
};

// The first problem of a pooling spec, or nothing when it is valid.
std::optional<SpecProblem> check_pooling(const PoolingSpec& pooling);

// The first problem of a table (rows, dim, alpha, q, heavy_hitters, then pooling with keys such
// as "pooling.sigma"), or nothing when it is valid.
std::optional<SpecProblem> check_table(const EmbeddingTable& table);

// Past the loader: throws std::invalid_argument("table 'NAME': KEY: PROBLEM") when check_table
// reports a problem.
void require_valid_table(const EmbeddingTable& table);

}  // namespace shardsim
