#pragma once
// Private to the trace module: the tail's count groups as EmpiricalProfileBuilder and
// ExactTableCounter both make them (they must agree bit for bit: `trace stats` prints them).
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include "shardsim/trace/empirical_profile.hpp"

namespace shardsim::detail {

// Octave of a count: 0 for (0, 1], j for (2^(j-1), 2^j].
inline int count_octave(double count) {
  if (count <= 1) return 0;
  return static_cast<int>(std::ceil(std::log2(count) - 1e-12));
}

// Groups of distinct counts, hottest first. More than `max_groups`: neighbours merged inside each
// octave (never across one), up to ceil(size / max_groups) groups into one.
inline std::vector<CountGroup> merge_count_groups(std::vector<CountGroup> groups,
                                                  std::size_t max_groups) {
  if (groups.size() <= max_groups) return groups;
  std::vector<CountGroup> merged;
  const std::size_t per = (groups.size() + max_groups - 1) / max_groups;
  std::size_t in_group = 0;
  for (const CountGroup& g : groups) {
    if (merged.empty() || in_group == per ||
        count_octave(merged.back().count()) != count_octave(g.count())) {
      merged.push_back(g);
      in_group = 1;
    } else {
      merged.back().rows += g.rows;
      merged.back().lookups += g.lookups;
      ++in_group;
    }
  }
  return merged;
}

}  // namespace shardsim::detail
