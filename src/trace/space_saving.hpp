#pragma once
// Private to the trace module: the Space-Saving heavy-hitter counter (Metwally et al. 2005) that
// EmpiricalProfileBuilder switches to when a table's exact row counts overflow.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "trace/row_count_map.hpp"

namespace shardsim::detail {

// Space-Saving (Metwally et al. 2005) with a min-heap over its counters: the rows it holds
// include every row whose count exceeds (items seen) / capacity.
class SpaceSaving {
 public:
  explicit SpaceSaving(std::size_t capacity) : capacity_(capacity), index_(2 * capacity) {}
  void add(std::uint64_t row, std::uint64_t weight = 1) {
    if (std::uint64_t* slot = index_.find(row)) {
      count_[*slot] += weight;
      sift_down(pos_[*slot]);
      return;
    }
    if (ids_.size() < capacity_) {
      const std::size_t s = ids_.size();
      ids_.push_back(row);
      count_.push_back(weight);
      pos_.push_back(heap_.size());
      heap_.push_back(s);
      index_[row] = s;
      sift_up(heap_.size() - 1);
      return;
    }
    const std::size_t s = heap_[0];  // the smallest counter takes the new row
    index_.erase(ids_[s]);
    ids_[s] = row;
    count_[s] += weight;
    index_[row] = s;
    sift_down(0);
  }
  const std::vector<std::uint64_t>& ids() const { return ids_; }

 private:
  bool less(std::size_t a, std::size_t b) const { return count_[heap_[a]] < count_[heap_[b]]; }
  void swap_at(std::size_t a, std::size_t b) {
    std::swap(heap_[a], heap_[b]);
    pos_[heap_[a]] = a;
    pos_[heap_[b]] = b;
  }
  void sift_up(std::size_t i) {
    while (i > 0 && less(i, (i - 1) / 2)) {
      swap_at(i, (i - 1) / 2);
      i = (i - 1) / 2;
    }
  }
  void sift_down(std::size_t i) {
    while (true) {
      const std::size_t l = 2 * i + 1, r = l + 1;
      std::size_t m = i;
      if (l < heap_.size() && less(l, m)) m = l;
      if (r < heap_.size() && less(r, m)) m = r;
      if (m == i) return;
      swap_at(i, m);
      i = m;
    }
  }
  std::size_t capacity_;
  RowCountMap index_;  // row -> counter
  std::vector<std::uint64_t> ids_;
  std::vector<std::uint64_t> count_;
  std::vector<std::size_t> pos_;   // counter -> heap position
  std::vector<std::size_t> heap_;  // heap position -> counter
};

}  // namespace shardsim::detail
