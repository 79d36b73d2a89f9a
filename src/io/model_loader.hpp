#pragma once
// `model:` of a scenario (DESIGN.md §3): listed and generated embedding tables, MLPs,
// precisions and the optimizer.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/embedding_table.hpp"
#include "shardsim/model/pooling.hpp"

namespace shardsim {

// The largest table accepted: 10^13 rows. The largest production DLRMs hold up to 3.2 trillion
// parameters, over 5 TB of tables (2D paper §2.1; Neo §5.2: "up to trillions of parameters"), so
// one table of more than 10^13 rows (4 * 10^13 parameters even at dim 4) is taken as a typo.
inline constexpr std::uint64_t kMaxTableRows = 10'000'000'000'000ULL;

// `pooling:` of a table: a number (fixed), or {dist: fixed|uniform|normal|lognormal|histogram}.
PoolingSpec parse_pooling(const YamlValue& v);

// `dim:`: a positive multiple of 4. FBGEMM's table-batched embedding (TBE) kernels, which Neo
// §5.1 fuses all tables into, load rows in 4-element vectors and need dim % 4 == 0.
std::uint32_t parse_table_dim(const YamlValue& v);

// `rows:`: a positive integer, at most kMaxTableRows.
std::uint64_t parse_table_rows(const YamlValue& v);

// `heavy_hitters:` of a table with `rows` rows: probabilities in (0, 1), non-increasing, summing
// to less than 1, at most one per row.
std::vector<double> parse_heavy_hitters(const YamlValue& v, std::uint64_t rows);

// One entry of `model.tables`; `index` gives the default name "t<index>".
EmbeddingTable parse_table(const YamlValue& v, std::size_t index);

// The whole `model:` block. `default_seed` (workload.seed) seeds `generate` unless it has its
// own seed. Table names must be unique across listed and generated tables.
DlrmModel load_model(const YamlValue& model, std::uint64_t default_seed);

}  // namespace shardsim
