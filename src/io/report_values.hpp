#pragma once
// io-private. A report schema row's value (metrics/report_schema.hpp) as each writer prints it:
// a JSON value, a CSV cell, a text cell.
#include <nlohmann/json.hpp>
#include <string>

#include "shardsim/metrics/report_schema.hpp"

namespace shardsim {

// The row's value for `r`, or monostate when `r` lacks what the row needs (a timing of a plan
// that did not fit, a per-GPU figure without a plan).
FieldValue field_value(const Report& r, const ReportField& f);
FieldValue gpu_field_value(const Report& r, const GpuReport& g, const GpuField& f);

// null for monostate.
nlohmann::ordered_json field_json(const FieldValue& v);
// An empty cell for monostate; numbers as the shortest text that reads back the same.
std::string field_csv(const FieldValue& v);
// "n/a" for monostate ("-" for text fields), else formatted as `format` says.
std::string field_text(const FieldValue& v, TextFormat format);

}  // namespace shardsim
