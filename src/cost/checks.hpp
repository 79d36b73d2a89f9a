#pragma once
// Argument checks shared by the cost functions (internal to src/cost/).
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>

#include "shardsim/core/error.hpp"
#include "shardsim/hw/gpu_spec.hpp"

namespace shardsim::cost_detail {

// A hardware rate the formula divides by. A preset without it (0, negative, NaN) is bad input
// from the hardware file: an InputError naming the GPU field, never a division by zero.
inline double require_rate(double rate, std::string_view field, const std::string& gpu_name,
                           std::string_view needed_for) {
  if (!(rate > 0) || !std::isfinite(rate)) {
    throw InputError(SourceLocation{}, fmt::format("gpu.{}", field),
                     fmt::format("GPU '{}' has {} = {}, but {} needs a positive value", gpu_name,
                                 field, rate, needed_for),
                     "set it in the hardware preset (or its `cluster.overrides`)");
  }
  return rate;
}

// A work quantity computed by shardsim itself: a negative or NaN value is a bug upstream.
inline double require_work(double value, std::string_view what) {
  if (!(value >= 0) || !std::isfinite(value)) {
    throw std::invalid_argument(
        fmt::format("cost model: {} must be finite and >= 0, got {}", what, value));
  }
  return value;
}

// Achievable dense FLOP rate: peak(precision) x mlp_efficiency (Neo App. B: 70.5% on A100,
// 78.6% on V100 for the MLP sizes of interest).
inline double achievable_flops_per_s(const GpuSpec& gpu, Precision precision) {
  const std::string field = fmt::format("peak_{}_TFLOPps", to_string(precision));
  const double peak = require_rate(gpu.peak_flops(precision), field, gpu.name,
                                   "an MLP or interaction at this precision");
  const double eff = require_rate(gpu.mlp_efficiency_for(precision), "mlp_efficiency", gpu.name,
                                  "the MLP roofline (Neo App. B)");
  return peak * eff;
}

}  // namespace shardsim::cost_detail
