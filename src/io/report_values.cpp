// Schema values as JSON, CSV and text (report_values.hpp).
#include "io/report_values.hpp"

#include <fmt/format.h>

#include "shardsim/core/units.hpp"
#include "shardsim/io/report_format.hpp"

namespace shardsim {

namespace rf = report_format;

namespace {

// A number of any of the variant's numeric kinds, as a double.
std::optional<double> field_as_double(const FieldValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* u = std::get_if<std::uint64_t>(&v)) return static_cast<double>(*u);
  return std::nullopt;
}

}  // namespace

FieldValue field_value(const Report& r, const ReportField& f) {
  if (!f.value || !report_meets(r, f.needs)) return {};
  return f.value(r);
}

FieldValue gpu_field_value(const Report& r, const GpuReport& g, const GpuField& f) {
  if (!f.value || !report_meets(r, f.needs)) return {};
  return f.value(g);
}

nlohmann::ordered_json field_json(const FieldValue& v) {
  return std::visit(
      [](const auto& x) -> nlohmann::ordered_json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else {
          return x;
        }
      },
      v);
}

std::string field_csv(const FieldValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return {};
        } else if constexpr (std::is_same_v<T, bool>) {
          return x ? "true" : "false";
        } else if constexpr (std::is_same_v<T, double>) {
          return rf::csv_number(x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          return rf::csv_field(x);
        } else {
          return std::to_string(x);
        }
      },
      v);
}

std::string field_text(const FieldValue& v, TextFormat format) {
  if (format == TextFormat::text) {
    const auto* s = std::get_if<std::string>(&v);
    return s && !s->empty() ? rf::shown_sweep_point(*s) : std::string("-");
  }
  if (format == TextFormat::plain) {
    const auto* s = std::get_if<std::string>(&v);
    return s ? *s : std::string(rf::kNotAvailable);
  }
  if (format == TextFormat::yes_no) {
    const auto* b = std::get_if<bool>(&v);
    return b ? (*b ? "yes" : "NO") : std::string(rf::kNotAvailable);
  }
  const std::optional<double> x = field_as_double(v);
  if (!x) return format == TextFormat::percent ? "-" : std::string(rf::kNotAvailable);
  switch (format) {
    case TextFormat::integer:
      return fmt::format("{:.0f}", *x);
    case TextFormat::ms:
      return rf::fixed(*x / units::ms, 3);
    case TextFormat::gb:
      return rf::fixed(*x / units::GB, 2);
    case TextFormat::ratio:
      return rf::fixed(*x, 3);
    case TextFormat::thousands:
      return rf::thousands(*x);
    case TextFormat::percent:
      return rf::fixed(100 * *x, 1);
    default:
      return rf::fixed(*x, 3);
  }
}

}  // namespace shardsim
