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
