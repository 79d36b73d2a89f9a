#pragma once
// Each GPU's list of EmbeddingWork (the tables of its fused kernel), kept as indices into one
// pool of distinct works. A block copied to every GPU and looked up the same on each (OPER's hot
// prefixes, §4.3) is one work on every GPU: stored once, not once per GPU (16,384 GPUs × 1000
// tables of 48-byte works is 0.8 GB a list). Values are never merged by approximation: two GPUs
// share an entry only while their works are equal field by field, so every list reads back
// exactly the works written to it, in order.
#include <cstdint>
#include <span>
#include <vector>

#include "shardsim/cost/kernel_cost.hpp"

namespace shardsim {

class WorkLists {
 public:
  WorkLists() = default;
  explicit WorkLists(int num_gpus) : lists_(static_cast<std::size_t>(num_gpus)) {}

  int num_gpus() const { return static_cast<int>(lists_.size()); }
  std::size_t count(int gpu) const { return list(gpu).size(); }
  bool empty(int gpu) const { return list(gpu).empty(); }
  const EmbeddingWork& at(int gpu, std::size_t i) const { return pool_[list(gpu)[i]]; }
  // GPU `gpu`'s works in order, gathered into `scratch` (reused across calls).
  std::span<const EmbeddingWork> of(int gpu, std::vector<EmbeddingWork>& scratch) const;
  // Distinct works stored (for tests and memory estimates).
  std::size_t pool_size() const { return pool_.size() - free_.size(); }

  void reserve(int gpu, std::size_t n) { lists_[static_cast<std::size_t>(gpu)].reserve(n); }
  // Appends `w` to GPU `gpu`'s list; returns its position there.
  std::size_t push(int gpu, const EmbeddingWork& w);
  // Replaces work `i` of GPU `gpu` by `w` (the other GPUs sharing its entry keep theirs).
  void set(int gpu, std::size_t i, const EmbeddingWork& w);

 private:
  const std::vector<std::uint32_t>& list(int gpu) const {
    return lists_[static_cast<std::size_t>(gpu)];
  }
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  bool holds(std::uint32_t e, const EmbeddingWork& w) const;  // a live entry equal to w
  std::uint32_t allocate(const EmbeddingWork& w);             // a new entry (refs 1)
  void release(std::uint32_t e);

  std::vector<std::vector<std::uint32_t>> lists_;
  std::vector<EmbeddingWork> pool_;
  std::vector<std::uint32_t> refs_;
  std::vector<std::uint32_t> free_;
  // The entries last written by push() and by set(): consecutive GPUs given the same work share
  // them (a block on every GPU is n pushes and n sets in a row).
  std::uint32_t last_pushed_ = kNone, last_set_ = kNone;
};

}  // namespace shardsim
