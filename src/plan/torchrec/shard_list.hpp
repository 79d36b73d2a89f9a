#pragma once
// The shards of one sharding option, kept as runs (issue 59): a row-wise or data-parallel
// option over 16,384 ranks is 16,384 shards that differ in their rows alone, and 1000 tables of
// them were 3 GB of estimates. A run is consecutive shards equal in everything but their rows,
// whose rows are either the same (data-parallel replicas) or consecutive blocks of one size
// (row-wise: shard k of the run holds rows first.begin + k·size ...). Shards are read by value;
// the list behaves as a read-only vector of them, plus push_back.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "shardsim/plan/plan.hpp"

namespace shardsim::torchrec {

template <typename Estimate>
class RunList {
 public:
  struct Run {
    std::size_t first = 0;   // index of its first shard
    std::size_t end = 0;     // one past its last
    Estimate shard;          // its first shard
    std::uint64_t step = 0;  // rows between consecutive shards' begins: 0 or the block size
  };

  RunList() = default;
  RunList(std::initializer_list<Estimate> shards) {
    for (const Estimate& s : shards) push_back(s);
  }

  std::size_t size() const { return runs_.empty() ? 0 : runs_.back().end; }
  bool empty() const { return runs_.empty(); }
  const std::vector<Run>& runs() const { return runs_; }

  Estimate operator[](std::size_t i) const {
    const Run& r = run_of(i);
    Estimate s = r.shard;
    const std::uint64_t shift = r.step * (i - r.first);
    s.rows.begin += shift;
    s.rows.end += shift;
    return s;
  }
  Estimate at(std::size_t i) const {
    if (i >= size()) throw std::out_of_range("RunList::at: shard index out of range");
    return (*this)[i];
  }
  Estimate front() const { return (*this)[0]; }
  Estimate back() const { return (*this)[size() - 1]; }

  // Appends a shard, joining the last run when it continues it.
  void push_back(const Estimate& s) {
    if (!runs_.empty()) {
      Run& r = runs_.back();
      if (same_but_rows(r.shard, s)) {
        const std::uint64_t count = r.end - r.first;
        const std::uint64_t size = r.shard.rows.size();
        const bool same_rows = s.rows.begin == r.shard.rows.begin && s.rows.end == r.shard.rows.end;
        const bool next_block =
            s.rows.size() == size && size > 0 && s.rows.begin == r.shard.rows.begin + count * size;
        if (count == 1 && (same_rows || next_block)) r.step = same_rows ? 0 : size;
        if ((same_rows && r.step == 0) || (next_block && r.step == size)) {
          ++r.end;
          return;
        }
      }
    }
    const std::size_t first = size();
    runs_.push_back(Run{first, first + 1, s, 0});
  }
  // Appends `count` copies of `s` (the same rows).
  void append_copies(const Estimate& s, std::size_t count) {
    if (count == 0) return;
    push_back(s);
    Run& r = runs_.back();
    if (r.end - r.first == 1) r.step = 0;
    if (r.step == 0) {
      r.end += count - 1;
    } else {
      for (std::size_t k = 1; k < count; ++k) push_back(s);
    }
  }

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Estimate;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Estimate;
    const_iterator(const RunList* list, std::size_t i) : list_(list), i_(i) {}
    Estimate operator*() const { return (*list_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }
    bool operator!=(const const_iterator& o) const { return i_ != o.i_; }

   private:
    const RunList* list_;
    std::size_t i_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

 private:
  const Run& run_of(std::size_t i) const {
    const auto it = std::upper_bound(runs_.begin(), runs_.end(), i,
                                     [](std::size_t v, const Run& r) { return v < r.end; });
    return *it;
  }
  static bool same_but_rows(const Estimate& a, const Estimate& b) {
    Estimate x = a;
    x.rows = b.rows;
    return x == b;
  }

  std::vector<Run> runs_;
};

}  // namespace shardsim::torchrec
