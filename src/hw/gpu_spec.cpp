#include "shardsim/hw/gpu_spec.hpp"

#include <fmt/format.h>

#include "shardsim/core/error.hpp"

namespace shardsim {

namespace {
const char* peak_key(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "gpu.peak_fp32_TFLOPps";
    case Precision::tf32:
      return "gpu.peak_tf32_TFLOPps";
    case Precision::fp16:
      return "gpu.peak_fp16_TFLOPps";
    case Precision::bf16:
      return "gpu.peak_bf16_TFLOPps";
    case Precision::fp8:
    case Precision::int8:
    case Precision::int4:
    case Precision::int2:
      break;  // storage and wire formats: no MLP math is modelled in them
  }
  return "gpu";
}

// The one of four values that belongs to a math precision; 0 for the storage and wire formats
// (the loader accepts those for tables and comms only: no MLP math is modelled in them).
double by_math_precision(Precision p, double fp32, double tf32, double fp16, double bf16) {
  switch (p) {
    case Precision::fp32:
      return fp32;
    case Precision::tf32:
      return tf32;
    case Precision::fp16:
      return fp16;
    case Precision::bf16:
      return bf16;
    case Precision::fp8:
    case Precision::int8:
    case Precision::int4:
    case Precision::int2:
      break;
  }
  return 0;
}
}  // namespace

double GpuSpec::peak_flops(Precision p) const {
  const double flops =
      by_math_precision(p, peak_fp32_flops, peak_tf32_flops, peak_fp16_flops, peak_bf16_flops);
  // A preset writes 0 for a precision the GPU cannot run (e.g. BF16 on Turing): asking for it is
  // a user's choice of precision that does not fit the hardware, hence an input error.
  if (!(flops > 0)) {
    throw InputError(
        SourceLocation{}, peak_key(p),
        fmt::format("GPU {} has no {} support (peak is 0 in its preset)", name, to_string(p)),
        "choose a precision this GPU supports (e.g. fp16 or fp32), or another "
        "hardware preset");
  }
  return flops;
}

double GpuSpec::mlp_efficiency_for(Precision p) const {
  const double own = by_math_precision(p, mlp_efficiency_fp32, mlp_efficiency_tf32,
                                       mlp_efficiency_fp16, mlp_efficiency_bf16);
  return own > 0 ? own : mlp_efficiency;
}

double GpuSpec::mlp_batch_half_for(Precision p) const {
  const double own = by_math_precision(p, mlp_batch_half_fp32, mlp_batch_half_tf32,
                                       mlp_batch_half_fp16, mlp_batch_half_bf16);
  return own > 0 ? own : mlp_batch_half;
}

double GpuSpec::mlp_width_half_for(Precision p) const {
  const double own = by_math_precision(p, mlp_width_half_fp32, mlp_width_half_tf32,
                                       mlp_width_half_fp16, mlp_width_half_bf16);
  return own > 0 ? own : mlp_width_half;
}

double GpuSpec::mlp_width_factor(double width, Precision p) const {
  const double half = mlp_width_half_for(p);
  return half > 0 ? width / (width + half) : 1.0;
}

}  // namespace shardsim
