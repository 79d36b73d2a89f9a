#pragma once
// A fixture of the torchrec partitioner tests (torchrec_test.cpp, torchrec_parity_test.cpp).
#include <vector>

#include "plan/torchrec/estimators.hpp"

namespace shardsim::torchrec::test {

// Four single-shard table-wise options of equal perf, the last the largest (20 bytes, the
// others 10).
inline std::vector<ShardingOption> four_table_wise_options() {
  std::vector<ShardingOption> opts(4);
  for (std::size_t i = 0; i < 4; ++i) {
    opts[i].table = i;
    opts[i].type = ShardingType::table_wise;
    ShardEstimate s;
    s.perf.fwd_compute_s = 1;
    s.hbm_bytes = i == 3 ? 20 : 10;
    opts[i].shards = {s};
    opts[i].total_hbm_bytes = s.hbm_bytes;
  }
  return opts;
}

}  // namespace shardsim::torchrec::test
