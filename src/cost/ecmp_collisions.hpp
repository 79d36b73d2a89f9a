#pragma once
// ECMP hash collisions on a switch tier (docs/model.md, "ECMP hash collisions"). A switch that
// balances by hashing (ECMP on RoCE fabrics) pins every flow (one queue pair) to one of its m
// equal-cost uplink ports at random; a port carrying k flows gives each 1/k of its rate. When n
// flows of equal bytes B cross the tier, the busiest port carries M of them and the collective
// waits for it: M·B / port rate instead of the n·B / (m · port rate) of perfect spreading.
// M is the maximum load of n balls thrown into m bins (Mitzenmacher & Upfal, Probability and
// Computing, §5.2–5.4): E[M] ≈ n/m + sqrt(2 (n/m) ln m) for n ≫ m ln m, and 1 plus the birthday
// collision probability for n ≪ m. Pure functions.
#include <cstdint>

namespace shardsim {

// E[max bin load] of `balls` thrown uniformly into `bins`: 0 without balls, `balls` with one
// bin. Exact (a recursion over the bins) for up to 256 balls;
// otherwise the Poisson approximation P(M <= k) = F_λ(k)^m, λ = n/m (§5.4), which is within a
// few percent beyond 256 balls (tests/cost/ecmp_collisions_test.cpp samples both).
// With `copies` > 1: the expected maximum over that many independent throws (a collective
// waits for its busiest port on any of its hashed uplinks). Memoised per argument triple.
double expected_max_bin_load(std::int64_t balls, std::int64_t bins, std::int64_t copies = 1);

// The factor by which hashing `flows` equal flows onto `ports` equal ports slows the busiest
// port against perfect spreading: E[M] / (flows / ports), at least 1; 1 for no flows. `copies`
// as above.
double ecmp_slowdown(std::int64_t flows, std::int64_t ports, std::int64_t copies = 1);

}  // namespace shardsim
