#include "trace/cache_simulation.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "shardsim/core/rng.hpp"

namespace shardsim {

namespace {

constexpr std::uint32_t kNoCacheNode = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kNoRow = std::numeric_limits<std::uint64_t>::max();

// Row id -> V by open addressing (linear probing, at most half full, backward-shift erase): about
// three times faster than std::unordered_map here, which decides how long traces the tests can
// afford. Row id 2^64 - 1 marks empty slots (simulate_cache refuses it).
template <class V>
class FlatRowMap {
 public:
  explicit FlatRowMap(std::size_t expected) {
    std::size_t n = 16;
    while (n < 2 * expected) n *= 2;
    keys_.assign(n, kNoRow);
    values_.resize(n);
  }
  // The value of `row`, nullptr when absent.
  V* find(std::uint64_t row) {
    for (std::size_t i = slot(row);; i = (i + 1) & mask()) {
      if (keys_[i] == row) return &values_[i];
      if (keys_[i] == kNoRow) return nullptr;
    }
  }
  // The value of `row`, inserted as V{} when absent.
  V& at_or_insert(std::uint64_t row) {
    if (2 * (size_ + 1) > keys_.size()) grow();
    std::size_t i = slot(row);
    for (; keys_[i] != kNoRow; i = (i + 1) & mask())
      if (keys_[i] == row) return values_[i];
    keys_[i] = row;
    values_[i] = V{};
    ++size_;
    return values_[i];
  }
  void erase(std::uint64_t row) {
    std::size_t i = slot(row);
    while (keys_[i] != row) {
      if (keys_[i] == kNoRow) return;
      i = (i + 1) & mask();
    }
    // Backward shift: move later members of the probe run into the hole when their home slot
    // does not lie cyclically in (hole, j].
    std::size_t hole = i;
    for (std::size_t j = (i + 1) & mask(); keys_[j] != kNoRow; j = (j + 1) & mask()) {
      const std::size_t home = slot(keys_[j]);
      const bool stays = hole < j ? (home > hole && home <= j) : (home > hole || home <= j);
      if (stays) continue;
      keys_[hole] = keys_[j];
      values_[hole] = values_[j];
      hole = j;
    }
    keys_[hole] = kNoRow;
    --size_;
  }

 private:
  std::size_t mask() const { return keys_.size() - 1; }
  std::size_t slot(std::uint64_t row) const { return mix64(row) & mask(); }
  void grow() {
    std::vector<std::uint64_t> keys(keys_.size() * 2, kNoRow);
    std::vector<V> values(keys.size());
    keys.swap(keys_);
    values.swap(values_);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == kNoRow) continue;
      std::size_t j = slot(keys[i]);
      while (keys_[j] != kNoRow) j = (j + 1) & mask();
      keys_[j] = keys[i];
      values_[j] = values[i];
    }
  }

  std::vector<std::uint64_t> keys_;
  std::vector<V> values_;
  std::size_t size_ = 0;
};

// Exact LRU: the recency list is an array of nodes linked by index (most recent at head_).
class LruCacheSim {
 public:
  explicit LruCacheSim(std::uint32_t capacity_rows)
      : capacity_(capacity_rows), where_(capacity_rows) {
    nodes_.reserve(capacity_rows);
  }

  bool lookup(std::uint64_t row) {
    if (const std::uint32_t* n = where_.find(row)) {
      move_to_front(*n);
      return true;
    }
    std::uint32_t n;
    if (nodes_.size() < capacity_) {
      n = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back({row, kNoCacheNode, kNoCacheNode});
    } else {
      n = tail_;  // the least recently used row leaves
      unlink(n);
      where_.erase(nodes_[n].row);
      nodes_[n].row = row;
    }
    push_front(n);
    where_.at_or_insert(row) = n;
    return false;
  }

 private:
  struct Node {
    std::uint64_t row;
    std::uint32_t prev;
    std::uint32_t next;
  };
  void unlink(std::uint32_t n) {
    Node& x = nodes_[n];
    if (x.prev != kNoCacheNode)
      nodes_[x.prev].next = x.next;
    else
      head_ = x.next;
    if (x.next != kNoCacheNode)
      nodes_[x.next].prev = x.prev;
    else
      tail_ = x.prev;
  }
  void push_front(std::uint32_t n) {
    nodes_[n].prev = kNoCacheNode;
    nodes_[n].next = head_;
    if (head_ != kNoCacheNode) nodes_[head_].prev = n;
    head_ = n;
    if (tail_ == kNoCacheNode) tail_ = n;
  }
  void move_to_front(std::uint32_t n) {
    if (n == head_) return;
    unlink(n);
    push_front(n);
  }

