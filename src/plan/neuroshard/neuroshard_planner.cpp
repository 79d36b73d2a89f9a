#include "plan/neuroshard/neuroshard_planner.hpp"

#include <fmt/format.h>

#include <chrono>
#include <limits>
#include <numeric>

#include <cmath>
#include "plan/planners.hpp"

namespace shardsim {

namespace neuroshard {

namespace {

// 45.6 MB, 3.891 GB (decimal units, as the memory errors of plan/packing.cpp).
std::string bytes_text(double b) {
  if (b < 1e9) return fmt::format("{:.1f} MB", b / 1e6);
  return fmt::format("{:.3f} GB", b / 1e9);
}

std::string column_plan_text(const PlanningContext& ctx, const SearchResult& r) {
  if (r.column_plan.empty()) return "none (every table whole)";
  // Replay the halvings to name them.
  std::vector<SubTable> subs;
  for (std::size_t t = 0; t < ctx.model.tables.size(); ++t) {
    subs.push_back(SubTable{t, ColRange{0, ctx.model.tables[t].dim}});
  }
  std::string out;
  constexpr std::size_t kShown = 12;
  for (std::size_t k = 0; k < r.column_plan.size(); ++k) {
    const SubTable s = subs[r.column_plan[k]];  // a copy: the push_back below reallocates
    const std::uint32_t mid = s.cols.begin + s.dim() / 2;
    if (k < kShown) {
      out += fmt::format("{}'{}' [{}, {}) -> [{}, {}) + [{}, {})", k == 0 ? "" : ", ",
                         ctx.model.tables[s.table].name, s.cols.begin, s.cols.end, s.cols.begin,
                         mid, mid, s.cols.end);
    }
    subs[r.column_plan[k]].cols.end = mid;
    subs.push_back(SubTable{s.table, ColRange{mid, s.cols.end}});
  }
  if (r.column_plan.size() > kShown) {
    out += fmt::format(", ... ({} halvings in all)", r.column_plan.size());
  }
  return out;
}

std::vector<std::string> stats_lines(const PlanningContext& ctx, const NeuroShardResult& r) {
  const SearchResult& s = r.search;
  std::vector<std::string> lines;
  const double scale = s.placement.max_dim_scale;
  lines.push_back(fmt::format(
      "neuroshard ({} backend): {} {:.3f} ms, found at max device dim {}", r.backend,
      r.backend == "simulation" ? "simulated iteration time" : "estimated embedding cost",
      s.placement.cost_s * 1e3,
      std::isinf(scale) ? std::string("unconstrained") : fmt::format("{:.2f} x mean", scale)));
  lines.push_back("column plan: " + column_plan_text(ctx, s));
  const double hit_pct =
      r.cache_queries > 0 ? 100.0 * static_cast<double>(r.cache_hits) / r.cache_queries : 0.0;
  lines.push_back(fmt::format(
      "search: {} greedy grid searches over {} beam steps; computation cost cache: {} of {} "
      "queries hit ({:.1f}%){}",
      s.inner_searches, s.steps_done, r.cache_hits, r.cache_queries, hit_pct,
      s.stopped_by_deadline ? "; stopped by the time budget (time_budget_s)" : ""));
  // Per GPU: what the search balanced.
  const int n = ctx.cluster.num_gpus();
  std::vector<int> count(static_cast<std::size_t>(n), 0);
  std::vector<std::uint64_t> dims(static_cast<std::size_t>(n), 0);
  std::vector<double> bytes(static_cast<std::size_t>(n), 0.0);
  for (std::size_t i = 0; i < s.tables.size(); ++i) {
    const auto g = static_cast<std::size_t>(s.placement.gpu_of[i]);
    ++count[g];
    dims[g] += s.tables.subs[i].dim();
    bytes[g] += s.tables.bytes[i];
  }
  const std::vector<double> comm = AnalyticBackend(ctx).comm_s(dims);
  lines.push_back(fmt::format("{:>5} {:>7} {:>6} {:>11} {:>12} {:>12}", "GPU", "tables", "dims",
                              "bytes", "compute ms", "comm ms"));
  for (int g = 0; g < n; ++g) {
    const auto k = static_cast<std::size_t>(g);
    lines.push_back(fmt::format("{:>5} {:>7} {:>6} {:>11} {:>12.3f} {:>12.3f}", g, count[k],
                                dims[k], bytes_text(bytes[k]), s.placement.compute_s[k] * 1e3,
                                comm[k] * 1e3));
  }
  return lines;
}

// Throws DoesNotFitError before the search when no sharding or no reachable column plan fits:
// the tables together exceed the GPUs' room, or need more halvings than the search has steps.
void check_neuroshard_filters(const PlanningContext& ctx, const NeuroShardOptions& o,
                              const MemoryBudget& budget, ComputeCost& compute) {
  const int n = ctx.cluster.num_gpus();
  const SubTableSet whole = initial_sub_tables(ctx, budget, compute);
  // Pre-sharding filter: halving changes where bytes go, never how many there are, so tables
  // that do not fit the GPUs together cannot be sharded at all (the released task generator
  // drops such tasks before sharding).
  const double total = std::accumulate(whole.bytes.begin(), whole.bytes.end(), 0.0);
  double all_room = 0;
  for (int g = 0; g < n; ++g) all_room += budget.room_bytes(g);
  const double room = budget.largest_room_bytes();
  if (total > all_room) {
    throw DoesNotFitError(
        -1, total, all_room,
        fmt::format("neuroshard: the {} tables need {} in all (weights, optimizer state and "
                    "activations) but the {} GPUs have {} for tables together; no sharding "
                    "fits: add GPUs (cluster.nodes) or lower the headroom",
                    whole.size(), bytes_text(total), n, bytes_text(all_room)));
  }
  // Pre-search filter: no GPU takes a sub-table wider than the grid's largest max device dim,
  // grid_end x the mean device dim (which halving does not change), and the beam search
  // halves one sub-table a step. A table d columns wide needs 2^k - 1 halvings to become 2^k
  // pieces no wider than that; when all tables together need more than L, no column plan the
  // search can reach is placeable, and the search (17 s at 4096 GPUs) is not run.
  const double mean_dim = static_cast<double>(whole.total_dim) / n;
  const double grid_end = grid_scales(o.beam.grid).back();
  const double max_dim = grid_end * mean_dim;
  double halvings = 0;
  std::size_t widest = 0;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    SubTable piece = whole.subs[i];
    double pieces = 1;
    while (piece.dim() > max_dim && can_halve(piece)) {
      piece.cols.end = piece.cols.begin + piece.dim() / 2;
      pieces *= 2;
    }
    halvings += piece.dim() > max_dim ? std::numeric_limits<double>::infinity() : pieces - 1;
    if (whole.subs[i].dim() > whole.subs[widest].dim()) widest = i;
  }
  if (halvings > o.beam.steps) {
    throw DoesNotFitError(
        -1, whole.bytes[widest], room,
        fmt::format("neuroshard: on {} GPUs a GPU takes at most {:.1f} columns ({:g} x the mean "
                    "device dim {:.1f}), and the tables wider than that need {} halvings in "
                    "all (the widest, '{}', is {} columns), more than the search's {} (one a "
                    "step, L); raise steps (L) or grid_end, or use fewer GPUs",
                    n, max_dim, grid_end, mean_dim,
                    std::isfinite(halvings) ? fmt::format("{:.0f}", halvings)
                                            : std::string("more than any number of"),
                    ctx.model.tables[whole.subs[widest].table].name, whole.subs[widest].dim(),
                    o.beam.steps));
  }
}

// Throws DoesNotFitError when the search placed no column plan, naming the likely culprit.
[[noreturn]] void throw_no_column_plan(const PlanningContext& ctx, const NeuroShardOptions& o,
                                       const MemoryBudget& budget, const NeuroShardResult& r) {
  const int n = ctx.cluster.num_gpus();
  // Name the likely culprit in the last plan tried: the largest sub-table, or one wider than
  // the grid's largest max device dim.
  const SubTableSet& t = r.search.tables;
  std::size_t big = 0, wide = 0;
  for (std::size_t i = 1; i < t.size(); ++i) {
    if (t.bytes[i] > t.bytes[big]) big = i;
    if (t.subs[i].dim() > t.subs[wide].dim()) wide = i;
  }
  const double room = budget.largest_room_bytes();
  const double mean_dim = static_cast<double>(t.total_dim) / n;
  const std::vector<double> scales = grid_scales(o.beam.grid);
  const double max_dim = scales.back() * mean_dim;
  std::string why;
  if (t.subs[wide].dim() > max_dim) {
    why = fmt::format(
        "table '{}' is {} columns wide, wider than the largest max device dim the grid tries "
        "({:.2f} x the mean {:.1f} = {:.1f}); raise steps (L) so it can be halved, or grid_end",
        ctx.model.tables[t.subs[wide].table].name, t.subs[wide].dim(), scales.back(), mean_dim,
        max_dim);
  } else {
    why = fmt::format(
        "the largest, '{}', needs {} where a GPU has at most {} for tables; raise steps (L) or "
        "candidates (N), add GPUs, or lower the headroom",
        ctx.model.tables[t.subs[big].table].name, bytes_text(t.bytes[big]), bytes_text(room));
  }
  throw DoesNotFitError(
      -1, t.bytes[big], room,
      fmt::format("neuroshard: no column plan within {} halvings places every table: {}{}",
                  o.beam.steps, why,
                  r.search.stopped_by_deadline ? " (the time budget ran out first)" : ""));
}

}  // namespace

NeuroShardResult neuroshard_plan_detailed(const PlanningContext& ctx, const NeuroShardOptions& o) {
  if (o.backend == Backend::simulation && ctx.evaluator == nullptr) {
    throw InputError(o.backend_where, "backend",
                     "the simulation backend needs the scenario runner to simulate candidates",
                     "use backend: analytic here (shardsim run and shardsim plan provide it)");
  }
  const auto start = std::chrono::steady_clock::now();
  BeamOptions beam = o.beam;
  if (o.time_budget_s) {
    beam.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(*o.time_budget_s));
  }
  const MemoryBudget budget(ctx, o.headroom);
  ComputeCost compute(ctx, o.cache);
  check_neuroshard_filters(ctx, o, budget, compute);

