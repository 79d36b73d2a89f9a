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
nlohmann::ordered_json pooling_json(const PoolingSpec& p) {
  // The loader never produces thinned pooling outside pruning, which unpruned_table undoes.
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
    if (p.max > 0) j["max"] = p.max;  // 0: no upper clip
  }
  return j;
}

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

// One value in YAML's flow style: keys unquoted, floating numbers in their shortest exact form,
// strings as they are (the keywords of `dist`) but a table's name double-quoted, the only free
// text; e.g. {name: "gen0", rows: 20, pooling: {dist: uniform, min: 1, max: 9}}.
void write_flow(std::ostream& out, const nlohmann::ordered_json& v, bool free_text = false) {
  if (v.is_object() || v.is_array()) {
    out << (v.is_object() ? '{' : '[');
    const char* sep = "";
    for (const auto& [key, item] : v.items()) {
      out << sep;
      if (v.is_object()) out << key << ": ";
      write_flow(out, item, v.is_object() && key == "name");
      sep = ", ";
    }
    out << (v.is_object() ? '}' : ']');
  } else if (v.is_string()) {
    out << (free_text ? quoted(v.get<std::string>()) : v.get<std::string>());
  } else if (v.is_number_float()) {
    out << number(v.get<double>());
  } else {
    out << v.dump();  // integers
  }
}

}  // namespace

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

std::string tables_yaml(std::span<const EmbeddingTable> tables, double model_prune_fraction,
                        std::string_view header) {
  std::ostringstream out;
  std::istringstream lines{std::string(header)};
  for (std::string line; std::getline(lines, line);) {
    out << (line.empty() ? "#" : "# " + line) << '\n';
  }
  out << "tables:\n";
  for (const auto& table : tables_json(tables, model_prune_fraction)) {
    out << "  - ";
    write_flow(out, table);
    out << '\n';
  }
  return out.str();
}

}  // namespace shardsim
