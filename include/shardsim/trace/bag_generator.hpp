#pragma once
// The concrete lookups of a synthetic trace, bag by bag (docs/traces.md §6): what `sampled` mode
// counts, what `shardsim trace gen` writes and `trace stats SCENARIO` summarises.
//
// For table t, iteration i and GPU g with a local batch of B samples:
//   - sample s's pooling factor L_s: the s-th draw of the stream (t, i, g, pooling);
//   - bag s: L_s ranks from the table's law (ZipfMandelbrotSampler), drawn from the bag's own
//     stream Rng(mix64(stream_seed(seed, {t, i, g, indices}) ^ mix64(s))); with unique_in_bag
//     a rank already in the bag is drawn again (successive sampling; L_s is capped at the rows);
//   - temporal reuse (i > 0): slot j of bag s repeats slot j of bag s of iteration i - 1 (when
//     that bag has a slot j) with probability `reuse`, decided by a hash of (t, i, g, s, j);
//     repeated slots chain back to the iteration where the slot was drawn fresh. Reuse is applied
//     after uniqueness, so with both a bag may repeat a row (as in FBGEMM's generator);
//   - ranks become row ids through the table's layout (clustered or scattered).
// Every bag is a pure function of (seed, table, iteration, gpu, sample): the same whatever the
// thread count or call order. Memory: the bags asked for, nothing per table row.
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "shardsim/model/embedding_table.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/trace/row_layout.hpp"
#include "shardsim/trace/row_range.hpp"
#include "shardsim/trace/zipf_sampler.hpp"

namespace shardsim {

// The purposes of the random streams of one (table, iteration, gpu).
// (block_split = 2 was expected mode's multinomial split, before its draws became expectations.)
enum class TraceStream : std::uint64_t { pooling = 1, block_split = 2, indices = 3, reuse = 4 };

// Seed of a table's scattered-layout hash: stream_seed(workload_seed, {table, "LAYOUT"}).
std::uint64_t layout_seed(std::uint64_t workload_seed, std::size_t table);

// Bags of consecutive samples: lengths[s] rows of sample s, stored one bag after another.
struct Bags {
  std::vector<std::uint32_t> lengths;
  std::vector<std::uint64_t> rows;
  void clear() {
    lengths.clear();
    rows.clear();
  }
};

class BagGenerator {
 public:
  // Throws std::invalid_argument when check_table(table) reports a problem.
  BagGenerator(const EmbeddingTable& table, std::size_t table_index, const Workload& workload);

  // The pooling factors of GPU `gpu`'s `samples` samples in `iteration` (capped at the table's
  // rows under unique_in_bag, and at 2^32 - 1).
  std::vector<std::uint32_t> lengths(int iteration, int gpu, std::uint32_t samples) const;

  // Appends that local batch's bags to `out`: its lengths, and its rows as row ids
  // (RowSpace::row_id) or ranks (RowSpace::rank, 0 = hottest).
  void append(int iteration, int gpu, std::uint32_t samples, RowSpace space, Bags& out) const;

  // Built on first use (thread-safe): expected mode, which never draws a row, does not pay for
  // its cells.
  const ZipfMandelbrotSampler& sampler() const;
  const RowLayout& layout() const { return layout_; }

 private:
  struct Scratch;
  // The seed of the index streams of (iteration, gpu): stream_seed(seed, {t, i, g, indices}).
  std::uint64_t indices_seed(int iteration, int gpu) const;
  // Bag `sample` of the (iteration, gpu) with that indices_seed as drawn fresh (before reuse), in
  // ranks, into `ranks`.
  void fresh_bag(std::uint64_t indices_seed, std::uint32_t sample, std::uint32_t length,
                 std::vector<std::uint64_t>& ranks, Scratch& scratch) const;
  bool reused(int iteration, int gpu, std::uint32_t sample, std::uint32_t slot) const;

  EmbeddingTable table_;
  std::size_t table_index_;
  std::uint64_t seed_;
  bool unique_in_bag_;
  double reuse_;
  mutable std::once_flag sampler_once_;
  mutable std::unique_ptr<ZipfMandelbrotSampler> sampler_;
  RowLayout layout_;
};

}  // namespace shardsim