  std::unique_ptr<PlanCostBackend> backend;
  if (o.backend == Backend::simulation) {
    backend = std::make_unique<SimulationBackend>(ctx);
  } else {
    backend = std::make_unique<AnalyticBackend>(ctx);
  }
  NeuroShardResult r;
  r.backend = backend->name();
  r.search = beam_search(ctx, budget, beam, compute, *backend);
  r.cache_queries = compute.queries();
  r.cache_hits = compute.hits();
  if (!r.search.placement.found()) throw_no_column_plan(ctx, o, budget, r);
  r.plan = candidate_plan(ctx, r.search.tables.subs, r.search.placement.gpu_of);
  r.plan.planner_stats = stats_lines(ctx, r);
  // The search's counts for the report (plan_stats.planner_counts; NeuroShard Table 3's cache hit
  // rate is cache_hits / cache_queries).
  r.plan.planner_counts = {
      {"greedy_grid_searches", static_cast<std::uint64_t>(r.search.inner_searches)},
      {"beam_steps", static_cast<std::uint64_t>(r.search.steps_done)},
      {"cache_queries", static_cast<std::uint64_t>(r.cache_queries)},
      {"cache_hits", static_cast<std::uint64_t>(r.cache_hits)}};
  return r;
}

namespace {

class NeuroShardPlanner final : public Planner {
 public:
  explicit NeuroShardPlanner(NeuroShardOptions o) : o_(std::move(o)) {}
  std::string name() const override { return "neuroshard"; }
  Plan plan(const PlanningContext& ctx) const override {
    return neuroshard_plan_detailed(ctx, o_).plan;
  }

