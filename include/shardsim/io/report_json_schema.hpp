#pragma once
// The report schema (metrics/report_schema.hpp) as a JSON Schema (draft 2020-12) that every
// report JSON validates against, and as the markdown field reference (docs/report-fields.md).
// `shardsim schema report [--format json|markdown]` prints them.
#include <nlohmann/json.hpp>
#include <string>

namespace shardsim {

// Accepts one report object or {"reports": [...]}.
nlohmann::ordered_json report_json_schema();

// One table per section: field, type, unit, when it exists, meaning.
std::string report_fields_markdown();

}  // namespace shardsim
