// The report schema (metrics/report_schema.hpp) against every writer, the reader and the point
// checkpoint: a row that one of them leaves out fails here.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "io/report_writer_test_fixtures.hpp"
#include "shardsim/io/point_checkpoint.hpp"
#include "shardsim/io/report_json_schema.hpp"
#include "shardsim/io/report_reader.hpp"
#include "shardsim/io/report_writer.hpp"
#include "shardsim/metrics/report_schema.hpp"

namespace shardsim {
namespace {

using Json = nlohmann::ordered_json;

bool has_value(const FieldValue& v) {
  return !std::holds_alternative<std::monostate>(v);
}

// The JSON value at a schema path, or nullptr.
const Json* at(const Json& j, std::string_view path) {
  const std::size_t dot = path.find('.');
  const std::string top(path.substr(0, dot));
  if (!j.contains(top)) return nullptr;
  const Json& v = j.at(top);
  if (dot == std::string_view::npos) return &v;
  const std::string key(path.substr(dot + 1));
  if (!v.is_object() || !v.contains(key)) return nullptr;
  return &v.at(key);
}

std::vector<std::string> csv_header(const std::string& csv) {
  std::vector<std::string> names;
  std::istringstream line(csv.substr(0, csv.find('\n')));
  for (std::string cell; std::getline(line, cell, ',');) names.push_back(cell);
  return names;
}

// The full fixture exercises every row: each scalar row has a value that differs from a default
// Report's, so a field a writer, the reader or the checkpoint drops shows as a difference.
TEST(ReportSchema, TheFullFixtureGivesEveryRowAValueOfItsOwn) {
  const Report full = test::make_full_report();
  const Report blank;
  for (const ReportField& f : report_fields()) {
    if (!f.value) continue;
    if (f.path == "schema_version" || f.path == "shardsim_version") continue;  // constants
    if (f.path == "fit_error") continue;  // a report that fits has none: make_unfit_report's
    SCOPED_TRACE(std::string(f.path));
    if (f.present) {
      EXPECT_TRUE(f.present(full));
    }
    const FieldValue v = f.value(full);
    EXPECT_TRUE(has_value(v));
    if (f.type != FieldType::boolean && (!f.present || f.present(blank))) {
      EXPECT_NE(v, f.value(blank));
    }
  }
  for (const GpuField& f : gpu_fields()) {
    if (!f.value) continue;
    SCOPED_TRACE(std::string(f.path));
    EXPECT_NE(f.value(full.per_gpu.at(3)), f.value(GpuReport{}));
  }
}

TEST(ReportSchema, EveryRowIsInTheJsonWithItsType) {
  const Json j = report_to_json(test::make_full_report());
  for (const ReportField& f : report_fields()) {
    if (f.path.front() == '#') continue;
    SCOPED_TRACE(std::string(f.path));
    const Json* v = at(j, f.path);
    ASSERT_NE(v, nullptr);
    if (v->is_null()) continue;
    switch (f.type) {
      case FieldType::string:
        EXPECT_TRUE(v->is_string());
        break;
      case FieldType::integer:
        EXPECT_TRUE(v->is_number_integer());
        break;
      case FieldType::number:
        EXPECT_TRUE(v->is_number());
        break;
      case FieldType::boolean:
        EXPECT_TRUE(v->is_boolean());
        break;
      case FieldType::object:
        EXPECT_TRUE(v->is_object());
        break;
      case FieldType::array:
        EXPECT_TRUE(v->is_array());
        break;
    }
  }
  // And nothing in the JSON that the schema does not list.
  for (auto it = j.begin(); it != j.end(); ++it) {
    EXPECT_NE(find_report_field(it.key()), nullptr) << it.key();
  }
  const Json& gpu = j.at("per_gpu").at(0);
  for (const GpuField& f : gpu_fields()) {
    SCOPED_TRACE(std::string(f.path));
    EXPECT_NE(at(gpu, f.path), nullptr);
  }
  EXPECT_EQ(j.at("schema_version"), std::string(kReportSchemaVersion));
}

TEST(ReportSchema, EveryCsvRowHasItsColumn) {
  const Report full = test::make_full_report();
  std::ostringstream summary, per_gpu;
  write_csv_summary(summary, std::span<const Report>(&full, 1));
  write_per_gpu_csv(per_gpu, std::span<const Report>(&full, 1));
  const std::vector<std::string> header = csv_header(summary.str());
  const std::set<std::string> columns(header.begin(), header.end());
  EXPECT_EQ(columns.size(), header.size()) << "a column name twice";
  for (const ReportField& f : report_fields()) {
    if (f.csv == CsvColumn::none) continue;
    EXPECT_TRUE(columns.count(std::string(f.csv_name))) << f.csv_name;
  }
  const std::vector<std::string> gpu_header = csv_header(per_gpu.str());
  for (const GpuField& f : gpu_fields()) {
    if (f.csv_name.empty()) continue;
    EXPECT_NE(std::find(gpu_header.begin(), gpu_header.end(), f.csv_name), gpu_header.end())
        << f.csv_name;
  }
}

// Every comparison metric is read, from memory and from the JSON, as the same number.
TEST(ReportSchema, EveryMetricReadsTheSameFromMemoryAndFromTheFile) {
  const Report full = test::make_full_report();
  const ReportSummary mem = summarize_report(full, "memory");
  const nlohmann::json j = report_to_json(full);
  const ReportSummary file = summarize_report_json(j, "report.json", "");
  ASSERT_EQ(comparison_metrics().size(), kMetricCount);
  for (const MetricInfo& m : comparison_metrics()) {
    SCOPED_TRACE(std::string(m.name));
    ASSERT_TRUE(mem.value(m.id).has_value());
    EXPECT_EQ(mem.value(m.id), file.value(m.id));
  }
  EXPECT_EQ(mem.setup, file.setup);
  std::size_t setup_rows = 0;
  for (const ReportField& f : report_fields()) setup_rows += f.setup ? 1 : 0;
  EXPECT_EQ(mem.setup.size(), setup_rows);
}

// Every row survives a point checkpoint: the JSON of the decoded report is the original's.
TEST(ReportSchema, EveryRowSurvivesThePointCheckpoint) {
  const Report full = test::make_full_report();
  const InputHashes hashes{"fnv1a64:aaaa", "fnv1a64:bbbb", "fnv1a64:cccc"};
  const std::string bytes = encode_point_checkpoint(hashes, "p", std::span<const Report>(&full, 1));
  std::string why;
  const auto decoded = decode_point_checkpoint(bytes, hashes, "p", why);
  ASSERT_TRUE(decoded) << why;
  ASSERT_EQ(decoded->size(), 1u);
  EXPECT_EQ(report_to_json(decoded->front()).dump(), report_to_json(full).dump());
}

TEST(ReportSchema, MetricNamesAndCsvNamesAreUnique) {
  std::set<std::string_view> paths, csv, metrics;
  for (const ReportField& f : report_fields()) {
    EXPECT_TRUE(paths.insert(f.path).second) << f.path;
    if (f.csv != CsvColumn::none) {
      EXPECT_TRUE(csv.insert(f.csv_name).second) << f.csv_name;
    }
    if (f.compare) {
      EXPECT_TRUE(metrics.insert(f.compare->name).second) << f.compare->name;
    }
    // A child row's parent is an object row listed before it.
    const std::size_t dot = f.path.find('.');
    if (dot != std::string_view::npos) {
      const ReportField* parent = find_report_field(f.path.substr(0, dot));
      ASSERT_NE(parent, nullptr) << f.path;
      EXPECT_EQ(parent->type, FieldType::object) << f.path;
      EXPECT_LT(parent, &f) << f.path;
    }
  }
}

TEST(ReportSchema, TheJsonSchemaListsEveryRow) {
  const Json s = report_json_schema();
  const Json& props = s.at("$defs").at("report").at("properties");
  for (const ReportField& f : report_fields()) {
    if (f.path.front() == '#') continue;
    const std::size_t dot = f.path.find('.');
    if (dot == std::string_view::npos) {
      EXPECT_TRUE(props.contains(std::string(f.path))) << f.path;
    } else {
      EXPECT_TRUE(props.at(std::string(f.path.substr(0, dot)))
                      .at("properties")
                      .contains(std::string(f.path.substr(dot + 1))))
          << f.path;
    }
  }
  const std::string md = report_fields_markdown();
  for (const ReportField& f : report_fields()) {
    const std::string_view shown = f.path.front() == '#' ? f.path.substr(1) : f.path;
    EXPECT_NE(md.find(std::string(shown)), std::string::npos) << f.path;
  }
}

}  // namespace
}  // namespace shardsim
