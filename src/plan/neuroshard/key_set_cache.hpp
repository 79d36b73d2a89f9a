#pragma once
// The store behind NeuroShard's life-long cost cache (cost_model.hpp, ComputeCost): seconds by
// the sorted cost keys of a set of sub-tables. Exact: a hit compares the whole key sequence.
//
// One search asks millions of times (the greedy step prices every GPU after every placement),
// and the sets it keeps grow to millions. A hash map of vectors allocated two blocks an entry
// and chased two pointers a lookup; this keeps the keys one after another in large blocks that
// are never reallocated, and the entries in an open-addressing table (linear probing, at most
// kMaxLoad full), so a lookup touches one slot and, on a hash match, the keys it compares.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace shardsim::neuroshard {

class KeySetCache {
 public:
  // The value stored for exactly `keys`, if any.
  std::optional<double> find(std::span<const std::uint64_t> keys) const;
  // Stores `value` for `keys` (which must not be stored yet).
  void insert(std::span<const std::uint64_t> keys, double value);
  std::size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    double value = 0;
    std::uint32_t block = 0;  // the keys: blocks_[block][offset, offset + length)
    std::uint32_t offset = 0;
    std::uint32_t length = 0;  // 0: empty (a set has at least one key; see the .cpp)
  };
  const std::uint64_t* keys_of(const Slot& s) const { return blocks_[s.block].data() + s.offset; }
  static std::uint64_t hash_of(std::span<const std::uint64_t> keys);
  // The slot holding `keys`, or the empty slot where they would go.
  std::size_t probe(std::span<const std::uint64_t> keys, std::uint64_t hash) const;
  void grow();

  std::vector<Slot> slots_;
  std::vector<std::vector<std::uint64_t>> blocks_;  // each reserved once, then only appended to
  std::size_t size_ = 0;
};

}  // namespace shardsim::neuroshard