  std::uint32_t capacity_;
  std::vector<Node> nodes_;
  FlatRowMap<std::uint32_t> where_;
  std::uint32_t head_ = kNoCacheNode;
  std::uint32_t tail_ = kNoCacheNode;
};

// Perfect LFU with count-based admission (cache_simulation.hpp): counts of every row seen, the
// cached rows in a min-heap on their counts (each heap slot carries its row's count, so the heap
// never consults the map).
class LfuCacheSim {
 public:
  explicit LfuCacheSim(std::uint32_t capacity_rows)
      : capacity_(capacity_rows), rows_(2 * std::size_t{capacity_rows}) {
    heap_.reserve(capacity_rows);
  }

  bool lookup(std::uint64_t row) {
    Entry& e = rows_.at_or_insert(row);
    ++e.count;
    if (e.heap_pos != kNoCacheNode) {
      heap_[e.heap_pos].count = e.count;
      sift_down(e.heap_pos);  // its count rose by one
      return true;
    }
    if (heap_.size() < capacity_) {
      heap_.push_back({e.count, row});
      sift_up(static_cast<std::uint32_t>(heap_.size() - 1));
    } else if (e.count > heap_[0].count) {
      rows_.find(heap_[0].row)->heap_pos = kNoCacheNode;
      heap_[0] = {e.count, row};
      sift_down(0);
    }
    return false;
  }

 private:
  struct Entry {
    std::uint64_t count = 0;
    std::uint32_t heap_pos = kNoCacheNode;
  };
  struct Slot {
    std::uint64_t count;
    std::uint64_t row;
  };
  void place(std::uint32_t i, const Slot& slot) {
    heap_[i] = slot;
    rows_.find(slot.row)->heap_pos = i;
  }
  void sift_up(std::uint32_t i) {
    const Slot x = heap_[i];
    while (i > 0) {
      const std::uint32_t parent = (i - 1) / 2;
      if (heap_[parent].count <= x.count) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, x);
  }
  void sift_down(std::uint32_t i) {
    const Slot x = heap_[i];
    const auto n = static_cast<std::uint32_t>(heap_.size());
    while (true) {
      std::uint32_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && heap_[child + 1].count < heap_[child].count) ++child;
      if (heap_[child].count >= x.count) break;
      place(i, heap_[child]);
      i = child;
    }
    place(i, x);
  }

  std::uint32_t capacity_;
  std::vector<Slot> heap_;  // the cached rows, a min-heap on their counts
  FlatRowMap<Entry> rows_;  // every row seen: its count, its heap slot when cached
};

template <class Cache>
CacheSimulationResult run_cache_sim(Cache& cache, std::span<const std::uint64_t> row_ids,
                                    std::uint64_t warmup_lookups) {
  CacheSimulationResult result;
  const std::size_t warm = std::min<std::uint64_t>(warmup_lookups, row_ids.size());
  for (std::size_t i = 0; i < warm; ++i) cache.lookup(row_ids[i]);
  for (std::size_t i = warm; i < row_ids.size(); ++i) result.hits += cache.lookup(row_ids[i]);
  result.counted_lookups = row_ids.size() - warm;
  return result;
}

}  // namespace

CacheSimulationResult simulate_cache(std::span<const std::uint64_t> row_ids,
                                     std::uint64_t capacity_rows, CachePolicy policy,
                                     std::uint64_t warmup_lookups) {
  if (std::find(row_ids.begin(), row_ids.end(), kNoRow) != row_ids.end())
    throw std::invalid_argument("simulate_cache: row id 2^64 - 1 is reserved");
  // More cached rows than lookups is the same cache as one row per lookup (and keeps the node
  // indices in 32 bits).
  const auto capacity = static_cast<std::uint32_t>(std::min<std::uint64_t>(
      {capacity_rows, row_ids.size(), std::numeric_limits<std::uint32_t>::max() - 1}));
  if (capacity == 0) {
    CacheSimulationResult none;
    none.counted_lookups = row_ids.size() - std::min<std::uint64_t>(warmup_lookups, row_ids.size());
    return none;
  }
  if (policy == CachePolicy::lru) {
    LruCacheSim cache(capacity);
    return run_cache_sim(cache, row_ids, warmup_lookups);
  }
  LfuCacheSim cache(capacity);
  return run_cache_sim(cache, row_ids, warmup_lookups);
}

}  // namespace shardsim
