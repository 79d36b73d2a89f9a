#pragma once
// `model.generate`: embedding tables drawn from distributions, deterministically.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/model/embedding_table.hpp"

namespace shardsim {

// Most tables one `generate` block may ask for (DESIGN.md §1 targets 4000-table models); more is
// taken as a typo rather than a request to allocate millions of tables.
inline constexpr std::size_t kMaxGeneratedTables = 1'000'000;

// The sub-stream of each drawn field: table i's field f is drawn from
// Rng(stream_seed(seed, {i, f})), so tables do not depend on each other or on the other fields'
// distributions (changing `alpha:` leaves the drawn rows unchanged).
enum class GeneratedField : std::uint64_t { rows = 0, dim = 1, pooling = 2, alpha = 3, q = 4 };

// Draws the tables of a `generate:` block. Names are `<name_prefix><i>`, i = 0..count-1.
// `default_seed` is used when the block has no `seed:`.
std::vector<EmbeddingTable> generate_tables(const YamlValue& generate, std::uint64_t default_seed);

}  // namespace shardsim
