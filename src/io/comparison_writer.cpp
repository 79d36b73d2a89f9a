// The output of `shardsim compare`: text, JSON, CSV (docs/regression.md, "Output").
#include "shardsim/io/comparison_writer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "shardsim/io/report_format.hpp"

namespace shardsim {

namespace {

using Json = nlohmann::ordered_json;
namespace rf = report_format;

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (c == '_') c = ' ';
  }
  return out;
}

// A value for people, in the metric's unit. Four significant decimals where the report rounds
// to three, so that small moves are visible.
std::string show_value(const MetricInfo& info, const std::optional<double>& value,
                       std::size_t seeds) {
  if (!value) return std::string(rf::kNotAvailable);
  const double v = *value;
  switch (info.unit) {
    case MetricUnit::flag: {
      if (v == 1) return "yes";
      if (v == 0) return "no";
      const auto n = static_cast<double>(seeds);
      return fmt::format("{:.0f}/{} fit", v * n, seeds);
    }
    case MetricUnit::seconds:
      return std::fabs(v) < 1 ? rf::fixed(v * 1e3, 4) + " ms" : rf::fixed(v, 4) + " s";
    case MetricUnit::bytes: {
      const double a = std::fabs(v);
      if (a >= 1e9) return rf::fixed(v / 1e9, 3) + " GB";
      if (a >= 1e6) return rf::fixed(v / 1e6, 3) + " MB";
      if (a >= 1e3) return rf::fixed(v / 1e3, 3) + " kB";
      return rf::fixed(v, 0) + " B";
    }
    case MetricUnit::per_second:
      return rf::thousands(v);
    case MetricUnit::ratio:
      return rf::fixed(v, 4);
  }
  return rf::fixed(v, 4);
}

std::string show_change(const MetricComparison& m, const MetricInfo& info) {
  if (info.unit == MetricUnit::flag) return "-";
  if (std::isnan(m.change)) return std::string(rf::kNotAvailable);
  if (std::isinf(m.change)) return m.change > 0 ? "+inf%" : "-inf%";
  const double pct = m.change * 100;
  if (pct == 0) return "0.00%";
  if (std::fabs(pct) < 0.01) return fmt::format("{:+.2g}%", pct);
  return fmt::format("{:+.2f}%", pct);
}

std::string show_tolerance(const MetricComparison& m, const MetricInfo& info) {
  if (info.unit == MetricUnit::flag) return "-";
  return fmt::format("{:g}%", m.tolerance * 100);
}

// The noise band of a multi-seed comparison (k standard errors), relative to the baseline.
std::string show_noise(const MetricComparison& m, double k) {
  if (std::isnan(m.standard_error) || !m.baseline || *m.baseline == 0) return "-";
  return fmt::format("{:.2f}%", k * m.standard_error / std::fabs(*m.baseline) * 100);
}

std::string pair_title(const PairComparison& p) {
  std::string t = fmt::format("{} | planner {}", p.scenario, p.planner);
  if (!p.sweep_point.empty()) t += " | sweep " + rf::shown_sweep_point(p.sweep_point);
  if (p.seeds.size() == 1) t += fmt::format(" | seed {}", p.seeds.front());
  if (p.seeds.size() > 1) {
    t += fmt::format(" | {} seeds ({}), means", p.seeds.size(), fmt::join(p.seeds, ", "));
  }
  return t;
}

std::string pair_name(const PairComparison& p) {
  std::string t = p.scenario + " / " + p.planner;
  if (!p.sweep_point.empty()) t += " / " + rf::shown_sweep_point(p.sweep_point);
  return t;
}

std::string pair_verdict(const PairComparison& p) {
  if (p.status != PairStatus::compared) return std::string(status_name(p.status));
  if (p.has(Verdict::regressed)) return "regressed";
  if (p.has(Verdict::improved)) return "improved";
  return "ok";
}

std::string hint_for(PairStatus s) {
  switch (s) {
    case PairStatus::stale:
      return "the baseline was made from other inputs; regenerate it (docs/regression.md)";
    case PairStatus::mismatched:
      return "the two reports describe different runs";
    default:
      return {};
  }
}

