#pragma once
// A power-law embedding table for trace tests: dim 16, plain Zipf (q = 0), no heavy hitters.
#include <cstdint>
#include <string>
#include <utility>

#include "shardsim/model/embedding_table.hpp"

namespace shardsim::testing {

inline EmbeddingTable power_law_table(std::string name, std::uint64_t rows, double alpha,
                                      PoolingSpec pooling) {
  return EmbeddingTable{.name = std::move(name),
                        .rows = rows,
                        .dim = 16,
                        .pooling = std::move(pooling),
                        .alpha = alpha,
                        .q = 0,
                        .heavy_hitters = {},
                        .pruning = {}};
}

inline EmbeddingTable power_law_table(std::uint64_t rows, double alpha, PoolingSpec pooling) {
  return power_law_table("t", rows, alpha, std::move(pooling));
}

}  // namespace shardsim::testing
