#pragma once
// io-private. The report object of the JSON writer, for the reader's in-memory summaries.
#include <nlohmann/json.hpp>

#include "shardsim/metrics/report.hpp"

namespace shardsim {

// The report as its JSON object, in the schema's key order. Without matrices, "comm_bytes" is
// null (a placeholder keeping the key order).
nlohmann::ordered_json report_json_object(const Report& r, bool with_matrices);

}  // namespace shardsim
