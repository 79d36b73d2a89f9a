#pragma once
#include <string>

namespace shardsim {

// Arithmetic precision of a kernel (MLPs) or of stored/communicated values.
enum class Precision { fp32, tf32, fp16, bf16 };

std::string to_string(Precision p);
double bytes_per_element(Precision p);  // tf32 is stored as 4 bytes

}  // namespace shardsim
