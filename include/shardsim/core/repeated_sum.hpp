#pragma once
// acc + v + v + ... (n times) rounded after every addition exactly as the loop
// `for (i < n) acc += v;` rounds it, in O(binades crossed) steps instead of O(n) (issue 59:
// the per-GPU sums of a uniform draw, byte-identical to the per-GPU loops they replace).
#include <cstdint>

namespace shardsim {

double repeated_sum(double acc, double v, std::uint64_t n);

}  // namespace shardsim