Json number_or_null(double v) {
  return std::isfinite(v) ? Json(v) : Json();
}
Json optional_number(const std::optional<double>& v) {
  return v ? number_or_null(*v) : Json();
}
Json text_or_null(const std::string& s) {
  return s.empty() ? Json() : Json(s);
}

}  // namespace

void write_comparison_text(std::ostream& out, const Comparison& c) {
  const std::size_t n = c.pairs.size();
  for (std::size_t i = 0; i < n; ++i) {
    const PairComparison& p = c.pairs[i];
    const std::string verdict = pair_verdict(p);
    out << fmt::format(
        "[{}/{}] {}: {}", i + 1, n, pair_title(p),
        p.status == PairStatus::compared && verdict != "regressed" ? verdict : upper(verdict));
    if (!p.reason.empty()) out << ": " << p.reason;
    out << '\n';
    if (p.status != PairStatus::compared) {
      if (!p.baseline_origin.empty()) {
        out << fmt::format("  baseline:  {} (shardsim {})\n", p.baseline_origin,
                           p.baseline_version.empty() ? "?" : p.baseline_version);
      }
      if (!p.candidate_origin.empty()) {
        out << fmt::format("  candidate: {} (shardsim {})\n", p.candidate_origin,
                           p.candidate_version.empty() ? "?" : p.candidate_version);
      }
      if (const std::string hint = hint_for(p.status); !hint.empty()) {
        out << "  " << hint << '\n';
      }
      continue;
    }
    const bool seeds = p.seeds.size() > 1;
    using Col = rf::TextTable::Column;
    using Align = rf::TextTable::Align;
    std::vector<Col> cols{{"metric", Align::left},
                          {"baseline", Align::right},
                          {"candidate", Align::right},
                          {"change", Align::right},
                          {"tolerance", Align::right}};
    if (seeds) cols.push_back({"noise", Align::right});
    cols.push_back({"verdict", Align::left});
    const bool notes = std::any_of(p.metrics.begin(), p.metrics.end(),
                                   [](const MetricComparison& m) { return !m.note.empty(); });
    if (notes) cols.push_back({"note", Align::left});
    rf::TextTable table(std::move(cols));
    for (const MetricComparison& m : p.metrics) {
      const MetricInfo& info = metric_info(m.metric);
      std::vector<std::string> row{std::string(info.name),
                                   show_value(info, m.baseline, p.seeds.size()),
                                   show_value(info, m.candidate, p.seeds.size()),
                                   show_change(m, info), show_tolerance(m, info)};
      if (seeds) row.push_back(show_noise(m, c.standard_errors));
      row.push_back(std::string(verdict_name(m.verdict)));
      if (notes) row.push_back(m.note);
      table.add_row(std::move(row));
    }
    table.write(out, 2);
    for (const std::string& note : p.notes) out << "  note: " << note << '\n';
  }

  const std::size_t compared = c.count(PairStatus::compared);
  out << fmt::format(
      "\nsummary: {} pair(s): {} compared ({} regressed, {} improved), {} stale, {} mismatched, "
      "{} baseline only, {} candidate only\n",
      n, compared, c.pairs_with(Verdict::regressed), c.pairs_with(Verdict::improved),
      c.count(PairStatus::stale), c.count(PairStatus::mismatched),
      c.count(PairStatus::baseline_only), c.count(PairStatus::candidate_only));
  auto list = [&](Verdict v, const char* title) {
    if (c.pairs_with(v) == 0) return;
    out << title << ":\n";
    for (const PairComparison& p : c.pairs) {
      for (const MetricComparison& m : p.metrics) {
        if (m.verdict != v) continue;
        const MetricInfo& info = metric_info(m.metric);
        out << fmt::format("  {}: {} {} -> {} ({}, tolerance {})\n", pair_name(p), info.name,
                           show_value(info, m.baseline, p.seeds.size()),
                           show_value(info, m.candidate, p.seeds.size()), show_change(m, info),
                           show_tolerance(m, info));
      }
    }
  };
  list(Verdict::regressed, "regressed");
  list(Verdict::improved, "improved");
  for (const PairComparison& p : c.pairs) {
    if (p.status == PairStatus::compared) continue;
    out << fmt::format("{}: {}: {}\n", status_name(p.status), pair_name(p), p.reason);
  }
  out << (c.failed() ? "result: FAILED (exit 1)\n" : "result: ok\n");
}

