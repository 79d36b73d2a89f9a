#pragma once
// A fixed-capacity open-addressing set of row ids, for counting distinct rows in sampled mode
// (private to the trace module).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "shardsim/core/rng.hpp"

namespace shardsim::detail {

class TouchedRows {
 public:
  // Room for `max_distinct` ids at a load factor <= 1/2.
  explicit TouchedRows(std::uint64_t max_distinct)
      : slots_(std::bit_ceil(std::max<std::uint64_t>(16, 2 * max_distinct)), 0),
        mask_(slots_.size() - 1) {}

  // True when `id` was not in the set.
  bool insert(std::uint64_t id) {
    const std::uint64_t key = id + 1;  // 0 marks an empty slot
    for (std::uint64_t i = mix64(id) & mask_;; i = (i + 1) & mask_) {
      if (slots_[i] == key) return false;
      if (slots_[i] == 0) {
        slots_[i] = key;
        return true;
      }
    }
  }
  std::size_t capacity() const { return slots_.size(); }

 private:
  std::vector<std::uint64_t> slots_;
  std::uint64_t mask_;
};

}  // namespace shardsim::detail
