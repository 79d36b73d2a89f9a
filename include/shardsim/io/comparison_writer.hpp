#pragma once
// Writers for the result of `shardsim compare` (docs/regression.md, "Output"): a text table per
// pair for people, JSON and CSV for scripts.
#include <nlohmann/json.hpp>
#include <ostream>

#include "shardsim/metrics/report_compare.hpp"

namespace shardsim {

// Per pair: a header line with its status, then (when compared) a table of metric, baseline,
// candidate, change, tolerance, verdict; then a summary naming every regression.
void write_comparison_text(std::ostream& out, const Comparison& comparison);

nlohmann::ordered_json comparison_to_json(const Comparison& comparison);
// comparison_to_json, indented by 2, with a final newline.
void write_comparison_json(std::ostream& out, const Comparison& comparison);

// One row per metric of each compared pair, one row per pair that was not compared.
void write_comparison_csv(std::ostream& out, const Comparison& comparison);

}  // namespace shardsim
