#pragma once
// Writers for reports: text (for people), JSON (DESIGN.md §3 contract), CSV, and the files of
// `--out DIR`. Each takes the reports of one run: one per planner or sweep point, in order.
// Every field, column and rounding rule is defined in docs/report.md.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "shardsim/io/trust_figures.hpp"
#include "shardsim/metrics/best_report.hpp"
#include "shardsim/metrics/report.hpp"

namespace shardsim {

// A report that did not fit in memory was never simulated: its timing fields are null.
nlohmann::ordered_json report_to_json(const Report& r);
// One report: the report object; several (or none): {"reports": [ ... ]}.
nlohmann::ordered_json reports_to_json(std::span<const Report> reports);

void write_text(std::ostream& out, std::span<const Report> reports);
// What the brief says beyond the reports: which one it marks best (nullopt: default_best_by)
// and the validation its trust line quotes (nullopt: the build's, builtin_trust_figures()).
struct BriefOptions {
  std::optional<BestBy> best_by;
  std::optional<TrustFigures> trust;
};
void write_text(std::ostream& out, std::span<const Report> reports, const BriefOptions& brief);
// The JSON of reports_to_json(reports), printed with indent 2 but with arrays of plain values
// (a matrix row, per-GPU memory) on one line, and the communication matrices streamed from the
// reports rather than built as JSON values, so 4096 GPUs stay fast and small.
void write_json(std::ostream& out, std::span<const Report> reports);
// The same, with the keys of extra_fields[i] appended to report i's object (write_output_dir
// names each report's matrix files this way). extra_fields is empty or one object per report.
void write_json(std::ostream& out, std::span<const Report> reports,
                std::span<const nlohmann::ordered_json> extra_fields);
// One summary row per report (planner / sweep point), with a header.
void write_csv_summary(std::ostream& out, std::span<const Report> reports);
// One row per GPU per report.
void write_per_gpu_csv(std::ostream& out, std::span<const Report> reports);
// The GPU x GPU matrix of one report (bytes per iteration), with GPU ids as header.
void write_comm_matrix_csv(std::ostream& out, const ByteMatrix& m);

// Writes report.json, summary.csv, per_gpu.csv, comm_matrix_fwd.csv, comm_matrix_bwd.csv (with
// several reports: comm_matrix_fwd.<i>.csv ..., i the 0-based index in `reports`) under `dir`,
// creating it. Each file is written to a temporary name then renamed. An existing file is an
// InputError (key "--out") unless `force`; that check comes before anything is written.
void write_output_dir(const std::string& dir, std::span<const Report> reports, bool force);

// The names write_output_dir writes for `report_count` reports, in the order it writes them.
std::vector<std::string> output_file_names(std::size_t report_count);

}  // namespace shardsim
