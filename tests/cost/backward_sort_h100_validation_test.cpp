// The index work of the embedding backward (docs/model.md, "Embedding backward": L ·
// (backward_index_bytes_per_lookup + passes · backward_sort_pass_bytes_per_lookup) over the HBM
// bandwidth plus kernels_per_embedding_backward launches, passes = ceil(key bits / 8)) against
// cub's radix sort and run-length encoding of row ids measured on an H100 SXM5
// (tests/data/kernels/h100_radix_sort.json). The figures were fitted to the lines through the
// 27-bit (4 passes) and 64-bit (8 passes) points at 8M and 64M lookups (the linearising pass,
// 20 B a lookup, is counted in the bytes but not in the measurement); the other points are
// judged here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "kernel_data.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/cost/kernel_cost.hpp"
#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim {
namespace {

constexpr double kLineariseBytesPerLookup = 20;  // configs/cost/default.yaml: counted, not timed

// Today, 8M and 64M lookups: 20 bits +8%, 24 bits -1%...+1%, 32 bits -5%...-2%; at 1M (where the
// fixed time dominates): 20 bits +22%, 24 +17%, 27 +10%, 32 +8%, 64 -11%. Median 7.5%. With one
// figure a lookup (the 27-bit one) 20 bits were +33%...+38%.
TEST(BackwardSortH100Validation, HeldOutPointsWithinTwentyFivePercent) {
  const GpuSpec gpu = builtin_preset("dgx-h100").gpu;
  const CostParams p = default_cost_params();
  const nlohmann::json data = test::kernel_data("h100_radix_sort.json");
  std::vector<double> held_out;
  for (const auto& point : data.at("points")) {
    const int bits = point.at("end_bit").get<int>();
    const double lookups = point.at("lookups").get<double>();
    // The bench draws ids over 2^end_bit rows; TBE's key bits of 2^bits - 1 rows are `bits`
    // (2^64 - 1 is not a double).
    if (bits < 53) {
      ASSERT_EQ(sort_key_bits(std::ldexp(1.0, bits) - 1), bits);
    }
    const int passes = radix_sort_passes(bits, p);
    const double bytes = p.backward_index_bytes_per_lookup - kLineariseBytesPerLookup +
                         passes * p.backward_sort_pass_bytes_per_lookup;
    const double predicted = lookups * bytes / gpu.hbm_achievable_Bps +
                             p.kernels_per_embedding_backward * gpu.kernel_launch_s;
    const double error = predicted / point.at("sort_and_segments_s").get<double>() - 1;
    if ((bits == 27 || bits == 64) && lookups > 2e6) {
      EXPECT_LT(std::abs(error), 0.05) << point.dump();  // the fitted lines' own points
      continue;
    }
    held_out.push_back(error);
    EXPECT_LT(std::abs(error), lookups > 2e6 ? 0.10 : 0.25) << point.dump();
  }
  ASSERT_EQ(held_out.size(), 11u);  // 20/24/32 bits x 3 sizes, 27 and 64 bits at 1M
  std::sort(held_out.begin(), held_out.end());
  EXPECT_LT(std::abs(held_out[held_out.size() / 2]), 0.10);
}

// The passes follow the measured steps: 20 and 24 bits take the same time within 8%, 27 and 32
// bits the same within 7%, and each step from 3 to 4 passes is more than 20% (64M lookups).
TEST(BackwardSortH100Validation, PassesAreEightBitSteps) {
  const CostParams p = default_cost_params();
  EXPECT_EQ(radix_sort_passes(20, p), radix_sort_passes(24, p));
  EXPECT_EQ(radix_sort_passes(27, p), radix_sort_passes(32, p));
  EXPECT_EQ(radix_sort_passes(27, p), radix_sort_passes(24, p) + 1);
  const nlohmann::json data = test::kernel_data("h100_radix_sort.json");
  auto at = [&](int bits) {
    for (const auto& point : data.at("points")) {
      if (point.at("end_bit").get<int>() == bits && point.at("lookups").get<double>() > 6e7) {
        return point.at("sort_and_segments_s").get<double>();
      }
    }
    ADD_FAILURE() << "no 64M point at " << bits << " bits";
    return 1.0;
  };
  EXPECT_LT(at(24) / at(20), 1.08);
  EXPECT_LT(at(32) / at(27), 1.07);
  EXPECT_GT(at(27) / at(24), 1.20);
}

}  // namespace
}  // namespace shardsim
