// Per-GPU work lists over one pool of distinct works (plan/work_lists.hpp).
#include "shardsim/plan/work_lists.hpp"

#include <bit>
#include <stdexcept>

namespace shardsim {

namespace {

// Field by field, bit for bit: equal works give equal costs, whatever the cost formulas do.
bool same(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}
bool same(const EmbeddingWork& a, const EmbeddingWork& b) {
  return same(a.lookups, b.lookups) && same(a.distinct_rows, b.distinct_rows) &&
         same(a.pooled_outputs, b.pooled_outputs) && a.cols == b.cols &&
         a.precision == b.precision && a.kernel == b.kernel && same(a.rows, b.rows);
}

}  // namespace

std::span<const EmbeddingWork> WorkLists::of(int gpu, std::vector<EmbeddingWork>& scratch) const {
  const std::vector<std::uint32_t>& l = list(gpu);
  scratch.resize(l.size());
  for (std::size_t i = 0; i < l.size(); ++i) scratch[i] = pool_[l[i]];
  return scratch;
}

bool WorkLists::holds(std::uint32_t e, const EmbeddingWork& w) const {
  return e < pool_.size() && refs_[e] > 0 && same(pool_[e], w);
}

std::uint32_t WorkLists::allocate(const EmbeddingWork& w) {
  if (!free_.empty()) {
    const std::uint32_t e = free_.back();
    free_.pop_back();
    pool_[e] = w;
    refs_[e] = 1;
    return e;
  }
  if (pool_.size() >= kNone) throw std::length_error("WorkLists: 2^32 - 1 distinct works");
  pool_.push_back(w);
  refs_.push_back(1);
  return static_cast<std::uint32_t>(pool_.size() - 1);
}

void WorkLists::release(std::uint32_t e) {
  if (--refs_[e] == 0) free_.push_back(e);
}

std::size_t WorkLists::push(int gpu, const EmbeddingWork& w) {
  if (holds(last_pushed_, w)) {
    ++refs_[last_pushed_];
  } else {
    last_pushed_ = allocate(w);
  }
  std::vector<std::uint32_t>& l = lists_[static_cast<std::size_t>(gpu)];
  l.push_back(last_pushed_);
  return l.size() - 1;
}

void WorkLists::set(int gpu, std::size_t i, const EmbeddingWork& w) {
  std::uint32_t& e = lists_[static_cast<std::size_t>(gpu)][i];
  if (same(pool_[e], w)) return;
  const std::uint32_t old = e;
  if (last_set_ != e && holds(last_set_, w)) {
    ++refs_[last_set_];  // the value the previous GPU's work took: shared
    e = last_set_;
  } else if (refs_[e] == 1) {
    pool_[e] = w;  // its own entry: changed in place
    last_set_ = e;
    return;
  } else {
    e = allocate(w);
    last_set_ = e;
  }
  release(old);
}

}  // namespace shardsim
