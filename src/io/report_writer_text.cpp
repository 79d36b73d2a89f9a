// The text report, for a person at a terminal. Layout and rounding rules: docs/report.md.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <ostream>

#include "io/report_balance.hpp"
#include "io/report_fields.hpp"
#include "io/report_values.hpp"
#include "shardsim/core/units.hpp"
#include "shardsim/io/plan_stats_writer.hpp"
#include "shardsim/io/report_format.hpp"
#include "shardsim/io/report_writer.hpp"
#include "shardsim/metrics/best_report.hpp"
#include "shardsim/metrics/bottleneck.hpp"
#include "shardsim/metrics/report_schema.hpp"

namespace shardsim {

namespace {

namespace rf = report_format;
using Align = rf::TextTable::Align;

// Reports with more GPUs than this show the first kHeadGpus rows, a "..." row, the last
// kTailGpus rows, then min and max rows over all GPUs.
constexpr std::size_t kMaxGpuRows = 16;
constexpr std::size_t kHeadGpus = 8;
constexpr std::size_t kTailGpus = 4;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string ms(double seconds) {
  return rf::fixed(seconds / units::ms, 3);
}
std::string gb(double bytes) {
  return rf::fixed(bytes / units::GB, 2);
}
std::string percent_of(double bytes, double capacity_bytes) {
  if (!(capacity_bytes > 0)) return std::string(rf::kNotAvailable);
  return rf::fixed(100.0 * bytes / capacity_bytes, 1);
}
// "40.00 GB (50.0%)"; without a known capacity just "40.00 GB".
std::string gb_and_percent(double bytes, double capacity_bytes) {
  if (!(capacity_bytes > 0)) return gb(bytes) + " GB";
  return fmt::format("{} GB ({}%)", gb(bytes), percent_of(bytes, capacity_bytes));
}
std::string ratio(double value) {
  return rf::fixed(value, 3);
}
std::string na() {
  return std::string(rf::kNotAvailable);
}

// One column of the per-GPU table: how to read its value and how to print it.
struct GpuColumn {
  const char* header;
  Align align;
  bool timed;  // "n/a" when the plan did not fit (never simulated)
  double (*value)(const GpuReport&);
  std::string (*format)(double);
};

double memory_percent(const GpuReport& g) {
  return g.memory_capacity_bytes > 0 ? 100.0 * g.memory_bytes / g.memory_capacity_bytes : kNaN;
}

const GpuColumn kGpuColumns[] = {
    {"GPU", Align::right, false, [](const GpuReport& g) { return double(g.gpu); },
     [](double v) { return fmt::format("{:.0f}", v); }},
    {"node", Align::right, false, [](const GpuReport& g) { return double(g.node); },
     [](double v) { return fmt::format("{:.0f}", v); }},
    {"lookup ms", Align::right, true, [](const GpuReport& g) { return g.lookup_s; }, ms},
    {"busy ms", Align::right, true, [](const GpuReport& g) { return g.busy_s; }, ms},
    {"comm ms", Align::right, true, [](const GpuReport& g) { return g.comm_transfer_s; }, ms},
    {"wait ms", Align::right, true, [](const GpuReport& g) { return g.comm_wait_s; }, ms},
    {"idle ms", Align::right, true, [](const GpuReport& g) { return g.idle_s; }, ms},
    {"memory GB", Align::right, false, gpu_memory_bytes, gb},
    {"memory %", Align::right, false, memory_percent, [](double v) { return rf::fixed(v, 1); }},
    {"lookups", Align::right, false, gpu_lookups, rf::thousands},
    {"shards", Align::right, false, [](const GpuReport& g) { return double(g.shards); },
     rf::thousands},
};

std::vector<std::string> gpu_row(const Report& r, const GpuReport& g) {
  std::vector<std::string> cells;
  for (const GpuColumn& c : kGpuColumns) {
    cells.push_back(c.timed && !report_has_timing(r) ? na() : c.format(c.value(g)));
  }
  return cells;
}

// "min" / "max" rows over all GPUs: each cell is the extreme of its column and the GPU that
// holds it ("1.234 @g17"), since different columns peak on different GPUs.
std::vector<std::string> extreme_row(const Report& r, bool want_max) {
  std::vector<std::string> cells{want_max ? "max" : "min", ""};
  for (std::size_t k = 2; k < std::size(kGpuColumns); ++k) {
    const GpuColumn& c = kGpuColumns[k];
    if (c.timed && !report_has_timing(r)) {
      cells.push_back(na());
      continue;
    }
    const Spread s = spread_of(r.per_gpu, c.value);
    const double v = want_max ? s.max : s.min;
    const int gpu = want_max ? s.max_gpu : s.min_gpu;
    cells.push_back(fmt::format("{} @g{}", c.format(v), gpu));
  }
  return cells;
}

void write_gpu_table(std::ostream& out, const Report& r) {
  if (!report_has_plan(r)) {
    out << "  no per-GPU figures: there is no plan (the planner could not place the tables)\n";
    return;
  }
  std::vector<rf::TextTable::Column> columns;
  for (const GpuColumn& c : kGpuColumns) columns.push_back({c.header, c.align});
  rf::TextTable table(std::move(columns));
  const std::size_t n = r.per_gpu.size();
  if (n <= kMaxGpuRows) {
    for (const GpuReport& g : r.per_gpu) table.add_row(gpu_row(r, g));
  } else {
    for (std::size_t i = 0; i < kHeadGpus; ++i) table.add_row(gpu_row(r, r.per_gpu[i]));
    table.add_row({"..."});
    for (std::size_t i = n - kTailGpus; i < n; ++i) table.add_row(gpu_row(r, r.per_gpu[i]));
    table.add_row(extreme_row(r, false));
    table.add_row(extreme_row(r, true));
  }
  table.write(out, 2);
}

std::string header_line(const Report& r, std::size_t index, std::size_t count) {
  std::string line = count > 1 ? fmt::format("[#{}] ", index) : std::string();
  line += fmt::format("scenario {} | planner {} | preset {} | {} GPUs on {} node{} | {}",
                      r.scenario, r.planner, r.preset, r.num_gpus, r.num_nodes,
                      r.num_nodes == 1 ? "" : "s", r.mode);
  if (r.bottom_mlp_gpu >= 0) line += fmt::format(" | bottom MLP on GPU {}", r.bottom_mlp_gpu);
  if (!r.sweep_point.empty()) line += " | sweep " + rf::shown_sweep_point(r.sweep_point);
  return line;
}

// The capacity of the GPU whose memory peaks (its GpuReport when present, else the report's).
double worst_gpu_capacity_bytes(const Report& r) {
  for (const GpuReport& g : r.per_gpu) {
    if (g.gpu == r.worst_memory_gpu) return g.memory_capacity_bytes;
  }
  return r.memory_capacity_bytes;
}

std::string fits_text(const Report& r) {
  if (r.fits_in_memory) return "yes";
  // Every GPU's HBM holds its part, and still the plan does not fit: a node's host memory is
  // short (memory tiers); the fit error line says which.
  if (r.memory_max_bytes <= worst_gpu_capacity_bytes(r) && !r.fit_error.empty()) {
    return "NO: host memory (HBM fits; see the fit error)";
  }
  return fmt::format("NO: needs {} GB on GPU {} (capacity {} GB)", gb(r.memory_max_bytes),
                     r.worst_memory_gpu, gb(worst_gpu_capacity_bytes(r)));
}

// "2.41 per million samples, 10,850 per epoch of 4,500,000,000 samples (at 3.5 per GPU-hour)".
std::string cost_text(const CostReport& c) {
  auto money = [](double v) { return v >= 100 ? rf::thousands(v) : rf::fixed(v, 4); };
  std::string s = money(c.cost_per_million_samples) + " per million samples";
  if (c.dataset_samples > 0) {
    s += fmt::format(", {} per epoch of {} samples", money(c.cost_per_epoch),
                     rf::thousands(static_cast<double>(c.dataset_samples)));
  }
  return s + fmt::format(" (at {} per GPU-hour)", rf::fixed(c.price_per_gpu_hour, 2));
}

void write_summary(std::ostream& out, const Report& r) {
  auto line = [&](std::string_view label, const std::string& value) {
    out << fmt::format("  {:<16} {}\n", label, value);
  };
  if (report_has_timing(r)) {
    line("iteration time",
         fmt::format("mean {} ms, p50 {} ms, p99 {} ms ({} iterations after {} warm-up)",
                     ms(r.iteration_time.mean_s), ms(r.iteration_time.p50_s),
                     ms(r.iteration_time.p99_s), r.iterations, r.warmup));
    line("QPS", std::isfinite(r.scaling_factor)
                    ? fmt::format("{} (scaling factor {}%)", rf::thousands(r.qps),
                                  rf::fixed(100 * r.scaling_factor, 1))
                    : rf::thousands(r.qps));
    line("imbalance ratio", ratio(r.imbalance_ratio) + " (max/mean lookup time)");
    line("busy imbalance", ratio(r.busy_imbalance_ratio) + " (max/mean GPU busy time)");
    line("DoB", ratio(r.degree_of_balance) + " (min/max communication cost)");
    line("critical GPU", fmt::format("{} (the most busy time: {} ms of {} ms)", r.critical_gpu,
                                     ms(r.per_gpu[static_cast<std::size_t>(r.critical_gpu)].busy_s),
                                     ms(r.iteration_time.mean_s)));
    line("bound by", bottleneck_text(r));
    if (r.cost) line("cost", cost_text(*r.cost));
  } else {
    line("iteration time", "n/a (the plan does not fit in memory; not simulated)");
    line("QPS", na());
    line("imbalance ratio", na());
    line("busy imbalance", na());
    line("DoB",
         report_has_plan(r) ? ratio(r.degree_of_balance) + " (min/max communication cost)" : na());
  }
  const std::string mean_memory =
      report_has_plan(r) ? gb_and_percent(r.memory_mean_bytes, r.memory_capacity_bytes) : na();
  line("memory", fmt::format("peak {} on GPU {}, mean {}, capacity {} GB",
                             gb_and_percent(r.memory_max_bytes, r.memory_capacity_bytes),
                             r.worst_memory_gpu, mean_memory, gb(r.memory_capacity_bytes)));
  // Memory tiers: shown only when some shard is in host memory (the JSON always has the fields).
  double host_bytes = 0, cache_bytes = 0, link_bytes = 0, link_max = 0;
  for (const GpuReport& g : r.per_gpu) {
    host_bytes += g.host_memory_bytes;
    cache_bytes += g.cache_bytes;
    link_bytes += g.host_link_bytes;
    link_max = std::max(link_max, g.host_link_bytes);
  }
  if (host_bytes > 0) {
    line("host memory",
         fmt::format("{} GB of tables in host memory, {} GB of HBM caches; host link {} per "
                     "iteration (busiest GPU {})",
                     gb(host_bytes), gb(cache_bytes),
                     report_has_timing(r) ? gb(link_bytes) + " GB" : na(),
                     report_has_timing(r) ? gb(link_max) + " GB" : na()));
  }
  if (r.pruning) {
    const PruningReport& p = *r.pruning;
    line("pruning",
         fmt::format("{} of {} rows pruned in {} tables ({}%); {}% of the lookups dropped",
                     rf::thousands(static_cast<double>(p.pruned_rows)),
                     rf::thousands(static_cast<double>(p.original_rows)), p.pruned_tables,
                     rf::fixed(p.original_rows > 0 ? 100.0 * static_cast<double>(p.pruned_rows) /
                                                         static_cast<double>(p.original_rows)
                                                   : 0.0,
                               1),
                     rf::fixed(100.0 * p.dropped_lookup_fraction, 2)));
  }
  line("balance", fmt::format("max/mean memory {}, lookups {}, comm bytes {}",
                              ratio(spread_of(r.per_gpu, gpu_memory_bytes).max_over_mean()),
                              ratio(spread_of(r.per_gpu, gpu_lookups).max_over_mean()),
                              ratio(spread_of(r.per_gpu, gpu_comm_bytes).max_over_mean())));
  line("fits", fits_text(r));
  if (!r.fits_in_memory && !r.fit_error.empty()) line("fit error", r.fit_error);
  line("planning time", rf::duration(r.planning_time_s));
}

void write_breakdown(std::ostream& out, const Report& r) {
  if (!report_has_timing(r)) {
    out << "  breakdown per iteration: n/a (not simulated)\n";
    return;
  }
  out << fmt::format(
      "  breakdown per iteration on the critical GPU {} (exposed: each instant counted once, "
      "adding up to the iteration time):\n",
      r.critical_gpu);
  rf::TextTable table({{"phase", Align::left},
                       {"serialized ms", Align::right},
                       {"exposed ms", Align::right},
                       {"of which waiting ms", Align::right}});
  double total_s = 0;
  for (const PhaseTime& p : r.breakdown) {
    table.add_row({p.phase, ms(p.serialized_s), ms(p.exposed_s),
                   p.waiting_s > 0 ? ms(p.waiting_s) : std::string("-")});
    total_s += p.exposed_s;
  }
  table.add_row({"total", "", ms(total_s), ""});
  table.write(out, 4);
}

// Link utilisation over the measured iterations, one row per class of links.
void write_links(std::ostream& out, const Report& r) {
  out << "  links (utilisation of achievable bandwidth over the measured iterations):\n";
  rf::TextTable table({{"class", Align::left},
                       {"links", Align::right},
                       {"mean %", Align::right},
                       {"max %", Align::right},
                       {"busiest", Align::left}});
  for (const LinkClassUse& u : r.link_utilization) {
    table.add_row({u.link_class, std::to_string(u.links),
                   fmt::format("{:.1f}", 100 * u.mean_utilization),
                   fmt::format("{:.1f}", 100 * u.max_utilization),
                   u.busiest_link.empty() ? "-" : u.busiest_link});
  }
  table.write(out, 4);
}

// 2D: one row per sparse-parallel group (at most kMaxGpuRows, then the first and last ones),
// and the replica synchronisation with the paper's Eq. 1 beside the simulated time.
void write_groups(std::ostream& out, const Report& r) {
  const bool t = report_has_timing(r);
  out << fmt::format("  2D groups ({} groups of {} GPUs):\n", r.groups.size(),
                     r.groups.front().num_gpus);
  rf::TextTable table({{"group", Align::right},
                       {"GPUs", Align::right},
                       {"first GPU", Align::right},
                       {"lookup max ms", Align::right},
                       {"lookup mean ms", Align::right},
                       {"imbalance", Align::right},
                       {"memory max %", Align::right},
                       {"memory mean %", Align::right},
                       {"lookups", Align::right},
                       {"sent MB", Align::right},
                       {"sync ms", Align::right}});
  auto row = [&](const GroupReport& g) {
    table.add_row({std::to_string(g.group), std::to_string(g.num_gpus), std::to_string(g.first_gpu),
                   t ? ms(g.lookup_max_s) : na(), t ? ms(g.lookup_mean_s) : na(),
                   t ? ratio(g.imbalance_ratio) : na(),
                   percent_of(g.memory_max_bytes, r.memory_capacity_bytes),
                   percent_of(g.memory_mean_bytes, r.memory_capacity_bytes),
                   rf::thousands(g.lookups), rf::fixed(g.comm_bytes / units::MB, 1),
                   t ? ms(g.sync_s) : na()});
  };
  const std::size_t n = r.groups.size();
  if (n <= kMaxGpuRows) {
    for (const GroupReport& g : r.groups) row(g);
  } else {
    for (std::size_t i = 0; i < kHeadGpus; ++i) row(r.groups[i]);
    table.add_row({"..."});
    for (std::size_t i = n - kTailGpus; i < n; ++i) row(r.groups[i]);
  }
  table.write(out, 4);
  if (r.replica_sync) {
    const ReplicaSyncReport& rs = *r.replica_sync;
    out << fmt::format(
        "    replica sync: {} every {} iteration{}, {} peers, {} GB per sync (largest GPU {} "
        "GB); Eq. 1 at B_sync {} GB/s: {} ms; simulated (slowest GPU) {} ms\n",
        rs.mode, rs.interval, rs.interval == 1 ? "" : "s", rs.peers, gb(rs.bytes_per_sync),
        gb(rs.max_gpu_bytes), rf::fixed(rs.sync_Bps / units::GB, 1), ms(rs.eq1_s),
        t ? ms(rs.simulated_s) : na());
  }
}

std::string best_mark(BestBy by) {
  switch (by) {
    case BestBy::qps:
      return "<- best (QPS)";
    case BestBy::cost:
      return "<- best (cost)";
    case BestBy::iteration:
      return "<- best (iteration time)";
  }
  return "<- best";
}

// The brief (docs/report.md, "The brief"): one row per report, a column per schema row with a
// text label (in the schema's order), the best report marked (with several), then why each plan
// that does not fit does not.
void write_brief(std::ostream& out, std::span<const Report> reports, const BriefOptions& o) {
  const BestBy by = o.best_by.value_or(default_best_by(reports));
  out << "brief:\n";
  std::vector<const ReportField*> fields;
  for (const ReportField& f : report_fields()) {
    if (f.text == TextFormat::none) continue;
    const bool any = std::any_of(reports.begin(), reports.end(), [&](const Report& r) {
      return !std::holds_alternative<std::monostate>(field_value(r, f));
    });
    if (!f.text_when_any || any) fields.push_back(&f);
  }
  std::vector<rf::TextTable::Column> columns{{"#", Align::right}};
  for (const ReportField* f : fields) {
    const bool left = f->text == TextFormat::text || f->text == TextFormat::plain ||
                      f->text == TextFormat::yes_no;
    columns.push_back({std::string(f->text_label), left ? Align::left : Align::right});
  }
  columns.push_back({"", Align::left});
  rf::TextTable table(std::move(columns));
  const std::optional<std::size_t> best = best_report(reports, by);
  for (std::size_t i = 0; i < reports.size(); ++i) {
    std::vector<std::string> cells{std::to_string(i)};
    for (const ReportField* f : fields)
      cells.push_back(field_text(field_value(reports[i], *f), f->text));
    cells.emplace_back(best == i && reports.size() > 1 ? best_mark(by) : "");
    table.add_row(std::move(cells));
  }
  table.write(out, 2);
  if (std::any_of(reports.begin(), reports.end(), report_has_timing)) {
    out << "  trust: " << trust_text(o.trust ? *o.trust : builtin_trust_figures()) << '\n';
  }
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const Report& r = reports[i];
    if (r.fits_in_memory) continue;
    out << fmt::format("  #{} {} does not fit: {}\n", i, r.planner,
                       r.fit_error.empty() ? fits_text(r) : r.fit_error);
  }
}

}  // namespace

void write_text(std::ostream& out, std::span<const Report> reports) {
  write_text(out, reports, BriefOptions{});
}

void write_text(std::ostream& out, std::span<const Report> reports, const BriefOptions& brief) {
  // The answer first: the brief, then each report's detail.
  write_brief(out, reports, brief);
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const Report& r = reports[i];
    out << '\n' << header_line(r, i, reports.size()) << "\n\n";
    write_gpu_table(out, r);
    out << '\n';
    write_summary(out, r);
    if (!report_has_timing(r) || !r.breakdown.empty()) {
      out << '\n';
      write_breakdown(out, r);
    }
    if (!r.groups.empty()) {
      out << '\n';
      write_groups(out, r);
    }
    if (report_has_timing(r) && !r.link_utilization.empty()) {
      out << '\n';
      write_links(out, r);
    }
    if (r.plan_stats) {
      out << '\n';
      write_plan_stats_text(out, *r.plan_stats);
    }
  }
}

}  // namespace shardsim
