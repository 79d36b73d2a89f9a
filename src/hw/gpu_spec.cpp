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
}  // namespace

double GpuSpec::peak_flops(Precision p) const {
  double flops = 0;
  switch (p) {
    case Precision::fp32:
      flops = peak_fp32_flops;
      break;
    case Precision::tf32:
      flops = peak_tf32_flops;
      break;
    case Precision::fp16:
      flops = peak_fp16_flops;
      break;
    case Precision::bf16:
      flops = peak_bf16_flops;
      break;
    case Precision::fp8:
    case Precision::int8:
    case Precision::int4:
    case Precision::int2:
      break;  // no peak: the loader accepts these for tables and comms only
  }
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
  double own = 0;
  switch (p) {
    case Precision::fp32:
      own = mlp_efficiency_fp32;
      break;
    case Precision::tf32:
      own = mlp_efficiency_tf32;
      break;
    case Precision::fp16:
      own = mlp_efficiency_fp16;
      break;
    case Precision::bf16:
      own = mlp_efficiency_bf16;
      break;
    case Precision::fp8:
    case Precision::int8:
    case Precision::int4:
    case Precision::int2:
      break;
  }
  return own > 0 ? own : mlp_efficiency;
}

}  // namespace shardsim
