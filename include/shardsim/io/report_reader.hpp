#pragma once
// Reading reports back for `shardsim compare` (docs/regression.md): a report JSON file (one
// report object, or {"reports": [...]}) or a directory of them, into the ReportSummary values
// the comparison needs. Extra keys are ignored, so reports of later versions still read; a key
// that is present with the wrong type is an error.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "shardsim/metrics/compare_metrics.hpp"
#include "shardsim/metrics/report.hpp"

namespace shardsim {

// The summary of a report in memory; the same numbers as summarize_report_json gives for its
// JSON (docs/report.md: a value that does not exist, e.g. QPS of a plan that does not fit, is
// absent).
ReportSummary summarize_report(const Report& report, std::string origin);

// The summary of one report object. `file` and `path` (e.g. "reports[2]", or "" for the whole
// document) name it in messages and in ReportSummary::origin. A missing `scenario` or `planner`
// or a key of the wrong type is an InputError naming file and key.
ReportSummary summarize_report_json(const nlohmann::json& report, const std::string& file,
                                    const std::string& path);

// Every report of a report JSON file, in order. An unreadable file, malformed JSON (with line
// and column) or a document that is not a report is an InputError. The communication matrices
// and per-iteration times are skipped while parsing, so large reports stay cheap.
std::vector<ReportSummary> read_report_file(const std::string& path);

// A file, or every `*.json` file directly inside a directory (in name order; none is an
// InputError).
std::vector<ReportSummary> read_reports(const std::string& path);

}  // namespace shardsim
