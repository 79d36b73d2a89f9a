#include "shardsim/core/precision.hpp"

namespace shardsim {

std::string to_string(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::fp16:
      return "fp16";
    case Precision::bf16:
      return "bf16";
  }
  return "?";
}

double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32:
      return 4.0;
    case Precision::fp16:
    case Precision::bf16:
      return 2.0;
  }
  return 4.0;
}

}  // namespace shardsim
