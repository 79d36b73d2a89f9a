#include "shardsim/trace/bag_generator.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "shardsim/core/rng.hpp"
#include "shardsim/model/validation.hpp"

namespace shardsim {

namespace {

constexpr std::uint64_t kLayoutStream = 0x4c41594f5554ULL;  // "LAYOUT"
// A bag that has not found its distinct rows after this many draws (the bag nearly covers the
// table) takes the hottest ranks it lacks.
constexpr std::uint64_t kUniqueDrawsBase = 64;
constexpr std::uint64_t kUniqueDrawsPerSlot = 32;
// Bags up to this long check uniqueness by a linear scan; longer ones through a hash set.
constexpr std::uint32_t kLinearScanMax = 64;

std::uint64_t key(int v) {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
}

}  // namespace

std::uint64_t layout_seed(std::uint64_t workload_seed, std::size_t table) {
  return stream_seed(workload_seed, {table, kLayoutStream});
}

// Reusable buffers of one append() call.
struct BagGenerator::Scratch {
  std::vector<std::uint64_t> set;  // open addressing, rank + 1 (0 = empty)
  std::vector<std::uint64_t> bag;
  void reset_set(std::uint32_t length) {
    set.assign(std::bit_ceil(std::max<std::uint64_t>(128, 2 * std::uint64_t{length})), 0);
  }
  // True when `rank` was not there yet (and inserts it).
  bool insert(std::uint64_t rank) {
    const std::uint64_t mask = set.size() - 1;
    for (std::uint64_t i = mix64(rank) & mask;; i = (i + 1) & mask) {
      if (set[i] == rank + 1) return false;
      if (set[i] == 0) {
        set[i] = rank + 1;
        return true;
      }
    }
  }
};

BagGenerator::BagGenerator(const EmbeddingTable& table, std::size_t table_index,
                           const Workload& workload)
    : table_(table),
      table_index_(table_index),
      seed_(workload.seed),
      unique_in_bag_(workload.trace.unique_in_bag),
      reuse_(workload.trace.reuse),
      layout_(workload.trace.layout, std::max<std::uint64_t>(table.rows, 1),  // rows checked below
              layout_seed(workload.seed, table_index)) {
  require_valid_table(table);
}

const ZipfMandelbrotSampler& BagGenerator::sampler() const {
  std::call_once(sampler_once_,
                 [this] { sampler_ = std::make_unique<ZipfMandelbrotSampler>(table_); });
  return *sampler_;
}

std::vector<std::uint32_t> BagGenerator::lengths(int iteration, int gpu,
                                                 std::uint32_t samples) const {
  Rng rng(stream_seed(seed_, {table_index_, key(iteration), key(gpu),
                              static_cast<std::uint64_t>(TraceStream::pooling)}));
  const double cap = unique_in_bag_ ? std::min<double>(static_cast<double>(table_.rows),
                                                       std::numeric_limits<std::uint32_t>::max())
                                    : std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> out(samples);
  for (auto& l : out) l = static_cast<std::uint32_t>(std::min(table_.pooling.sample(rng), cap));
  return out;
}

bool BagGenerator::reused(int iteration, int gpu, std::uint32_t sample, std::uint32_t slot) const {
  const std::uint64_t base = stream_seed(seed_, {table_index_, key(iteration), key(gpu),
                                                 static_cast<std::uint64_t>(TraceStream::reuse)});
  const std::uint64_t h = mix64(base ^ mix64((std::uint64_t{sample} << 32) | slot));
  return static_cast<double>(h >> 11) * 0x1.0p-53 < reuse_;
}

std::uint64_t BagGenerator::indices_seed(int iteration, int gpu) const {
  return stream_seed(seed_, {table_index_, key(iteration), key(gpu),
                             static_cast<std::uint64_t>(TraceStream::indices)});
}

void BagGenerator::fresh_bag(std::uint64_t indices_seed, std::uint32_t sample, std::uint32_t length,
                             std::vector<std::uint64_t>& ranks, Scratch& scratch) const {
  Rng rng(mix64(indices_seed ^ mix64(sample)));
  ranks.resize(length);
  if (!unique_in_bag_) {
    sampler().fill(rng, ranks);
    return;
  }
  const bool linear = length <= kLinearScanMax;
  if (!linear) scratch.reset_set(length);
  const auto insert = [&](std::uint64_t r, std::uint32_t filled) {
    if (!linear) return scratch.insert(r);
    for (std::uint32_t i = 0; i < filled; ++i)
      if (ranks[i] == r) return false;
    return true;
  };
  std::uint32_t filled = 0;
  const std::uint64_t limit = kUniqueDrawsBase + kUniqueDrawsPerSlot * std::uint64_t{length};
  const ZipfMandelbrotSampler& draw = sampler();
  for (std::uint64_t draws = 0; filled < length && draws < limit; ++draws) {
    const std::uint64_t r = draw(rng);
    if (insert(r, filled)) ranks[filled++] = r;
  }
  for (std::uint64_t r = 0; filled < length; ++r)
    if (insert(r, filled)) ranks[filled++] = r;
}

void BagGenerator::append(int iteration, int gpu, std::uint32_t samples, RowSpace space,
                          Bags& out) const {
  const std::vector<std::uint32_t> lens = lengths(iteration, gpu, samples);
  out.lengths.insert(out.lengths.end(), lens.begin(), lens.end());
  std::uint64_t total = 0;
  for (std::uint32_t l : lens) total += l;
  const std::size_t start = out.rows.size();
  out.rows.reserve(start + total);
  Scratch scratch;
  const bool with_reuse = reuse_ > 0 && iteration > 0;
  // Lengths of earlier iterations (same GPU), and earlier fresh bags of the current sample.
  std::map<int, std::vector<std::uint32_t>> earlier_lengths;
  std::vector<std::pair<int, std::vector<std::uint64_t>>> earlier_bags;
  const auto lengths_of = [&](int it) -> const std::vector<std::uint32_t>& {
    auto found = earlier_lengths.find(it);
    if (found == earlier_lengths.end())
      found = earlier_lengths.emplace(it, lengths(it, gpu, samples)).first;
    return found->second;
  };
  const std::uint64_t seed = indices_seed(iteration, gpu);  // once a batch, not once a bag
  for (std::uint32_t s = 0; s < samples; ++s) {
    fresh_bag(seed, s, lens[s], scratch.bag, scratch);
    if (!with_reuse) {
      out.rows.insert(out.rows.end(), scratch.bag.begin(), scratch.bag.end());
      continue;
    }
    earlier_bags.clear();
    for (std::uint32_t j = 0; j < lens[s]; ++j) {
      int source = iteration;
      while (source > 0 && reused(source, gpu, s, j) && j < lengths_of(source - 1)[s]) --source;
      if (source == iteration) {
        out.rows.push_back(scratch.bag[j]);
        continue;
      }
      auto it = std::find_if(earlier_bags.begin(), earlier_bags.end(),
                             [&](const auto& e) { return e.first == source; });
      if (it == earlier_bags.end()) {
        std::vector<std::uint64_t> bag;
        Scratch inner;
        fresh_bag(indices_seed(source, gpu), s, lengths_of(source)[s], bag, inner);
        earlier_bags.emplace_back(source, std::move(bag));
        it = earlier_bags.end() - 1;
      }
      out.rows.push_back(it->second[j]);
    }
  }
  if (space == RowSpace::row_id && layout_.kind() == HotRowLayout::scattered)
    for (std::size_t i = start; i < out.rows.size(); ++i)
      out.rows[i] = layout_.row_of_rank(out.rows[i]);
}

}  // namespace shardsim
