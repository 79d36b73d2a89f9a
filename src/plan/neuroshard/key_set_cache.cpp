#include "plan/neuroshard/key_set_cache.hpp"

#include <algorithm>
#include <stdexcept>

namespace shardsim::neuroshard {

namespace {

constexpr std::size_t kInitialSlots = 1024;  // a power of two
// Slots in use at most this share of the table (linear probing stays short below it).
constexpr double kMaxLoad = 0.7;
// Words a key block holds (8 MiB); a longer set gets a block of its own size.
constexpr std::size_t kBlockWords = std::size_t{1} << 20;

}  // namespace

std::uint64_t KeySetCache::hash_of(std::span<const std::uint64_t> keys) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the keys' words, with a final mix
  for (std::uint64_t x : keys) {
    h ^= x;
    h *= 1099511628211ULL;
    h ^= h >> 29;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

std::size_t KeySetCache::probe(std::span<const std::uint64_t> keys, std::uint64_t hash) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = static_cast<std::size_t>(hash) & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.length == 0) return i;
    if (s.hash == hash && s.length == keys.size() &&
        std::equal(keys.begin(), keys.end(), keys_of(s)))
      return i;
  }
}

std::optional<double> KeySetCache::find(std::span<const std::uint64_t> keys) const {
  if (slots_.empty() || keys.empty()) return std::nullopt;
  const Slot& s = slots_[probe(keys, hash_of(keys))];
  if (s.length == 0) return std::nullopt;
  return s.value;
}

void KeySetCache::insert(std::span<const std::uint64_t> keys, double value) {
  // An empty set marks an empty slot; the cost model never asks for one (a GPU's set has the
  // sub-table just placed on it).
  if (keys.empty()) throw std::invalid_argument("KeySetCache: an empty key set");
  if (static_cast<double>(size_ + 1) > kMaxLoad * static_cast<double>(slots_.size())) grow();
  const std::uint64_t hash = hash_of(keys);
  Slot& s = slots_[probe(keys, hash)];
  if (s.length != 0) throw std::logic_error("KeySetCache: the key set is stored already");
  if (blocks_.empty() || blocks_.back().size() + keys.size() > blocks_.back().capacity()) {
    blocks_.emplace_back().reserve(std::max(kBlockWords, keys.size()));
  }
  std::vector<std::uint64_t>& block = blocks_.back();
  s = Slot{hash, value, static_cast<std::uint32_t>(blocks_.size() - 1),
           static_cast<std::uint32_t>(block.size()), static_cast<std::uint32_t>(keys.size())};
  block.insert(block.end(), keys.begin(), keys.end());
  ++size_;
}

void KeySetCache::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? kInitialSlots : 2 * old.size(), Slot{});
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.length == 0) continue;
    std::size_t i = static_cast<std::size_t>(s.hash) & mask;
    while (slots_[i].length != 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

}  // namespace shardsim::neuroshard
