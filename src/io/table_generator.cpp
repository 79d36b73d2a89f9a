// `model.generate` (DESIGN.md §3): tables drawn from distributions, deterministic per
// (seed, table, field). In the spirit of NeuroShard's random sharding tasks (NeuroShard §4,
// "Datasets": each table's dim drawn uniformly from {4, 8, ..., 2^j}), hence `dim: [list]`.
#include "io/table_generator.hpp"

#include <fmt/format.h>

#include "io/field_distribution.hpp"
#include "io/model_loader.hpp"
#include "shardsim/core/rng.hpp"
#include "shardsim/model/validation.hpp"

namespace shardsim {

namespace {

Rng field_rng(std::uint64_t seed, std::size_t table, GeneratedField field) {
  return Rng(
      stream_seed(seed, {static_cast<std::uint64_t>(table), static_cast<std::uint64_t>(field)}));
}

}  // namespace

std::vector<EmbeddingTable> generate_tables(const YamlValue& generate, std::uint64_t default_seed) {
  generate.expect_map();
  generate.expect_keys({"count", "rows", "dim", "pooling", "alpha", "q", "seed", "name_prefix"});
  const YamlValue count_v = generate.get("count");
  const std::uint64_t count = count_v.as_positive_int();
  if (count > kMaxGeneratedTables) {
    throw count_v.error(
        fmt::format("{} tables is more than the limit of {}", count, kMaxGeneratedTables),
        "check for extra zeros");
  }
  const FieldDistribution rows = parse_field_distribution(
      generate.get("rows"), FieldRange{1, false, static_cast<double>(kMaxTableRows), true, "rows"});
  const FieldDistribution pooling = parse_field_distribution(
      generate.get("pooling"),
      FieldRange{0, true, kMaxPooling, false, "pooling (lookups per sample)"});
  FieldDistribution alpha;  // default: the constant 1.0, as for listed tables
  alpha.value = 1.0;
  if (auto a = generate.find("alpha")) {
    alpha = parse_field_distribution(*a, FieldRange{0, false, kMaxAlpha, false, "alpha"});
  }
  FieldDistribution q;  // default: the constant 0
  if (auto qv = generate.find("q")) {
    q = parse_field_distribution(*qv, FieldRange{0, false, kMaxQ, false, "q"});
  }
  // dim: one value, or a list to choose from uniformly.
  std::vector<std::uint32_t> dims;
  const YamlValue dim_v = generate.get("dim");
  if (dim_v.is_sequence()) {
    if (dim_v.size() == 0) throw dim_v.error("the list of dims is empty", "e.g. [16, 32, 64]");
    for (const auto& e : dim_v.elements()) dims.push_back(parse_table_dim(e));
  } else {
    dims.push_back(parse_table_dim(dim_v));
  }
  std::uint64_t seed = default_seed;
  if (auto s = generate.find("seed")) seed = s->as_nonnegative_int();
  std::string prefix = "gen";
  if (auto p = generate.find("name_prefix")) prefix = p->as_string();

  std::vector<EmbeddingTable> tables;
  tables.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    EmbeddingTable t;
    t.name = fmt::format("{}{}", prefix, i);
    Rng r_rows = field_rng(seed, i, GeneratedField::rows);
    t.rows = static_cast<std::uint64_t>(rows.sample(r_rows));
    Rng r_dim = field_rng(seed, i, GeneratedField::dim);
    t.dim = dims.size() == 1 ? dims[0] : dims[r_dim.below(dims.size())];
    // The drawn pooling is the table's mean pooling factor, fixed per table (NeuroShard §2.1
    // quantifies a table's lookup cost by its mean pooling factor).
    Rng r_pool = field_rng(seed, i, GeneratedField::pooling);
    t.pooling.kind = PoolingSpec::Kind::fixed;
    t.pooling.value = pooling.sample(r_pool);
    Rng r_alpha = field_rng(seed, i, GeneratedField::alpha);
    t.alpha = alpha.sample(r_alpha);
    Rng r_q = field_rng(seed, i, GeneratedField::q);
    t.q = q.sample(r_q);
    tables.push_back(std::move(t));
  }
  return tables;
}

}  // namespace shardsim
