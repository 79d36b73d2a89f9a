#pragma once
// Frequency pruning of embedding rows, the what-if of AdaEmbed (Lai et al., seed 004: §4.1 keeps
// the rows of larger importance, access frequency first; §4.3 redirects a pruned row's lookups to
// a shared zero vector). docs/model.md "Pruning".
//
// Pruning a fraction f of a table's N rows keeps its K = N - round_down(f·N) hottest ranks
// (at least one). Nothing is materialised: the pruned table is an equivalent table of K rows
// whose law is the original one restricted to ranks 1..K and renormalised, which for the
// Zipf–Mandelbrot profile with heavy hitters is the same law on K rows (same alpha and q; the
// heavy hitters divided by the kept mass). The lookups that hit pruned rows are dropped: each
// lookup survives with probability s = mass of ranks 1..K (H_{K,alpha} / H_{N,alpha} for plain
// Zipf), which thins the table's pooling (PoolingSpec::keep). Memory, tiers, caches, kernels,
// traffic and traces then follow from the pruned table alone.
#include <cstdint>

#include "shardsim/model/embedding_table.hpp"

namespace shardsim {

// Rows kept when a fraction `fraction` in [0, 1) of `rows` is pruned: rows minus f·rows rounded
// down (a product within 1e-9 of a whole number counts as that number), at least 1.
std::uint64_t rows_kept_after_pruning(std::uint64_t rows, double fraction);

// `table` with its coldest `fraction` of rows pruned (records what went in `pruning`). fraction 0
// returns the table unchanged. Throws std::invalid_argument when fraction is not in [0, 1), when
// the table is already pruned, or when check_table(table) reports a problem.
EmbeddingTable prune_coldest_rows(const EmbeddingTable& table, double fraction);

// The table as it was before prune_coldest_rows, keeping only `pruning.fraction` (so that
// pruning it again by that fraction gives `table` back, bit for bit). A table that was not
// pruned is returned as it is.
EmbeddingTable unpruned_table(const EmbeddingTable& table);

}  // namespace shardsim
