#pragma once
// Writers of the model summary (plan/model_summary.hpp) that `shardsim validate` and
// `shardsim plan` print: a text section under the heading "model" and a JSON object. Every line
// and field: docs/report.md, "Model summary".
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string_view>

#include "shardsim/plan/model_summary.hpp"

namespace shardsim {

// The section under `heading`, each line prefixed by `line_prefix` ("# " makes it YAML comments
// after a plan printed on stdout). `shardsim_ram_bytes`, when given, is the resource guard's
// estimate of the host memory shardsim itself needs for the command (run/resource_estimate.hpp),
// labelled so.
void write_model_summary_text(std::ostream& out, const ModelSummary& summary,
                              std::optional<double> shardsim_ram_bytes,
                              std::string_view heading = "model",
                              std::string_view line_prefix = "");

nlohmann::ordered_json model_summary_to_json(const ModelSummary& summary,
                                             std::optional<double> shardsim_ram_bytes);

}  // namespace shardsim