 private:
  NeuroShardOptions o_;
};

}  // namespace

}  // namespace neuroshard

// The paper's online-search settings (§4 "Implementation details", App. F): N=10, K=3, L=10,
// M=11; the grid from the mean device dim to 1.5x it (§3.3).
OptionSchema neuroshard_planner_options() {
  const auto count = [](const char* name, OptionKind kind, std::uint64_t d, const char* doc) {
    return OptionSpec::integer(name, kind, d, doc);
  };
  return planner_schema(
      {count("candidates", OptionKind::positive_int, 10, "N, sub-tables considered per step"),
       count("beam_width", OptionKind::positive_int, 3, "K, plans kept"),
       count("steps", OptionKind::nonnegative_int, 10, "L, beam steps (0: no beam search)"),
       count("grid_steps", OptionKind::nonnegative_int, 11, "M, max-dim values of the grid"),
       OptionSpec::number("grid_start", 0.01, 100, 1.0, "the grid's start x the mean device dim"),
       OptionSpec::number("grid_end", 0.01, 100, 1.5, "the grid's end x the mean device dim"),
       OptionSpec::choice("backend", {"analytic", "simulation"}, "analytic",
                          "the embedding cost f(c, t)"),
       OptionSpec::boolean("cache", true, "the life-long cache of computation costs"),
       OptionSpec::number("time_budget_s", 1e-3, 1e6, std::nullopt,
                          "stop the search and keep the best plan so far")},
      0.0);
}

std::unique_ptr<Planner> make_neuroshard_planner(const PlannerOptions& options) {
  neuroshard::NeuroShardOptions o;
  o.beam.candidates = static_cast<int>(options.integer("candidates"));
  o.beam.beam_width = static_cast<int>(options.integer("beam_width"));
  o.beam.steps = static_cast<int>(options.integer("steps"));
  o.beam.grid.steps = static_cast<int>(options.integer("grid_steps"));
  o.beam.grid.start = options.number("grid_start");
  o.beam.grid.end = options.number("grid_end");
  if (o.beam.grid.end < o.beam.grid.start) {
    throw options.error(
        "grid_end",
        fmt::format("grid_end ({}) is below grid_start ({})", o.beam.grid.end, o.beam.grid.start),
        "the grid runs from grid_start to grid_end times the mean device dim (1.0 to 1.5)");
  }
  constexpr std::uint64_t kMaxSearch = 1000;
  for (const char* key : {"candidates", "beam_width", "steps", "grid_steps"}) {
    if (options.integer(key) > kMaxSearch) {
      throw options.error(key, fmt::format("{} above {}", key, kMaxSearch),
                          "the paper uses N=10, K=3, L=10, M=11");
    }
  }
  o.backend = options.text("backend") == "simulation" ? neuroshard::Backend::simulation
                                                      : neuroshard::Backend::analytic;
  if (options.has("backend")) o.backend_where = options.location_of("backend");
  o.cache = options.boolean("cache");
  if (options.has("time_budget_s")) o.time_budget_s = options.number("time_budget_s");
  o.headroom = options.number("headroom");
  return std::make_unique<neuroshard::NeuroShardPlanner>(std::move(o));
}

}  // namespace shardsim
