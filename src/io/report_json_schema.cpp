// The report schema as a JSON Schema and as markdown (io/report_json_schema.hpp).
#include "shardsim/io/report_json_schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "shardsim/metrics/report_schema.hpp"

namespace shardsim {

namespace {

using OrderedJson = nlohmann::ordered_json;

const char* schema_type_name(FieldType t) {
  switch (t) {
    case FieldType::string:
      return "string";
    case FieldType::integer:
      return "integer";
    case FieldType::number:
      return "number";
    case FieldType::boolean:
      return "boolean";
    case FieldType::object:
      return "object";
    case FieldType::array:
      return "array";
  }
  return "null";
}

const char* needs_text(FieldNeeds n) {
  switch (n) {
    case FieldNeeds::always:
      return "always";
    case FieldNeeds::plan:
      return "with a plan";
    case FieldNeeds::timing:
      return "when simulated";
  }
  return "";
}

// {"type": T} or {"type": [T, "null"]}, with the description and the unit as annotations.
OrderedJson scalar_schema(FieldType type, bool nullable, std::string_view description,
                          std::string_view unit) {
  OrderedJson s;
  if (nullable) {
    s["type"] = OrderedJson::array({schema_type_name(type), "null"});
  } else {
    s["type"] = schema_type_name(type);
  }
  s["description"] = std::string(description);
  if (!unit.empty()) s["x-unit"] = std::string(unit);
  return s;
}

OrderedJson parse_fragment(std::string_view path, std::string_view text) {
  try {
    return OrderedJson::parse(text);
  } catch (const OrderedJson::parse_error& e) {
    throw std::logic_error(
        fmt::format("report schema: field '{}': bad JSON Schema: {}", path, e.what()));
  }
}

OrderedJson field_schema(const ReportField& f) {
  const bool nullable = f.nullable || f.needs != FieldNeeds::always;
  if (!f.json_schema.empty()) {
    OrderedJson s = parse_fragment(f.path, f.json_schema);
    if (!s.contains("description")) s["description"] = std::string(f.description);
    if (!f.unit.empty()) s["x-unit"] = std::string(f.unit);
    return s;
  }
  if (f.value) return scalar_schema(f.type, nullable, f.description, f.unit);
  // An object of child rows.
  OrderedJson s;
  s["type"] = nullable ? OrderedJson::array({"object", "null"}) : OrderedJson("object");
  s["description"] = std::string(f.description);
  OrderedJson props = OrderedJson::object();
  OrderedJson required = OrderedJson::array();
  for (const ReportField* c : child_fields(f.path)) {
    const std::string key(c->path.substr(f.path.size() + 1));
    props[key] = field_schema(*c);
    if (!c->present) required.push_back(key);
  }
  s["properties"] = std::move(props);
  s["required"] = std::move(required);
  return s;
}

OrderedJson gpu_schema() {
  OrderedJson props = OrderedJson::object();
  OrderedJson required = OrderedJson::array();
  for (const GpuField& f : gpu_fields()) {
    const bool nullable = f.needs != FieldNeeds::always;
    const std::size_t dot = f.path.find('.');
    if (dot != std::string_view::npos) {
      OrderedJson& parent = props[std::string(f.path.substr(0, dot))];
      const std::string key(f.path.substr(dot + 1));
      parent["properties"][key] = scalar_schema(f.type, true, f.description, f.unit);
      parent["required"].push_back(key);
      continue;
    }
    const std::string key(f.path);
    if (f.value) {
      props[key] = scalar_schema(f.type, nullable, f.description, f.unit);
    } else {
      props[key]["type"] =
          nullable ? OrderedJson::array({"object", "null"}) : OrderedJson("object");
      props[key]["description"] = std::string(f.description);
    }
    required.push_back(key);
  }
  OrderedJson s;
  s["type"] = "object";
  s["properties"] = std::move(props);
  s["required"] = std::move(required);
  return s;
}

OrderedJson report_object_schema() {
  OrderedJson props = OrderedJson::object();
  OrderedJson required = OrderedJson::array();
  for (const ReportField& f : report_fields()) {
    if (f.path.front() == '#' || f.path.find('.') != std::string_view::npos) continue;
    const std::string key(f.path);
    props[key] = field_schema(f);
    if (!f.present) required.push_back(key);
  }
  OrderedJson s;
  s["type"] = "object";
  s["properties"] = std::move(props);
  s["required"] = std::move(required);
  return s;
}

}  // namespace

nlohmann::ordered_json report_json_schema() {
  OrderedJson s;
  s["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  s["$id"] = fmt::format("shardsim-report-{}", kReportSchemaVersion);
  s["title"] = "shardsim report";
  s["description"] = fmt::format(
      "A shardsim report (schema {}): one report object, or {{\"reports\": [...]}}. Fields: "
      "docs/report-fields.md.",
      kReportSchemaVersion);
  OrderedJson many;
  many["type"] = "object";
  many["required"] = OrderedJson::array({"reports"});
  many["properties"]["reports"]["type"] = "array";
  many["properties"]["reports"]["items"]["$ref"] = "#/$defs/report";
  OrderedJson one;
  one["$ref"] = "#/$defs/report";
  s["oneOf"] = OrderedJson::array({one, many});
  s["$defs"]["report"] = report_object_schema();
  s["$defs"]["gpu"] = gpu_schema();
  s["$defs"]["spread"] = parse_fragment("balance", R"json({"type": "object",
    "required": ["min", "mean", "max", "max_minus_min", "max_over_mean", "min_gpu", "max_gpu"],
    "properties": {"min": {"type": ["number", "null"]}, "mean": {"type": ["number", "null"]},
      "max": {"type": ["number", "null"]}, "max_minus_min": {"type": ["number", "null"]},
      "max_over_mean": {"type": ["number", "null"]}, "min_gpu": {"type": ["integer", "null"]},
      "max_gpu": {"type": ["integer", "null"]}}})json");
  return s;
}

std::string report_fields_markdown() {
  std::string out = fmt::format(
      "<!-- Generated by `shardsim schema report --format markdown` from the report schema "
      "(src/metrics/report_schema.cpp); do not edit by hand. -->\n"
      "# Report fields (schema {})\n\n"
      "Every field of a report JSON, in the order written. **When** says when a field has a "
      "value: *always*, *with a plan* (null when the planner could place nothing), or *when "
      "simulated* (null when the plan does not fit). Fields marked *optional* are written "
      "only when they apply. CSV: the summary-CSV column. Compare: the `compare` metric the "
      "field feeds, or *set-up* (reports must agree on it to be compared). `shardsim schema "
      "report` prints the JSON Schema.\n",
      kReportSchemaVersion);
  auto row = [&](const ReportField& f) {
    std::string when = needs_text(f.needs);
    if (f.present) when += ", optional";
    std::string csv = f.csv_name.empty() ? std::string() : fmt::format("`{}`", f.csv_name);
    if (f.csv_names) csv = fmt::format("`{}` ...", f.csv_names().front());
    std::string judged = f.compare ? fmt::format("`{}`", f.compare->name) : std::string();
    if (f.setup) judged = "set-up";
    const std::string path = f.path.front() != '#' ? fmt::format("`{}`", f.path)
                             : f.csv != CsvColumn::none
                                 ? fmt::format("(CSV) `{}`", f.path.substr(1))
                                 : fmt::format("(text) `{}`", f.path.substr(1));
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", path, schema_type_name(f.type),
                       f.unit, when, csv, judged, f.description);
  };
  // Sections in the order they first appear; the rows of each in table order.
  std::vector<std::string_view> sections;
  for (const ReportField& f : report_fields()) {
    if (std::find(sections.begin(), sections.end(), f.section) == sections.end()) {
      sections.push_back(f.section);
    }
  }
  for (std::string_view section : sections) {
    out += fmt::format(
        "\n## {}\n\n| field | type | unit | when | CSV | compare | meaning |\n"
        "|---|---|---|---|---|---|---|\n",
        section);
    for (const ReportField& f : report_fields()) {
      if (f.section == section) row(f);
    }
  }
  out +=
      "\n## per_gpu[] (and per_gpu.csv)\n\n| field | type | unit | when | CSV | meaning |\n"
      "|---|---|---|---|---|---|\n";
  for (const GpuField& f : gpu_fields()) {
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", f.path, schema_type_name(f.type),
                       f.unit, needs_text(f.needs),
                       f.csv_name.empty() ? "" : fmt::format("`{}`", f.csv_name), f.description);
  }
  return out;
}

}  // namespace shardsim
