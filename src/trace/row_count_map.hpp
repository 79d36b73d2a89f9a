#pragma once
// Private to the trace module: a hash map from row id to a 64-bit value with open addressing
// (linear probing, backward-shift deletion), for counting rows while building empirical profiles.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "shardsim/core/rng.hpp"

namespace shardsim::detail {

class RowCountMap {
 public:
  explicit RowCountMap(std::uint64_t expected = 16) { reset(expected); }

  // Empties the map, with room for `expected` entries at a load factor <= 1/2.
  void reset(std::uint64_t expected) {
    keys_.assign(std::bit_ceil(std::max<std::uint64_t>(16, 2 * expected)), 0);
    values_.assign(keys_.size(), 0);
    shift_ = 64 - std::countr_zero(keys_.size());
    size_ = 0;
  }
  std::uint64_t size() const { return size_; }
  // Empties the map, keeping its capacity (a reused map does not grow again).
  void clear() {
    if (size_ == 0) return;
    std::fill(keys_.begin(), keys_.end(), 0);
    std::fill(values_.begin(), values_.end(), 0);
    size_ = 0;
  }

  // The value of `row`, inserted as 0 when absent (the map grows as needed).
  std::uint64_t& operator[](std::uint64_t row) {
    const std::uint64_t key = row + 1;  // 0 marks an empty slot
    std::uint64_t i = slot(row);
    while (keys_[i] != 0) {
      if (keys_[i] == key) return values_[i];
      i = (i + 1) & mask();
    }
    if (2 * (size_ + 1) > keys_.size()) {
      grow();
      return (*this)[row];
    }
    keys_[i] = key;
    ++size_;
    return values_[i];
  }
  // The value of `row`, or nullptr.
  const std::uint64_t* find(std::uint64_t row) const {
    const std::uint64_t key = row + 1;
    for (std::uint64_t i = slot(row); keys_[i] != 0; i = (i + 1) & mask())
      if (keys_[i] == key) return &values_[i];
    return nullptr;
  }
  std::uint64_t* find(std::uint64_t row) {
    return const_cast<std::uint64_t*>(static_cast<const RowCountMap*>(this)->find(row));
  }
  // Removes `row` (if present), shifting later entries of its probe run back.
  void erase(std::uint64_t row) {
    const std::uint64_t key = row + 1;
    std::uint64_t i = slot(row);
    while (keys_[i] != key) {
      if (keys_[i] == 0) return;
      i = (i + 1) & mask();
    }
    --size_;
    for (std::uint64_t j = (i + 1) & mask();; j = (j + 1) & mask()) {
      if (keys_[j] == 0) break;
      const std::uint64_t home = slot(keys_[j] - 1);
      // Move entry j into the hole at i unless its home lies cyclically in (i, j].
      const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
      if (stays) continue;
      keys_[i] = keys_[j];
      values_[i] = values_[j];
      i = j;
    }
    keys_[i] = 0;
    values_[i] = 0;
  }
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i] != 0) f(keys_[i] - 1, values_[i]);
  }
  std::size_t capacity() const { return keys_.size(); }

 private:
  std::uint64_t mask() const { return keys_.size() - 1; }
  std::uint64_t slot(std::uint64_t row) const { return mix64(row) >> shift_; }
  void grow() {
    RowCountMap bigger(keys_.size());  // twice the entries at load 1/2
    for_each([&](std::uint64_t row, std::uint64_t v) { bigger[row] = v; });
    *this = std::move(bigger);
  }
  std::vector<std::uint64_t> keys_;
  std::vector<std::uint64_t> values_;
  int shift_ = 60;
  std::uint64_t size_ = 0;
};

}  // namespace shardsim::detail
