// The validation figures the brief and `size` quote (io/trust_figures.hpp).
#include "shardsim/io/trust_figures.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "shardsim/core/embedded_configs.hpp"
#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {

namespace {
constexpr const char* kTrustConfig = "validation/training.yaml";
}  // namespace

TrustFigures parse_trust_figures(const std::string& text, const std::string& source) {
  const YamlValue doc(parse_yaml(text, source), source, "");
  doc.expect_map();
  doc.expect_keys({"kind", "points", "median_abs_error", "worst_ratio", "doc"});
  TrustFigures t;
  t.kind = doc.get("kind").as_string();
  const std::uint64_t points = doc.get("points").as_positive_int();
  if (points > 1000000) throw doc.get("points").error("expected at most 1000000 points");
  t.points = static_cast<int>(points);
  t.median_abs_error = doc.get("median_abs_error").as_nonnegative_double();
  t.worst_ratio = doc.get("worst_ratio").as_positive_double();
  if (t.worst_ratio < 1) {
    throw doc.get("worst_ratio")
        .error("expected a factor of at least 1",
               "max(predicted / measured, measured / predicted)");
  }
  t.doc = doc.get("doc").as_string();
  return t;
}

const TrustFigures& builtin_trust_figures() {
  static const TrustFigures figures = [] {
    const auto text = find_embedded_config(kTrustConfig);
    if (!text) throw std::logic_error("configs/validation/training.yaml is not embedded");
    return parse_trust_figures(std::string(*text), std::string("configs/") + kTrustConfig);
  }();
  return figures;
}

std::string trust_text(const TrustFigures& t) {
  return fmt::format("{}: median error {:.1f}% over {} published points, worst {:.2f}x ({})",
                     t.kind, 100 * t.median_abs_error, t.points, t.worst_ratio, t.doc);
}

}  // namespace shardsim
