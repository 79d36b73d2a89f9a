// Writers of a sizing search's result (io/sizing_writer.hpp; docs/report.md "Sizing").
#include "shardsim/io/sizing_writer.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <vector>

#include "shardsim/io/report_format.hpp"

namespace shardsim {

namespace {

namespace rf = report_format;
using SizingJson = nlohmann::ordered_json;

SizingJson sizing_number(double v) {
  return std::isfinite(v) ? SizingJson(v) : SizingJson();
}

SizingJson sizing_optional(const std::optional<double>& v) {
  return v ? sizing_number(*v) : SizingJson();
}

// "15%", "2.5%": a percentage as given.
std::string percent_text(double pct) {
  return fmt::format("{:g}%", pct);
}

std::string sizing_target_text(const ScenarioSizing& s) {
  std::string out = "fits in memory";
  const bool margin = s.margin_pct > 0;
  if (s.sized.min_qps) {
    out += ", QPS >= " + rf::thousands(*s.sized.min_qps);
    if (margin) {
      out += fmt::format(" ({} + {} margin)", rf::thousands(*s.target.min_qps),
                         percent_text(s.margin_pct));
    }
  }
  if (s.sized.max_iteration_s) {
    out += ", iteration time <= " + rf::fixed(*s.sized.max_iteration_s * 1e3, 3) + " ms";
    if (margin) {
      out += fmt::format(" ({} ms with a {} margin)", rf::fixed(*s.target.max_iteration_s * 1e3, 3),
                         percent_text(s.margin_pct));
    }
  }
  return out;
}

bool is_answer(const SizingResult& r, std::size_t probe, std::size_t planner) {
  return r.answer && r.answer->probe == probe && r.answer->planner == planner;
}

// "1 node", "3 nodes".
std::string nodes_text(int nodes) {
  return fmt::format("{} node{}", nodes, nodes == 1 ? "" : "s");
}

std::string gb_text(double bytes) {
  return rf::fixed(bytes / 1e9, 2);
}

// "+23.1% over the target 20,000,000 QPS (sized with a 15% margin)", "12.0% under the
// 10.000 ms iteration limit"; empty with --fit alone.
std::string headroom_text(const ScenarioSizing& s) {
  const SizingHeadroom h = sizing_headroom(s);
  std::vector<std::string> parts;
  if (h.qps_pct) {
    parts.push_back(fmt::format("{:+.1f}% over the target {} QPS", *h.qps_pct,
                                rf::thousands(*s.target.min_qps)));
  }
  if (h.iteration_time_pct) {
    parts.push_back(fmt::format("{:.1f}% under the {} ms iteration limit", *h.iteration_time_pct,
                                rf::fixed(*s.target.max_iteration_s * 1e3, 3)));
  }
  if (parts.empty()) return {};
  std::string out = "headroom " + parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) out += ", " + parts[i];
  if (s.margin_pct > 0) {
    out += fmt::format(" (sized with a {} margin{})", percent_text(s.margin_pct),
                       s.margin_source.empty() ? "" : ": " + s.margin_source);
  }
  return out;
}

// "memory decided: at 3 nodes the largest GPU needs 52.10 GB of 40.00 GB (row_wise)", ...
std::string decided_text(const ScenarioSizing& s) {
  const SizingResult& r = s.result;
  const SizingProbe& at = r.probes[r.answer->probe];
  if (!r.bound || !r.bound->below || !r.bound->below_planner) {
    return fmt::format("decided: {} is the fewest of {} that can be probed", nodes_text(at.nodes),
                       s.presets[at.preset]);
  }
  const SizingProbe& below = r.probes[*r.bound->below];
  const PlannerOutcome& o = below.planners[*r.bound->below_planner];
  switch (r.bound->decided_by) {
    case SizingDecider::memory:
      return fmt::format("memory decided: at {} the largest GPU needs {} GB{} ({})",
                         nodes_text(below.nodes), gb_text(o.memory_max_bytes),
                         o.memory_capacity_bytes > 0
                             ? " of " + gb_text(o.memory_capacity_bytes) + " GB"
                             : std::string(),
                         o.planner);
    case SizingDecider::qps:
      return fmt::format(
          "QPS decided: at {}, {} QPS < {} ({})", nodes_text(below.nodes), rf::thousands(o.qps),
          s.sized.min_qps ? rf::thousands(*s.sized.min_qps) : "the target", o.planner);
    case SizingDecider::iteration_time:
      return fmt::format(
          "iteration time decided: at {}, {} ms > {} ms ({})", nodes_text(below.nodes),
          rf::fixed(o.iteration_s * 1e3, 3),
          s.sized.max_iteration_s ? rf::fixed(*s.sized.max_iteration_s * 1e3, 3) : "the limit",
          o.planner);
    case SizingDecider::smallest:
      break;
  }
  return fmt::format("decided: {} is the fewest of {} that can be probed", nodes_text(at.nodes),
                     s.presets[at.preset]);
}

std::string runner_up_text(const ScenarioSizing& s) {
  const SizingResult& r = s.result;
  if (!r.runner_up) return "runner-up: none among the probes made";
  const SizingProbe& p = r.probes[r.runner_up->probe];
  const PlannerOutcome& o = p.planners[r.runner_up->planner];
  return fmt::format("runner-up: {} x {} ({} GPUs) with {}, {} QPS", p.nodes, s.presets[p.preset],
                     p.gpus, o.planner, rf::thousands(o.qps));
}

void write_probe_table(std::ostream& out, const ScenarioSizing& s) {
  const SizingResult& r = s.result;
  using Align = rf::TextTable::Align;
  std::vector<rf::TextTable::Column> columns{
      {"", Align::left},      {"preset", Align::left},        {"nodes", Align::right},
      {"GPUs", Align::right}, {"batch/GPU", Align::right},    {"planner", Align::left},
      {"QPS", Align::right},  {"iteration ms", Align::right}, {"peak memory GB", Align::right},
      {"fits", Align::left},  {"meets", Align::left}};
  if (s.priced) columns.push_back({"cost/1M samples", Align::right});
  rf::TextTable table(columns);
  for (std::size_t i = 0; i < r.probes.size(); ++i) {
    const SizingProbe& p = r.probes[i];
    for (std::size_t k = 0; k < p.planners.size(); ++k) {
      const PlannerOutcome& o = p.planners[k];
      std::vector<std::string> cells{
          is_answer(r, i, k) ? "*" : "",
          s.presets[p.preset],
          std::to_string(p.nodes),
          std::to_string(p.gpus),
          std::to_string(p.batch_per_gpu),
          o.planner,
          o.fits ? rf::thousands(o.qps) : std::string(rf::kNotAvailable),
          o.fits ? rf::fixed(o.iteration_s * 1e3, 3) : std::string(rf::kNotAvailable),
          gb_text(o.memory_max_bytes),
          o.fits ? "yes" : "no",
          o.meets ? "yes" : "no"};
      if (s.priced) {
        const double c = o.cost_per_million_samples;
        cells.push_back(std::isfinite(c) ? rf::fixed(c, 4) : std::string(rf::kNotAvailable));
      }
      table.add_row(std::move(cells));
    }
  }
  table.write(out, 2);
}

SizingJson outcome_json(const ScenarioSizing& s, const SizingProbe& p, const PlannerOutcome& o) {
  return SizingJson{{"preset", s.presets[p.preset]},
                    {"num_nodes", p.nodes},
                    {"num_gpus", p.gpus},
                    {"planner", o.planner},
                    {"qps", o.fits ? sizing_number(o.qps) : SizingJson()},
                    {"iteration_time_s", o.fits ? sizing_number(o.iteration_s) : SizingJson()}};
}

std::string_view decider_name(SizingDecider d) {
  switch (d) {
    case SizingDecider::memory:
      return "memory";
    case SizingDecider::qps:
      return "qps";
    case SizingDecider::iteration_time:
      return "iteration_time";
    case SizingDecider::smallest:
      break;
  }
  return "smallest";
}

SizingJson bound_json(const ScenarioSizing& s) {
  const SizingResult& r = s.result;
  if (!r.answer || !r.bound) return SizingJson();
  const PlannerOutcome& a = r.probes[r.answer->probe].planners[r.answer->planner];
  SizingJson j;
  j["bottleneck"] = a.bottleneck_kind.empty()
                        ? SizingJson()
                        : SizingJson{{"kind", a.bottleneck_kind},
                                     {"text", a.bottleneck},
                                     {"share", sizing_number(a.bottleneck_share)}};
  const bool below = r.bound->below && r.bound->below_planner;
  j["decided_by"] = below ? decider_name(r.bound->decided_by) : "smallest";
  if (below) {
    const SizingProbe& p = r.probes[*r.bound->below];
    const PlannerOutcome& o = p.planners[*r.bound->below_planner];
    SizingJson b = outcome_json(s, p, o);
    b["memory_max_bytes"] = sizing_number(o.memory_max_bytes);
    b["memory_capacity_bytes"] =
        o.memory_capacity_bytes > 0 ? sizing_number(o.memory_capacity_bytes) : SizingJson();
    b["fits_in_memory"] = o.fits;
    j["below"] = std::move(b);
  } else {
    j["below"] = nullptr;
  }
  j["text"] = decided_text(s);
  return j;
}

SizingJson probes_json(const ScenarioSizing& s) {
  const SizingResult& r = s.result;
  SizingJson probes = SizingJson::array();
  for (std::size_t i = 0; i < r.probes.size(); ++i) {
    const SizingProbe& p = r.probes[i];
    for (std::size_t k = 0; k < p.planners.size(); ++k) {
      const PlannerOutcome& o = p.planners[k];
      SizingJson row;
      row["preset"] = s.presets[p.preset];
      row["num_nodes"] = p.nodes;
      row["num_gpus"] = p.gpus;
      row["batch_per_gpu"] = p.batch_per_gpu;
      row["planner"] = o.planner;
      row["qps"] = o.fits ? sizing_number(o.qps) : SizingJson();
      row["iteration_time_s"] = o.fits ? sizing_number(o.iteration_s) : SizingJson();
      row["memory_max_bytes"] = sizing_number(o.memory_max_bytes);
      row["fits_in_memory"] = o.fits;
      row["meets_target"] = o.meets;
      if (s.priced) row["cost_per_million_samples"] = sizing_number(o.cost_per_million_samples);
      row["answer"] = is_answer(r, i, k);
      probes.push_back(std::move(row));
    }
  }
  return probes;
}

}  // namespace

