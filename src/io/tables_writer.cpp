#include "shardsim/io/tables_writer.hpp"

#include <fmt/format.h>

#include <sstream>
#include <stdexcept>

#include "shardsim/trace/table_pruning.hpp"

namespace shardsim {

namespace {

// Shortest text that reads back (std::from_chars, as the scenario reader does) to `v` exactly.
std::string number(double v) {
  return fmt::format("{}", v);
}

// A double-quoted string: JSON's escapes are valid in YAML's double-quoted scalars, so a name
// with ':' or '#' or leading spaces reads back as written (bytes that are not UTF-8 become
// U+FFFD rather than an error).
std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The pooling as `model.tables[].pooling` reads it (io/model_loader.cpp, parse_pooling).
std::string pooling_yaml(const PoolingSpec& p) {
  if (p.keep != 1) {
    // The loader never produces thinned pooling outside pruning, which unpruned_table undoes.
    throw std::logic_error("a thinned pooling (keep != 1) has no scenario form");
  }
  using Kind = PoolingSpec::Kind;
  switch (p.kind) {
    case Kind::fixed:
      return number(p.value);
    case Kind::uniform:
      return fmt::format("{{dist: uniform, min: {}, max: {}}}", number(p.min), number(p.max));
    case Kind::normal:
    case Kind::lognormal: {
      std::string s = fmt::format("{{dist: {}, mean: {}, sigma: {}, min: {}",
                                  p.kind == Kind::normal ? "normal" : "lognormal", number(p.mean),
                                  number(p.sigma), number(p.min));
      if (p.max > 0) s += fmt::format(", max: {}", number(p.max));  // 0: no upper clip
      return s + "}";
    }
    case Kind::histogram: {
      std::string s = "{dist: histogram, bins: [";
      for (std::size_t i = 0; i < p.histogram.size(); ++i) {
        s += fmt::format("{}[{}, {}]", i ? ", " : "", number(p.histogram[i].first),
                         number(p.histogram[i].second));
      }
      return s + "]}";
    }
  }
  throw std::logic_error("unknown pooling kind");
}

nlohmann::ordered_json pooling_json(const PoolingSpec& p) {
  if (p.keep != 1) throw std::logic_error("a thinned pooling (keep != 1) has no scenario form");
  using Kind = PoolingSpec::Kind;
  if (p.kind == Kind::fixed) return p.value;
  nlohmann::ordered_json j;
  if (p.kind == Kind::uniform) {
    j["dist"] = "uniform";
    j["min"] = p.min;
    j["max"] = p.max;
  } else if (p.kind == Kind::histogram) {
    j["dist"] = "histogram";
    j["bins"] = nlohmann::ordered_json::array();
    for (const auto& [value, weight] : p.histogram) j["bins"].push_back({value, weight});
  } else {
    j["dist"] = p.kind == Kind::normal ? "normal" : "lognormal";
    j["mean"] = p.mean;
    j["sigma"] = p.sigma;
    j["min"] = p.min;
    if (p.max > 0) j["max"] = p.max;
  }
  return j;
}

}  // namespace

namespace {

// When any table is pruned, or the model prunes by default, every table gets its own
// prune_fraction, 0 included, so that the list means the same under any `model.prune_fraction`
// (a table's own value wins over the model's).
bool write_fractions(std::span<const EmbeddingTable> tables, double model_prune_fraction) {
  if (model_prune_fraction > 0) return true;
  for (const EmbeddingTable& t : tables) {
    if (t.pruning.fraction > 0) return true;
  }
  return false;
}

}  // namespace

std::string tables_yaml(std::span<const EmbeddingTable> tables, double model_prune_fraction,
                        std::string_view header) {
  const bool pruning = write_fractions(tables, model_prune_fraction);
  std::ostringstream out;
  std::istringstream lines{std::string(header)};
  for (std::string line; std::getline(lines, line);) {
    out << (line.empty() ? "#" : "# " + line) << '\n';
  }
  out << "tables:\n";
  for (const EmbeddingTable& written : tables) {
    const EmbeddingTable t = unpruned_table(written);
    out << fmt::format("  - {{name: {}, rows: {}, dim: {}, pooling: {}", quoted(t.name), t.rows,
                       t.dim, pooling_yaml(t.pooling));
    if (t.alpha != 1.0) out << ", alpha: " << number(t.alpha);
    if (t.q != 0.0) out << ", q: " << number(t.q);
    if (!t.heavy_hitters.empty()) {
      out << ", heavy_hitters: [";
      for (std::size_t i = 0; i < t.heavy_hitters.size(); ++i) {
        out << (i ? ", " : "") << number(t.heavy_hitters[i]);
      }
      out << "]";
    }
    if (pruning) out << ", prune_fraction: " << number(t.pruning.fraction);
    out << "}\n";
  }
  return out.str();
}

nlohmann::ordered_json tables_json(std::span<const EmbeddingTable> tables,
                                   double model_prune_fraction) {
  const bool pruning = write_fractions(tables, model_prune_fraction);
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const EmbeddingTable& written : tables) {
    const EmbeddingTable t = unpruned_table(written);
    nlohmann::ordered_json j;
    j["name"] = t.name;
    j["rows"] = t.rows;
    j["dim"] = t.dim;
    j["pooling"] = pooling_json(t.pooling);
    if (t.alpha != 1.0) j["alpha"] = t.alpha;
    if (t.q != 0.0) j["q"] = t.q;
    if (!t.heavy_hitters.empty()) j["heavy_hitters"] = t.heavy_hitters;
    if (pruning) j["prune_fraction"] = t.pruning.fraction;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace shardsim