Json comparison_to_json(const Comparison& c) {
  Json j;
  j["result"] = c.failed() ? "failed" : "ok";
  Json counts;
  counts["pairs"] = c.pairs.size();
  counts["compared"] = c.count(PairStatus::compared);
  counts["regressed"] = c.pairs_with(Verdict::regressed);
  counts["improved"] = c.pairs_with(Verdict::improved);
  counts["stale"] = c.count(PairStatus::stale);
  counts["mismatched"] = c.count(PairStatus::mismatched);
  counts["baseline_only"] = c.count(PairStatus::baseline_only);
  counts["candidate_only"] = c.count(PairStatus::candidate_only);
  j["counts"] = std::move(counts);
  j["standard_errors"] = c.standard_errors;
  Json pairs = Json::array();
  for (const PairComparison& p : c.pairs) {
    Json pj;
    pj["scenario"] = p.scenario;
    pj["planner"] = p.planner;
    pj["sweep_point"] = text_or_null(p.sweep_point);
    pj["status"] = status_name(p.status);
    pj["verdict"] = pair_verdict(p);
    pj["reason"] = text_or_null(p.reason);
    pj["seeds"] = p.seeds;
    pj["baseline"] = {{"origin", text_or_null(p.baseline_origin)},
                      {"shardsim_version", text_or_null(p.baseline_version)}};
    pj["candidate"] = {{"origin", text_or_null(p.candidate_origin)},
                       {"shardsim_version", text_or_null(p.candidate_version)}};
    pj["notes"] = p.notes;
    Json metrics = Json::array();
    for (const MetricComparison& m : p.metrics) {
      const MetricInfo& info = metric_info(m.metric);
      Json mj;
      mj["metric"] = info.name;
      mj["better"] = info.better == Better::lower ? "lower" : "higher";
      mj["baseline"] = optional_number(m.baseline);
      mj["candidate"] = optional_number(m.candidate);
      mj["change"] = number_or_null(m.change);
      mj["tolerance"] = m.tolerance;
      mj["standard_error"] = number_or_null(m.standard_error);
      mj["verdict"] = verdict_name(m.verdict);
      mj["note"] = text_or_null(m.note);
      metrics.push_back(std::move(mj));
    }
    pj["metrics"] = std::move(metrics);
    pairs.push_back(std::move(pj));
  }
  j["pairs"] = std::move(pairs);
  return j;
}

void write_comparison_json(std::ostream& out, const Comparison& c) {
  out << comparison_to_json(c).dump(2) << '\n';
}

void write_comparison_csv(std::ostream& out, const Comparison& c) {
  out << "scenario,planner,sweep_point,seeds,status,metric,better,baseline,candidate,change,"
         "tolerance,standard_error,verdict,note\n";
  for (const PairComparison& p : c.pairs) {
    const std::string head =
        fmt::format("{},{},{},{},{}", rf::csv_field(p.scenario), rf::csv_field(p.planner),
                    rf::csv_field(p.sweep_point), fmt::join(p.seeds, ";"), status_name(p.status));
    if (p.status != PairStatus::compared) {
      out << head << ",,,,,,,,," << rf::csv_field(p.reason) << '\n';
      continue;
    }
    for (const MetricComparison& m : p.metrics) {
      const MetricInfo& info = metric_info(m.metric);
      out << head << ',' << info.name << ',' << (info.better == Better::lower ? "lower" : "higher")
          << ',' << (m.baseline ? rf::csv_number(*m.baseline) : "") << ','
          << (m.candidate ? rf::csv_number(*m.candidate) : "") << ',' << rf::csv_number(m.change)
          << ',' << rf::csv_number(m.tolerance) << ',' << rf::csv_number(m.standard_error) << ','
          << verdict_name(m.verdict) << ',' << rf::csv_field(m.note) << '\n';
    }
  }
}

}  // namespace shardsim