SizingHeadroom sizing_headroom(const ScenarioSizing& s) {
  SizingHeadroom h;
  const SizingResult& r = s.result;
  if (!r.answer) return h;
  const PlannerOutcome& o = r.probes[r.answer->probe].planners[r.answer->planner];
  if (s.target.min_qps) h.qps_pct = 100 * (o.qps / *s.target.min_qps - 1);
  if (s.target.max_iteration_s)
    h.iteration_time_pct = 100 * (1 - o.iteration_s / *s.target.max_iteration_s);
  return h;
}

std::string sizing_answer_line(const ScenarioSizing& s) {
  const SizingResult& r = s.result;
  if (!r.answer) {
    return fmt::format("answer: none: no node count up to {} reaches the target", s.max_nodes);
  }
  const SizingProbe& p = r.probes[r.answer->probe];
  const PlannerOutcome& o = p.planners[r.answer->planner];
  std::string out =
      fmt::format("answer: {} x {} ({} GPUs) with {}: {} QPS, iteration {} ms, peak memory {} GB",
                  p.nodes, s.presets[p.preset], p.gpus, o.planner, rf::thousands(o.qps),
                  rf::fixed(o.iteration_s * 1e3, 3), gb_text(o.memory_max_bytes));
  if (std::isfinite(o.cost_per_million_samples))
    out += fmt::format(", {} per million samples", rf::fixed(o.cost_per_million_samples, 4));
  if (const std::string h = headroom_text(s); !h.empty()) out += "; " + h;
  out += "; bound: " + (o.bottleneck.empty() ? std::string(rf::kNotAvailable) : o.bottleneck);
  out += "; " + decided_text(s);
  out += "; " + runner_up_text(s);
  return out;
}

