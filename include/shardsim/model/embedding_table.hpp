#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "shardsim/model/pooling.hpp"

namespace shardsim {

// One embedding table and the statistics of how it is accessed.
struct EmbeddingTable {
  std::string name;
  std::uint64_t rows = 0;
  std::uint32_t dim = 0;
  PoolingSpec pooling;  // lookups per sample ("bag size")
  double alpha = 1.0;   // Zipf–Mandelbrot exponent: p(k) ~ (k + q)^-alpha, k = 1..rows
  double q = 0.0;       // Zipf–Mandelbrot offset (0 = plain Zipf)
  std::vector<double> heavy_hitters;  // explicit probabilities of the hottest ranks 1, 2, ...
};

}  // namespace shardsim
