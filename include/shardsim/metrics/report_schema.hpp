#pragma once
// The report schema: one row per field of a Report, the single table that the JSON, text and CSV
// writers, the report reader, `compare`'s metrics and tolerances, `shardsim schema report` (a
// JSON Schema) and the report reference (docs/report-fields.md) are all driven by. Adding a field
// is one row here plus its computation (docs/architecture.md, "A new report field").
//
// It lives beside Report (metrics/) rather than in io/ because `compare`'s judging code
// (metrics/report_compare) reads its metric rows; io/ interprets the rows (formats, JSON layout).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "shardsim/metrics/compare_metrics.hpp"
#include "shardsim/metrics/report.hpp"

namespace shardsim {

// "MAJOR.MINOR", in every report JSON: MINOR grows when fields are added, MAJOR when one is
// removed, renamed or changes meaning (CHANGELOG.md says which).
inline constexpr std::string_view kReportSchemaVersion = "1.1";

// The JSON type of a field's value (null aside: see FieldNeeds and ReportField::nullable).
enum class FieldType { string, integer, number, boolean, object, array };

// What a field needs to exist: a value for every report, a plan (per-GPU figures), or a plan
// that fit and was simulated (timings). A report without it writes null / an empty cell / "n/a".
enum class FieldNeeds { always, plan, timing };

// How a value is shown in the text report (io/ does the formatting).
enum class TextFormat { none, text, plain, integer, ms, gb, ratio, thousands, percent, yes_no };

// Whether a summary-CSV column exists: never, always, or only when some report of the run has
// the field (the cost columns exist only when a price is given).
enum class CsvColumn { none, always, when_any };

// A scalar value of one report; monostate: the report has none (null in the JSON, an empty CSV
// cell, "n/a" in text).
using FieldValue =
    std::variant<std::monostate, bool, std::int64_t, std::uint64_t, double, std::string>;

// When a row is a comparison metric of `compare`.
struct CompareSpec {
  MetricId id;
  std::string_view name;         // in --tolerance, tolerance files and the comparison table
  std::string_view description;  // for the comparison table and --tolerance help
  Better better;
  MetricUnit unit;
  double default_tolerance;  // relative; 0 for flags
  bool only_when_both;       // compared only when both reports have it
};

struct ReportField {
  // Where the value sits in the report JSON: a top-level key, or "parent.key" inside the object
  // row "parent". Rows that are not in the JSON (csv-only derived columns) start with '#'.
  std::string_view path = {};
  FieldType type = FieldType::string;
  std::string_view unit = {};  // "s", "bytes", "samples/s", "ratio", "count", "" (none)
  std::string_view section = {};
  FieldNeeds needs = FieldNeeds::always;
  std::string_view description = {};
  // The scalar value; nullptr for object and array rows (object rows are made of their
  // children; array and structured rows are written by io/ and described by `json_schema`).
  FieldValue (*value)(const Report&) = nullptr;
  // Whether the key is in the report at all (nullptr: always). A present key whose value is
  // monostate is written as null.
  bool (*present)(const Report&) = nullptr;
  // Null is a value of its own even when `needs` is met (a NaN, "not recorded").
  bool nullable = false;
  // Summary CSV column (its name; CsvColumn::none: no column).
  std::string_view csv_name = {};
  CsvColumn csv = CsvColumn::none;
  // Text comparison table column; TextFormat::none: not shown there. With `text_when_any`, the
  // column is shown only when some report of the run has a value.
  std::string_view text_label = {};
  TextFormat text = TextFormat::none;
  bool text_when_any = false;
  // A set-up field: two reports are comparable only if they agree on it (`compare`). A report
  // without the key reads as `setup_absent` (empty: the field is not compared).
  bool setup = false;
  std::string_view setup_absent = {};
  std::optional<CompareSpec> compare = std::nullopt;
  // JSON Schema of a structured value (object and array rows without children), as JSON text.
  std::string_view json_schema = {};
  // Summary-CSV columns a structured row expands into (the breakdown's phases, the plan's
  // estimates): their names, and one report's values in that order.
  std::vector<std::string> (*csv_names)() = nullptr;
  std::vector<FieldValue> (*csv_values)(const Report&) = nullptr;
};

// One per-GPU field (the JSON's per_gpu[] objects, per_gpu.csv).
struct GpuField {
  std::string_view path = {};  // key in a per_gpu[] object, or "parent.key"
  FieldType type = FieldType::number;
  std::string_view unit = {};
  FieldNeeds needs = FieldNeeds::always;
  std::string_view description = {};
  FieldValue (*value)(const GpuReport&) = nullptr;  // nullptr: an object made of its children
  std::string_view csv_name = {};                   // empty: no per_gpu.csv column
};

// Every field, in JSON key order.
std::span<const ReportField> report_fields();
std::span<const GpuField> gpu_fields();

// The row at `path`; nullptr when there is none.
const ReportField* find_report_field(std::string_view path);

// Whether report `r` has what `needs` asks for.
bool report_meets(const Report& r, FieldNeeds needs);

// The rows directly inside object row `parent` ("iteration_time_s" -> "iteration_time_s.mean",
// ...), in table order.
std::vector<const ReportField*> child_fields(std::string_view parent);

// A finite double, or monostate (NaN and infinities are "no value").
FieldValue finite_value(double v);

}  // namespace shardsim
