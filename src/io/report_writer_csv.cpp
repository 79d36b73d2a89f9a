// CSV writers: one summary row per report, one row per GPU (their columns: the report schema,
// metrics/report_schema.hpp), and the GPU x GPU byte matrices. Columns and units:
// docs/report-fields.md. Numbers print as the shortest text that reads back
// to the same double; a value that does not exist (a plan that did not fit was never timed) is
// an empty field.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <ostream>
#include <string_view>

#include "io/report_values.hpp"
#include "shardsim/io/report_format.hpp"
#include "shardsim/io/report_writer.hpp"
#include "shardsim/metrics/report_schema.hpp"

namespace shardsim {

namespace {

namespace rf = report_format;

// Joins already-formatted fields into one CSV line.
void write_line(std::ostream& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out << ',';
    out << fields[i];
  }
  out << '\n';
}

// Whether summary column of row `f` is in this run's CSV.
bool has_column(const ReportField& f, std::span<const Report> reports) {
  if (f.csv == CsvColumn::none) return false;
  if (f.csv == CsvColumn::always || !f.present) return true;
  return std::any_of(reports.begin(), reports.end(), [&](const Report& r) { return f.present(r); });
}

}  // namespace

// One column per schema row with a CSV column (a structured row: the columns it expands into),
// in the schema's order.
void write_csv_summary(std::ostream& out, std::span<const Report> reports) {
  std::vector<std::string> header;
  for (const ReportField& f : report_fields()) {
    if (f.csv_names) {
      for (std::string& name : f.csv_names()) header.push_back(std::move(name));
    } else if (has_column(f, reports)) {
      header.emplace_back(f.csv_name);
    }
  }
  write_line(out, header);
  for (const Report& r : reports) {
    std::vector<std::string> cells;
    for (const ReportField& f : report_fields()) {
      if (f.csv_values) {
        for (const FieldValue& v : f.csv_values(r)) cells.push_back(field_csv(v));
      } else if (has_column(f, reports)) {
        const bool here = !f.present || f.present(r);
        cells.push_back(here ? field_csv(field_value(r, f)) : std::string());
      }
    }
    write_line(out, cells);
  }
}

void write_per_gpu_csv(std::ostream& out, std::span<const Report> reports) {
  std::vector<std::string> header{"planner", "sweep_point"};
  for (const GpuField& f : gpu_fields()) {
    if (!f.csv_name.empty()) header.emplace_back(f.csv_name);
  }
  write_line(out, header);
  std::vector<std::string> cells;
  for (const Report& r : reports) {
    for (const GpuReport& g : r.per_gpu) {
      cells = {rf::csv_field(r.planner), rf::csv_field(r.sweep_point)};
      for (const GpuField& f : gpu_fields()) {
        if (!f.csv_name.empty()) cells.push_back(field_csv(gpu_field_value(r, g, f)));
      }
      write_line(out, cells);
    }
  }
}

void write_comm_matrix_csv(std::ostream& out, const ByteMatrix& m) {
  // Formatted row by row into one buffer: a 4096-GPU matrix has 16.7 M cells.
  fmt::memory_buffer line;
  line.append(std::string_view("src\\dst"));
  for (int j = 0; j < m.size(); ++j) fmt::format_to(std::back_inserter(line), ",{}", j);
  line.push_back('\n');
  out.write(line.data(), static_cast<std::streamsize>(line.size()));
  for (int i = 0; i < m.size(); ++i) {
    line.clear();
    fmt::format_to(std::back_inserter(line), "{}", i);
    for (int j = 0; j < m.size(); ++j) {
      line.push_back(',');
      const double v = m.at(i, j);
      if (std::isfinite(v)) fmt::format_to(std::back_inserter(line), "{}", v);  // as csv_number
    }
    line.push_back('\n');
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
  }
}

}  // namespace shardsim