void write_sizing_text(std::ostream& out, const ScenarioSizing& s) {
  const SizingResult& r = s.result;
  out << fmt::format("size: {} ({}): target {}; ", s.scenario, s.source, sizing_target_text(s));
  out << (s.global_batch > 0
              ? fmt::format("global batch {}", rf::thousands(static_cast<double>(s.global_batch)))
              : std::string("batch per GPU as written"));
  out << fmt::format("; up to {} nodes; {}\n", s.max_nodes,
                     s.exhaustive ? "every node count" : "galloping + bisection");
  write_probe_table(out, s);
  for (std::size_t p = 0; p < r.skipped.size(); ++p) {
    if (r.skipped[p].nodes.empty()) continue;
    out << fmt::format("  skipped {} nodes {}: {}\n", s.presets[p], node_ranges(r.skipped[p].nodes),
                       r.skipped[p].reason);
  }
  out << sizing_answer_line(s) << "\n";
}

void write_sizing_json(std::ostream& out, const ScenarioSizing& s) {
  const SizingResult& r = s.result;
  SizingJson j;
  j["scenario"] = s.scenario;
  j["scenario_source"] = s.source;
  j["target"] = SizingJson{
      {"qps", sizing_optional(s.target.min_qps)},
      {"max_iteration_time_s", sizing_optional(s.target.max_iteration_s)},
      {"margin_pct", s.margin_pct},
      {"margin_source", s.margin_source.empty() ? SizingJson() : SizingJson(s.margin_source)},
      {"sized_qps", sizing_optional(s.sized.min_qps)},
      {"sized_max_iteration_time_s", sizing_optional(s.sized.max_iteration_s)}};
  j["global_batch"] = s.global_batch > 0 ? SizingJson(s.global_batch) : SizingJson();
  j["max_nodes"] = s.max_nodes;
  j["search"] = s.exhaustive ? "exhaustive" : "bisection";
  j["presets"] = s.presets;
  j["probes"] = probes_json(s);
  SizingJson skipped = SizingJson::array();
  for (std::size_t p = 0; p < r.skipped.size(); ++p) {
    if (r.skipped[p].nodes.empty()) continue;
    skipped.push_back(SizingJson{{"preset", s.presets[p]},
                                 {"num_nodes", r.skipped[p].nodes},
                                 {"reason", r.skipped[p].reason}});
  }
  j["skipped"] = std::move(skipped);
  if (r.answer) {
    const SizingProbe& p = r.probes[r.answer->probe];
    j["answer"] = outcome_json(s, p, p.planners[r.answer->planner]);
    j["bound"] = bound_json(s);
    if (r.runner_up) {
      const SizingProbe& q = r.probes[r.runner_up->probe];
      j["runner_up"] = outcome_json(s, q, q.planners[r.runner_up->planner]);
    } else {
      j["runner_up"] = nullptr;
    }
    const SizingHeadroom h = sizing_headroom(s);
    j["headroom"] = SizingJson{{"qps_pct", sizing_optional(h.qps_pct)},
                               {"iteration_time_pct", sizing_optional(h.iteration_time_pct)}};
  } else {
    j["answer"] = nullptr;
    j["bound"] = nullptr;
    j["runner_up"] = nullptr;
    j["headroom"] = nullptr;
  }
  out << j.dump(2) << "\n";
}

void write_sizing_csv(std::ostream& out, const ScenarioSizing& s) {
  const SizingResult& r = s.result;
  out << "preset,num_nodes,num_gpus,batch_per_gpu,planner,qps,iteration_time_s,memory_max_bytes,"
         "fits_in_memory,meets_target,cost_per_million_samples,answer\n";
  for (std::size_t i = 0; i < r.probes.size(); ++i) {
    const SizingProbe& p = r.probes[i];
    for (std::size_t k = 0; k < p.planners.size(); ++k) {
      const PlannerOutcome& o = p.planners[k];
      out << fmt::format(
          "{},{},{},{},{},{},{},{},{},{},{},{}\n", rf::csv_field(s.presets[p.preset]), p.nodes,
          p.gpus, p.batch_per_gpu, rf::csv_field(o.planner), o.fits ? rf::csv_number(o.qps) : "",
          o.fits ? rf::csv_number(o.iteration_s) : "", rf::csv_number(o.memory_max_bytes),
          o.fits ? "true" : "false", o.meets ? "true" : "false",
          rf::csv_number(o.cost_per_million_samples), is_answer(r, i, k) ? "true" : "false");
    }
  }
}

}  // namespace shardsim
