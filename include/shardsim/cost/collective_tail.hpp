#pragma once
// Tail latency of a collective (docs/model.md, "Tail latency"): a collective ends when its slowest
// participant does. Each of its n participants finishes after a lognormal factor of mean 1 and
// coefficient of variation cv (σ² = ln(1 + cv²), μ = −σ²/2, the kernel jitter's distribution,
// sim/iteration_builder.cpp), so the collective takes its idle time times the maximum of n such
// factors: E[max] grows like 1 + σ·sqrt(2 ln n), which is how tail latency grows with scale.
// Under the nccl collective model only (CostParams::collective_jitter_cv); pure functions.
#include "shardsim/core/rng.hpp"

namespace shardsim {

// E[max of n factors]: 1 for n <= 1 or cv == 0. Simpson's rule on the density of the maximum
// (n·Φ(z)^(n−1)·φ(z) in the normal variable z), relative error below 1e-9; memoised per (n, cv)
// for the calibration's many re-pricings.
double expected_max_lognormal(int n, double cv);

// One draw of the maximum of n factors (n draws from `rng`, the largest kept).
double sample_max_lognormal(int n, double cv, Rng& rng);

}  // namespace shardsim
