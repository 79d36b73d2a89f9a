// `model:` of a scenario (DESIGN.md §3).
#include "io/model_loader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "io/table_generator.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/model/validation.hpp"
#include "shardsim/trace/table_pruning.hpp"

namespace shardsim {

namespace {

std::uint32_t read_u32(const YamlValue& v, bool positive) {
  const std::uint64_t x = positive ? v.as_positive_int() : v.as_nonnegative_int();
  if (x > std::numeric_limits<std::uint32_t>::max()) {
    throw v.error(
        fmt::format("{} is too large (at most {})", x, std::numeric_limits<std::uint32_t>::max()));
  }
  return static_cast<std::uint32_t>(x);
}

std::vector<std::uint32_t> parse_mlp(const YamlValue& v) {
  v.expect_sequence();
  if (v.size() == 0) {
    throw v.error("the list of layer widths is empty",
                  "give the output width of each layer, e.g. [512, 256, 128]");
  }
  std::vector<std::uint32_t> out;
  for (const auto& e : v.elements()) out.push_back(read_u32(e, true));
  return out;
}

// What a precision is written for: the stored tables, the embedding traffic, the MLP math, the
// dense gradient AllReduce.
enum class PrecisionUse { tables, comms, mlp, dense_grads };

Precision precision_named(const std::string& p) {
  if (p == "tf32") return Precision::tf32;
  if (p == "fp16") return Precision::fp16;
  if (p == "bf16") return Precision::bf16;
  if (p == "fp8") return Precision::fp8;
  if (p == "int8") return Precision::int8;
  if (p == "int4") return Precision::int4;
  if (p == "int2") return Precision::int2;
  return Precision::fp32;
}

// tables: FBGEMM's table types (SparseType FP32/FP16/BF16/INT8/INT4/INT2/FP8; int4, int2 and fp8
// only for inference, checked with the workload in the scenario loader). comms: the QComms
// formats modelled (FP32/FP16/BF16/FP8). mlp: the tensor-core math modes. docs/scenario.md.
Precision parse_precision(const YamlValue& v, PrecisionUse use) {
  if (use == PrecisionUse::mlp) {
    return precision_named(v.as_choice({"fp32", "tf32", "fp16", "bf16"}));
  }
  if (use == PrecisionUse::dense_grads) {
    if (v.as_string() == "tf32") {
      throw v.error("tf32 is a math mode of tensor cores, not a wire format",
                    "use fp32 (DDP's default), or fp16/bf16 (its compression hooks)");
    }
    return precision_named(v.as_choice({"fp32", "fp16", "bf16"}));
  }
  // Formats of another use first, with their reason; then the formats of this one (an unknown
  // value gets the list and the nearest).
  const std::string written = v.as_string();
  if (written == "tf32") {
    throw v.error("tf32 is a math mode of tensor cores, not a storage or wire format",
                  use == PrecisionUse::tables
                      ? "use fp32 (or fp16/bf16 to halve the bytes, int8/int4 to quantise them)"
                      : "use fp32 (or fp16/bf16 to halve the bytes, Neo §8.4, or fp8)");
  }
  if (use == PrecisionUse::comms && (written == "int8" || written == "int4" || written == "int2")) {
    throw v.error(fmt::format("{} communication is not modelled (FBGEMM's row-wise int8 QComms "
                              "adds a scale and bias per 32 values)",
                              written),
                  "use fp8 for one byte per value, or fp16/bf16");
  }
  return precision_named(use == PrecisionUse::tables
                             ? v.as_choice({"fp32", "fp16", "bf16", "int8", "int4", "int2", "fp8"})
                             : v.as_choice({"fp32", "fp16", "bf16", "fp8"}));
}

// Pooling bounds: [min, max] clip values for normal and lognormal draws. An absent max is stored
// as 0, which PoolingSpec reads as "no upper clip" (model/validation.hpp); a written max must be
// positive, so the two cannot be confused.
void parse_clip_bounds(const YamlValue& v, PoolingSpec& s) {
  s.min = 0;
  s.max = 0;
  if (auto lo = v.find("min")) s.min = lo->as_nonnegative_double();
  if (auto hi = v.find("max")) {
    s.max = hi->as_positive_double();
    if (s.max < s.min) {
      throw hi->error(fmt::format("max {} is less than min {}", s.max, s.min),
                      "max must be >= min");
    }
  }
}

// The model module's own checks (model/validation.hpp) after ours, so that a table the loader
// accepts is never one the model rejects later. `at` is the table's node (or the generate
// block); the problem is located at the sub-key it names when that key is written there.
void check_with_model(const EmbeddingTable& t, const YamlValue& at, const std::string& what) {
  const std::optional<SpecProblem> p = check_table(t);
  if (!p) return;
  YamlValue where = at;
  std::string rest = p->key;
  while (!rest.empty() && where.is_map()) {
    const std::size_t dot = rest.find('.');
    std::string seg = rest.substr(0, dot);
    const std::size_t bracket = seg.find('[');
    if (bracket != std::string::npos) seg.resize(bracket);
    const auto next = where.find(seg);
    if (!next) break;
    where = *next;
    rest = dot == std::string::npos ? std::string() : rest.substr(dot + 1);
  }
  throw InputError(where.location(), at.path() + "." + p->key,
                   what.empty() ? p->problem : what + ": " + p->problem, p->hint);
}

// `prune_fraction`: a share of the rows in [0, 1) (docs/scenario.md). NaN, negative or 1 are
// errors at the key.
double parse_prune_fraction(const YamlValue& v) {
  const double f = v.as_double();
  if (!std::isfinite(f) || f < 0 || f >= 1) {
    throw v.error(fmt::format("prune_fraction {} is not in [0, 1)", f),
                  "the share of the table's rows to prune, coldest first (AdaEmbed prunes "
                  "35-60%); 0 keeps every row, and a table keeps at least one row");
  }
  return f;
}

struct NameSite {
  SourceLocation where;
  std::string path;
};

}  // namespace

PoolingSpec parse_pooling(const YamlValue& v) {
  PoolingSpec s;
  if (v.is_scalar()) {
    s.kind = PoolingSpec::Kind::fixed;
    s.value = v.as_positive_double();
    return s;
  }
  if (!v.is_map()) {
    throw v.error("expected a number or a distribution",
                  "write e.g. 'pooling: 20' or 'pooling: {dist: lognormal, mean: 15, sigma: 0.5}'");
  }
  const std::string dist =
      v.get("dist").as_choice({"fixed", "uniform", "normal", "lognormal", "histogram"});
  if (dist == "fixed") {
    v.expect_keys({"dist", "value"});
    s.kind = PoolingSpec::Kind::fixed;
    s.value = v.get("value").as_positive_double();
  } else if (dist == "uniform") {
    // Whole numbers of lookups, min..max inclusive.
    v.expect_keys({"dist", "min", "max"});
    s.kind = PoolingSpec::Kind::uniform;
    const YamlValue lo = v.get("min");
    const YamlValue hi = v.get("max");
    s.min = static_cast<double>(lo.as_nonnegative_int());
    s.max = static_cast<double>(hi.as_positive_int());
    if (s.max < s.min) {
      throw hi.error(fmt::format("max {} is less than min {}", s.max, s.min), "max must be >= min");
    }
  } else if (dist == "normal") {
    v.expect_keys({"dist", "mean", "sigma", "min", "max"});
    s.kind = PoolingSpec::Kind::normal;
    s.mean = v.get("mean").as_positive_double();
    s.sigma = v.get("sigma").as_nonnegative_double();
    parse_clip_bounds(v, s);
  } else if (dist == "lognormal") {
    // `mean` is the mean of the distribution itself, not of its log (pooling.hpp).
    v.expect_keys({"dist", "mean", "sigma", "min", "max"});
    s.kind = PoolingSpec::Kind::lognormal;
    s.mean = v.get("mean").as_positive_double();
    s.sigma = v.get("sigma").as_nonnegative_double();
    parse_clip_bounds(v, s);
  } else {
    v.expect_keys({"dist", "bins"});
    s.kind = PoolingSpec::Kind::histogram;
    const YamlValue bins = v.get("bins");
    bins.expect_sequence();
    if (bins.size() == 0) {
      throw bins.error("the histogram has no bins", "write bins: [[value, weight], ...]");
    }
    double total_weight = 0;
    for (const auto& bin : bins.elements()) {
      if (!bin.is_sequence() || bin.size() != 2) {
        throw bin.error("expected a bin [value, weight]",
                        "e.g. bins: [[1, 0.5], [10, 0.3], [100, 0.2]]");
      }
      const double value = bin.at(0).as_nonnegative_double();
      const double weight = bin.at(1).as_nonnegative_double();
      total_weight += weight;
      s.histogram.emplace_back(value, weight);
    }
    if (!(total_weight > 0)) {
      throw bins.error("the histogram's weights are all 0", "give at least one positive weight");
    }
  }
  return s;
}

std::uint32_t parse_table_dim(const YamlValue& v) {
  const std::uint32_t dim = read_u32(v, true);
  if (dim % 4 != 0) {
    const std::uint32_t down = dim / 4 * 4;
    throw v.error(fmt::format("dim {} is not a multiple of 4", dim),
                  fmt::format("FBGEMM's table-batched embedding kernels need dim % 4 == 0; use "
                              "{}{}",
                              down > 0 ? fmt::format("{} or ", down) : std::string(), down + 4));
  }
  return dim;
}

std::uint64_t parse_table_rows(const YamlValue& v) {
  const std::uint64_t rows = v.as_positive_int();
  if (rows > kMaxTableRows) {
    throw v.error(fmt::format("{} rows is more than the limit of 10^13", rows),
                  "check for extra zeros; the largest production tables hold billions of rows");
  }
  return rows;
}

std::vector<double> parse_heavy_hitters(const YamlValue& v, std::uint64_t rows) {
  std::vector<double> out;
  if (v.is_null()) return out;
  v.expect_sequence();
  if (v.size() > rows) {
    throw v.error(fmt::format("{} heavy hitters but the table has only {} rows", v.size(), rows),
                  "give at most one probability per row");
  }
  double sum = 0;
  for (const auto& e : v.elements()) {
    const double p = e.as_double();
    if (!(p > 0 && p < 1)) {
      throw e.error(fmt::format("heavy-hitter probability {} is not in (0, 1)", p),
                    "each entry is the probability that one lookup hits that row");
    }
    if (!out.empty() && p > out.back()) {
      throw e.error(
          fmt::format("heavy hitters must be non-increasing: {} follows {}", p, out.back()),
          "list the hottest row first");
    }
    sum += p;
    out.push_back(p);
  }
  if (!(sum < 1)) {
    throw v.error(fmt::format("heavy-hitter probabilities sum to {} (must be < 1)", sum),
                  "the remaining rows need some probability too");
  }
  return out;
}

EmbeddingTable parse_table(const YamlValue& v, std::size_t index) {
  v.expect_map();
  v.expect_keys(
      {"name", "rows", "dim", "pooling", "alpha", "q", "heavy_hitters", "prune_fraction"});
  EmbeddingTable t;
  t.name = fmt::format("t{}", index);
  if (auto name = v.find("name")) {
    t.name = name->as_string();
    if (t.name.empty()) throw name->error("the table name is empty", "omit name: to get t<index>");
  }
  t.rows = parse_table_rows(v.get("rows"));
  t.dim = parse_table_dim(v.get("dim"));
  t.pooling = parse_pooling(v.get("pooling"));
  if (auto a = v.find("alpha")) t.alpha = a->as_nonnegative_double();
  if (auto q = v.find("q")) t.q = q->as_nonnegative_double();
  if (auto hh = v.find("heavy_hitters")) t.heavy_hitters = parse_heavy_hitters(*hh, t.rows);
  // The fraction only: load_model prunes once every table is read (model.prune_fraction is the
  // default of tables that do not give their own).
  if (auto pf = v.find("prune_fraction")) t.pruning.fraction = parse_prune_fraction(*pf);
  return t;
}

namespace {

// `tables:` and `generate:`: the listed tables, then the drawn ones, every name claimed once.
void read_model_tables(const YamlValue& model, std::uint64_t default_seed, DlrmModel& m) {
  std::map<std::string, NameSite> names;
  const auto claim = [&](const std::string& name, const SourceLocation& where,
                         const std::string& path) {
    auto [it, inserted] = names.emplace(name, NameSite{where, path});
    if (!inserted) {
      throw InputError(where, path, fmt::format("duplicate table name '{}'", name),
                       fmt::format("'{}' is also the name of {} ({}); table names must be unique",
                                   name, it->second.path, it->second.where.to_string()));
    }
  };

  const auto tables = model.find("tables");
  if (tables && !tables->is_null()) {
    tables->expect_sequence();
    for (std::size_t i = 0; i < tables->size(); ++i) {
      const YamlValue tv = tables->at(i);
      m.tables.push_back(parse_table(tv, i));
      check_with_model(m.tables.back(), tv, "");
      const auto name = tv.find("name");
      claim(m.tables.back().name, name ? name->location() : tv.location(),
            name ? name->path() : tv.path());
    }
  }
  const auto generate = model.find("generate");
  if (generate && !generate->is_null()) {
    std::vector<EmbeddingTable> drawn = generate_tables(*generate, default_seed);
    for (std::size_t i = 0; i < drawn.size(); ++i) {
      check_with_model(drawn[i], *generate, fmt::format("generated table '{}'", drawn[i].name));
      claim(drawn[i].name, generate->location(), generate->path());
      m.tables.push_back(std::move(drawn[i]));
    }
  }
  if (m.tables.empty()) {
    throw(tables ? *tables : model)
        .error("the model has no embedding tables",
               "list tables under model.tables, or draw them with model.generate");
  }
}

// Frequency pruning (AdaEmbed what-if, docs/model.md "Pruning"), the one place it happens:
// every later stage sees the pruned tables. A table's own prune_fraction wins over the model's.
void prune_model_tables(const YamlValue& model, DlrmModel& m) {
  const auto tables = model.find("tables");
  const std::size_t listed = tables && !tables->is_null() ? tables->size() : 0;
  double model_fraction = 0;
  if (auto pf = model.find("prune_fraction")) model_fraction = parse_prune_fraction(*pf);
  m.prune_fraction = model_fraction;
  for (std::size_t i = 0; i < m.tables.size(); ++i) {
    EmbeddingTable& t = m.tables[i];
    const bool own = i < listed && tables->at(i).find("prune_fraction").has_value();
    const double f = own ? t.pruning.fraction : model_fraction;
    t.pruning.fraction = 0;
    if (f > 0) t = prune_coldest_rows(t, f);
  }
}

// `dense_arch:`: an opaque dense arch (DHEN layers, transformer blocks): forward FLOPs per sample
// and parameters (docs/scenario.md).
void read_dense_arch(const YamlValue& model, DlrmModel& m) {
  if (auto a = model.find("dense_arch"); a && !a->is_null()) {
    a->expect_map();
    a->expect_keys({"flops_per_sample", "parameters"});
    const YamlValue f = a->get("flops_per_sample");
    m.dense_arch.flops_per_sample = f.as_nonnegative_double();
    if (m.dense_arch.flops_per_sample > 1e15) {
      throw f.error("expected at most 1e15 FLOPs per sample",
                    "a dense arch of a few GFLOPs per sample is already large");
    }
    if (auto p = a->find("parameters")) {
      m.dense_arch.parameters = p->as_nonnegative_int();
      if (m.dense_arch.parameters > 1000000000000ULL) {
        throw p->error("expected at most 1e12 parameters");
      }
    }
  }
}

// `precision:`: the tables', the embedding traffic's (each direction), the MLP's and the
// dense gradients' precisions (defaults: fp32, fp32, tf32, fp32).
void read_model_precision(const YamlValue& model, DlrmModel& m) {
  m.table_precision = Precision::fp32;
  m.comm_precision = Precision::fp32;
  m.comm_bwd_precision = Precision::fp32;
  m.mlp_precision = Precision::tf32;
  m.dense_grad_precision = Precision::fp32;
  if (auto p = model.find("precision"); p && !p->is_null()) {
    p->expect_map();
    p->expect_keys({"tables", "comms", "mlp", "dense_grads"});
    if (auto t = p->find("tables")) m.table_precision = parse_precision(*t, PrecisionUse::tables);
    if (auto c = p->find("comms")) {
      // One format for both directions, or {fwd: ..., bwd: ...} (Neo §8.4).
      if (c->is_map()) {
        c->expect_keys({"fwd", "bwd"});
        if (auto f = c->find("fwd")) m.comm_precision = parse_precision(*f, PrecisionUse::comms);
        if (auto b = c->find("bwd")) {
          m.comm_bwd_precision = parse_precision(*b, PrecisionUse::comms);
        }
      } else {
        m.comm_precision = m.comm_bwd_precision = parse_precision(*c, PrecisionUse::comms);
      }
    }
    if (auto x = p->find("mlp")) m.mlp_precision = parse_precision(*x, PrecisionUse::mlp);
    if (auto g = p->find("dense_grads")) {
      m.dense_grad_precision = parse_precision(*g, PrecisionUse::dense_grads);
    }
  }
}

// `dense_optimizer:` (default adam) and `optimizer:`, the tables' (default rowwise_adagrad).
void read_model_optimizers(const YamlValue& model, DlrmModel& m) {
  m.dense_optimizer = DenseOptimizerKind::adam;
  if (auto o = model.find("dense_optimizer")) {
    const std::string k = o->as_choice({"adam", "adagrad", "momentum", "sgd"});
    m.dense_optimizer = k == "adagrad"    ? DenseOptimizerKind::adagrad
                        : k == "momentum" ? DenseOptimizerKind::momentum
                        : k == "sgd"      ? DenseOptimizerKind::sgd
                                          : DenseOptimizerKind::adam;
  }
  m.optimizer = OptimizerKind::rowwise_adagrad;
  if (auto o = model.find("optimizer")) {
    const std::string k =
        o->as_choice({"rowwise_adagrad", "adagrad", "sgd", "adam", "partial_rowwise_adam"});
    m.optimizer = k == "adagrad"                ? OptimizerKind::adagrad
                  : k == "sgd"                  ? OptimizerKind::sgd
                  : k == "adam"                 ? OptimizerKind::adam
                  : k == "partial_rowwise_adam" ? OptimizerKind::partial_rowwise_adam
                                                : OptimizerKind::rowwise_adagrad;
  }
}

}  // namespace

DlrmModel load_model(const YamlValue& model, std::uint64_t default_seed) {
  model.expect_map();
  model.expect_keys({"tables", "generate", "dense_features", "bottom_mlp", "top_mlp", "interaction",
                     "dense_arch", "precision", "optimizer", "dense_optimizer", "prune_fraction"});
  DlrmModel m;
  read_model_tables(model, default_seed, m);
  prune_model_tables(model, m);

  m.dense_features = 13;
  if (auto d = model.find("dense_features")) m.dense_features = read_u32(*d, false);
  m.bottom_mlp = parse_mlp(model.get("bottom_mlp"));
  const YamlValue top = model.get("top_mlp");
  m.top_mlp = parse_mlp(top);
  if (m.top_mlp.back() != 1) {
    log_warn(
        "{}: {}: the top MLP's last layer has width {}; a click-through model normally "
        "ends in 1",
        top.location().to_string(), top.path(), m.top_mlp.back());
  }

  if (auto i = model.find("interaction")) {
    m.interaction = i->as_choice({"dot", "concat"}) == "concat" ? InteractionKind::concat
                                                                : InteractionKind::dot;
  }
  read_dense_arch(model, m);
  read_model_precision(model, m);
  read_model_optimizers(model, m);
  return m;
}

}  // namespace shardsim
