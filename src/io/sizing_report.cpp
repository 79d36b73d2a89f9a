// The result of a sizing search (io/sizing_report.hpp).
#include "shardsim/io/sizing_report.hpp"

#include <fmt/format.h>

namespace shardsim {

SizingTarget with_margin(const SizingTarget& target, double margin_pct) {
  const double factor = 1 + margin_pct / 100;
  SizingTarget sized;
  if (target.min_qps) sized.min_qps = *target.min_qps * factor;
  if (target.max_iteration_s) sized.max_iteration_s = *target.max_iteration_s / factor;
  return sized;
}

std::string node_ranges(const std::vector<int>& nodes) {
  std::string out;
  for (std::size_t i = 0; i < nodes.size();) {
    std::size_t j = i;
    while (j + 1 < nodes.size() && nodes[j + 1] == nodes[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += j == i ? std::to_string(nodes[i]) : fmt::format("{}-{}", nodes[i], nodes[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace shardsim
