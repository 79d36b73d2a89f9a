// The resource guard's memory estimate (io/resource_estimate.hpp). Each term mirrors the code
// that allocates it (named in the comment); tests/io/resource_estimate_test.cpp checks the terms
// against hand counts, and docs/robustness.md compares totals with measured peak memory.
#include "shardsim/run/resource_estimate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>

#include "run/planner_options.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/cost/host_step_cost.hpp"
#include "shardsim/metrics/report.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/plan_stats.hpp"
#include "shardsim/plan/planner.hpp"
#include "shardsim/sim/comm_traffic.hpp"
#include "shardsim/sim/engine.hpp"
#include "shardsim/sim/task.hpp"
#include "shardsim/trace/empirical_profile.hpp"
#include "shardsim/trace/power_law_profile.hpp"

namespace shardsim {

namespace {

// ---------------------------------------------------------------- constants (bytes)

constexpr double kMatrixEntryBytes = sizeof(double);  // ByteMatrix
// Text of one matrix entry in report.json (", " + number) or a CSV (",' + number): numbers of
// bytes per iteration below 10^10 print in at most 10 characters ("{}" shortest form).
constexpr double kMatrixEntryTextBytes = 12;
// One task of the engine's graph: the Task (sim/task.hpp) with a deps vector of 1-3 ints on the
// heap (a 32-byte allocation), its TaskSpan in the Timeline, the engine's dependents list,
// remaining count and queue entry (sim/engine.cpp), and the report builder's per-GPU task lists
// (metrics/report_builder.cpp): sizeof(Task) + 32 + sizeof(TaskSpan) + 4 x 4.
constexpr double kTaskBytes = sizeof(Task) + 32 + sizeof(TaskSpan) + 16;
// A collective member: its id in Collective::members and the member's deps list entry.
constexpr double kCollectiveMemberBytes = 8;
// A shard of a plan (plan/plan.hpp), the per-shard arrays of the iteration builder (lookups,
// distinct rows, served GPUs, works: 3 doubles + an EmbeddingWork of 40 bytes), of plan_memory
// and of the plan statistics (about as many again).
constexpr double kShardBytes = sizeof(Shard) + 3 * 8 + 40 + 64;
// A table as loaded (model/embedding_table.hpp) plus its name; a generated table's name is
// short ("gen123": in the string's inline buffer).
constexpr double kTableBytes = sizeof(EmbeddingTable);
// Per GPU of a report: GpuReport, its plan statistics (GpuPlanStats) and memory (GpuMemory).
constexpr double kReportPerGpuBytes = sizeof(GpuReport) + sizeof(GpuPlanStats) + sizeof(GpuMemory);
// Per GPU per iteration: IterationTasks (last task of 4 streams, lookups, lookup time) and the
// builder's per-GPU vectors of one iteration.
constexpr double kIterationPerGpuBytes = 4 * 4 + 8 + 8 + 6 * 8;
// A recorded trace's per-table profile (trace/empirical_profile.hpp): the exact head, the tail's
// knots and count groups; and the exact distinct-row counter while one table is read (an
// open-addressing map of (row, count) at load <= 1/2).
double recorded_profile_bytes() {
  const EmpiricalProfileOptions o;
  return static_cast<double>(o.head_rows) * 16 + static_cast<double>(o.tail_knots) * 2 * 16 +
         static_cast<double>(o.max_groups) * 24 + static_cast<double>(o.hot_candidates) * 24;
}
double recorded_builder_bytes() {
  const EmpiricalProfileOptions o;
  return static_cast<double>(std::bit_ceil(2 * o.exact_rows)) * 16;
}

double sq(double x) {
  return x * x;
}

std::string count(double x) {
  if (x < 1e6) return fmt::format("{:.0f}", x);
  return fmt::format("{:.3g}", x);
}

int num_gpus(const Scenario& s) {
  return s.cluster.nodes * s.cluster.preset.gpus_per_node;
}

// The plan's reports in one run: one per planner, one for placement.file.
std::size_t reports_of(const Scenario& s) {
  return s.placement.planners.size() + (s.placement.plan_file.empty() ? 0 : 1);
}

}  // namespace

double RunFootprint::kept_bytes() const {
  double b = 0;
  for (const auto& i : kept) b += i.bytes;
  return b;
}
double RunFootprint::peak_bytes() const {
  double b = 0;
  for (const auto& i : peak) b += i.bytes;
  return b;
}
double RunFootprint::output_bytes() const {
  double b = 0;
  for (const auto& i : output) b += i.bytes;
  return b;
}
double RunFootprint::shared_bytes() const {
  double b = 0;
  for (const auto& i : shared) b += i.bytes;
  return b;
}

PlanShapeBound plan_shape_bound(const std::string& planner, const Scenario& s) {
  PlanShapeInput in = plan_shape_input(s.cluster.preset, s.cluster.nodes, s.model, s.workload);
  if (planner.empty()) return worst_case_shape(in);
  in.options = planner_options(s.placement, planner);
  return find_planner(planner, SourceLocation{s.source, 0, 0}, "placement.planner").shape_bound(in);
}

namespace {

// The counts the footprint's terms are made of.
struct FootprintCounts {
  double n = 0;           // GPUs
  double t = 0;           // tables
  double reports = 0;     // plans simulated (reports_of)
  double iterations = 0;  // warmup + measured
  bool training = false;
  double units = 0;                       // units a side of the reports' matrices
  double unreplicated_tasks_per_gpu = 0;  // per iteration, without replica syncs
};

// The scenario's counts, and its tasks per GPU per iteration.
FootprintCounts footprint_counts(const Scenario& s) {
  FootprintCounts c;
  c.n = num_gpus(s);
  c.t = static_cast<double>(s.model.tables.size());
  c.reports = static_cast<double>(reports_of(s));
  c.iterations = s.workload.warmup + s.workload.iterations;
  c.training = s.workload.mode == Mode::training;
  // The reports' matrices are per GPU up to kCommMatrixMaxUnits GPUs and per node or switch
  // group above (sim/comm_traffic.hpp): at most that many units a side.
  c.units = std::min(c.n, static_cast<double>(kCommMatrixMaxUnits));
  // Tasks per GPU per iteration (sim/iteration_dag.cpp): training: 8 local tasks + AlltoAll
  // forward and backward + MLP AllReduce members (+ replica syncs) + the dense optimizer's step
  // (every DLRM has dense parameters); inference: 4 local + AlltoAll. Each adds one: the host's
  // step when it takes time, the input AlltoAll (simulation.pipeline.input_alltoall, on by
  // default), and the inputs' delivery on a preset with a frontend network (docs/model.md,
  // "Data ingestion").
  const double input_a2a = s.simulation.input_alltoall == InputAlltoall::none ? 0 : 1;
  const double delivery = s.cluster.preset.host.delivers_inputs() ? 1 : 0;
  const double dense_optimizer = c.training ? 1 : 0;
  const double host_step = host_step_modelled(s.cost) ? 1 : 0;
  c.unreplicated_tasks_per_gpu =
      (c.training ? 11 : 5) + dense_optimizer + host_step + input_a2a + delivery;
  return c;
}

// --- kept: the loaded scenario, and the reports until they are written.
void add_kept_footprint(const Scenario& s, const FootprintCounts& c, RunFootprint& f) {
  double table_bytes = 0;
  for (const auto& table : s.model.tables) {
    table_bytes +=
        kTableBytes + static_cast<double>(table.name.size()) +
        16.0 * static_cast<double>(table.pooling.histogram.size() + table.heavy_hitters.size() / 2);
  }
  f.kept.push_back({fmt::format("the loaded model: {} tables", count(c.t)), table_bytes});
  f.kept.push_back({fmt::format("communication matrices of the reports: {} report(s) x 2 x {}^2 x "
                                "8 B",
                                count(c.reports), count(c.units)),
                    c.reports * 2 * sq(c.units) * kMatrixEntryBytes});
  f.kept.push_back({fmt::format("per-GPU rows of the reports: {} report(s) x {} GPUs",
                                count(c.reports), count(c.n)),
                    c.reports * c.n * kReportPerGpuBytes});
}

// The plan's term of the peak: the plan `planner` makes (empty: the plan file) with its shape
// `shape` (its planner's bound, or the made plan's own), and its simulation.
MemoryItem plan_term(const Scenario& s, const FootprintCounts& c, const std::string& planner,
                     const PlanShapeBound& shape, bool made) {
  const bool uniform_draws =
      s.workload.trace.file.empty() && s.workload.trace.mode == TraceMode::expected;
  const double shards = shape.max_shards;
  const double replicated_tables =
      shape.may_replicate ? std::min(c.t, shape.max_replicated_tables) : 0;
  const double tasks_per_gpu =
      c.unreplicated_tasks_per_gpu + (c.training && shape.may_replicate ? 1 : 0);
  const double tasks = c.iterations * c.n * tasks_per_gpu;
  const double graph_bytes =
      tasks * (kTaskBytes + kCollectiveMemberBytes) + c.iterations * c.n * kIterationPerGpuBytes;
  const std::string name = planner.empty() ? std::string("file:") : planner;
  if (!made && shape.checked_after_planning) {
    // Before planning, a loose bound counts the plan as it is made (its Shard records); the
    // per-shard arrays, serving maps and draws are counted by check_plan from the plan's shape.
    return {fmt::format("plan '{}' while it is made: at most {} shards x {} B (the rest checked "
                        "with the plan); {} iterations x {} GPUs x {} tasks",
                        name, count(shards), sizeof(Shard), count(c.iterations), count(c.n),
                        count(tasks_per_gpu)),
            shards * static_cast<double>(sizeof(Shard)) + graph_bytes};
  }
  const double blocks = shape.max_blocks_per_table;
  // A synthetic expected-mode trace draws one value per block (TraceSource::compact_draw: the
  // GPU dimension implicit); sampled and recorded traces one per block and GPU.
  const double draw_entries = uniform_draws ? blocks : blocks * c.n;
  const double bytes = shards * kShardBytes + replicated_tables * c.n * 8 +  // serving map: N ids
                       graph_bytes + draw_entries * 8;  // TableIterationDraw of the largest table
  return {fmt::format("plan '{}' and its simulation: {}{} shards, {} iterations x {} GPUs x {} "
                      "tasks, draws of {} blocks{}",
                      name, made ? "" : "~", count(shards), count(c.iterations), count(c.n),
                      count(tasks_per_gpu), count(blocks),
                      uniform_draws ? std::string(" (one value each: expected mode)")
                                    : fmt::format(" x {} GPUs", count(c.n))),
          bytes};
}

// --- peak: one plan made and simulated at a time (run/run_scenario.cpp): the planner-independent
// traffic, and the largest plan with its simulation (or the plan `made`, once it exists).
void add_plan_footprint(const Scenario& s, const FootprintCounts& c, const MadePlan* made,
                        RunFootprint& f) {
  // Traffic per GPU and level (cost/level_traffic.hpp, sent and received), never per GPU pair:
  // the reported forward and backward, each sparse group's (at most one group per GPU, summed
  // over the groups: N rows each way), the input AlltoAll's, and the plan statistics'; beside
  // them the builder's unit matrices and the node-to-node level table (hw/level_table.hpp).
  const double levels = 2.0 + static_cast<double>(s.cluster.preset.tiers.size());
  const double nodes = static_cast<double>(s.cluster.nodes);
  f.peak.push_back(
      {fmt::format("traffic per GPU and level while simulating: 8 views x {} GPUs x {} levels x 2 "
                   "x 8 B, 2 x {}^2 unit matrices, {}^2 node levels",
                   count(c.n), count(levels), count(c.units), count(nodes)),
       8 * c.n * levels * 2 * kMatrixEntryBytes + 2 * sq(c.units) * kMatrixEntryBytes + sq(nodes)});
  if (made != nullptr) {
    f.peak.push_back(plan_term(s, c, made->planner, made->shape, true));
    return;
  }
  MemoryItem largest{"", 0};
  for (std::size_t k = 0; k < reports_of(s); ++k) {
    const std::string planner =
        k < s.placement.planners.size() ? s.placement.planners[k] : std::string();
    MemoryItem term = plan_term(s, c, planner, plan_shape_bound(planner, s), false);
    if (term.bytes > largest.bytes) largest = std::move(term);
  }
  if (largest.bytes > 0) f.peak.push_back(std::move(largest));
}

// The network model's link samples and per-flow state (peak); returns the link samples.
double add_network_footprint(const Scenario& s, const FootprintCounts& c, RunFootprint& f) {
  // The network model (sim/fair_share_network.cpp): a LinkSample (24 B) for each link whose
  // load changes when a collective starts or ends. Measured (docs/robustness.md): ~22 samples
  // per GPU per iteration and plan in training, on 32 and 128 GPUs of dgx-a100 (1 and 4 racks);
  // counted here as 4 links per GPU at each of the two ends of every collective (~40). The
  // per-flow model keeps one flow per GPU pair of an AlltoAll (~64 B with its path).
  const double collectives_per_iteration = c.training ? 4 + (c.t > 0 ? 1 : 0) : 2;
  const NetworkModelType& network = network_model(s.simulation.link_sharing).model;
  const double link_samples =
      !network.shares_links() ? 0 : c.iterations * collectives_per_iteration * 2 * 4 * c.n;
  if (link_samples > 0) {
    f.peak.push_back(
        {fmt::format("link utilisation samples: {} iterations x {} collectives x 2 x 4 x {} GPUs",
                     count(c.iterations), count(collectives_per_iteration), count(c.n)),
         link_samples * 24});
  }
  if (network.needs_pair_traffic()) {
    // One flow per GPU pair, and the pairs' matrices (pooled forward and backward, input) the
    // per-flow demands are built from.
    f.peak.push_back(
        {fmt::format("per-flow network: {}^2 flows x 64 B, 3 x {}^2 x 8 B pair matrices",
                     count(c.n), count(c.n)),
         sq(c.n) * 64 + 3 * sq(c.n) * kMatrixEntryBytes});
  }
  return link_samples;
}

// The trace source's profiles (shared or peak) and a sampled trace's distinct-row set (peak).
void add_trace_footprint(const Scenario& s, const FootprintCounts& c, RunFootprint& f) {
  // Trace source (trace/): sampled mode counts distinct rows of a table's global batch in a
  // TouchedRows set (2 slots per possible row, a power of two, 8 B each) and draws one GPU's
  // bags at a time; a recorded trace keeps a profile per table and counts one table's rows
  // while it is read.
  if (!s.workload.trace.file.empty()) {
    f.peak.push_back({fmt::format("recorded trace profiles: {} tables", count(c.t)),
                      c.t * recorded_profile_bytes() + recorded_builder_bytes()});
  } else {
    // A synthetic trace's power-law profile per table, with the head index of the scattered
    // layout (32 B for each of up to 4096 hottest ranks); shared by the runs of a process.
    double profiles = 0;
    for (const auto& table : s.model.tables)
      profiles +=
          static_cast<double>(PowerLawProfile::memory_bytes(table, s.workload.trace.layout));
    f.shared.push_back({fmt::format("synthetic trace profiles: {} tables", count(c.t)), profiles});
  }
  if (s.workload.trace.file.empty() && s.workload.trace.mode == TraceMode::sampled) {
    double largest_set = 0, largest_bags = 0;
    std::string which;
    for (const auto& table : s.model.tables) {
      const double lookups = c.n * s.workload.batch_per_gpu * table.pooling.expected();
      const double distinct = std::min(lookups, static_cast<double>(table.rows));
      const double slots = std::exp2(std::ceil(std::log2(std::max(16.0, 2 * distinct))));
      if (slots * 8 > largest_set) {
        largest_set = slots * 8;
        which = table.name;
      }
      largest_bags =
          std::max(largest_bags, s.workload.batch_per_gpu * (table.pooling.expected() * 8 + 4));
    }
    f.peak.push_back(
        {fmt::format("sampled trace: distinct rows of table '{}' over a global batch", which),
         largest_set + largest_bags});
  }
}

}  // namespace

RunFootprint run_footprint(const Scenario& s, const MadePlan* made) {
  RunFootprint f;
  const FootprintCounts c = footprint_counts(s);
  add_kept_footprint(s, c, f);
  add_plan_footprint(s, c, made, f);
  const double link_samples = add_network_footprint(s, c, f);
  // `run --trace-out` (io/chrome_trace_writer.cpp): ~300 B of JSON per task span, ~110 B per
  // link sample, for every plan of the run, kept until the file is written.
  const double all_tasks = c.reports * c.iterations * c.n * c.unreplicated_tasks_per_gpu;
  f.chrome_trace.push_back(
      {fmt::format("Chrome trace text: {} plan(s) x {} iterations x {} GPUs x ~{} spans, and link "
                   "samples",
                   count(c.reports), count(c.iterations), count(c.n),
                   count(c.unreplicated_tasks_per_gpu)),
       all_tasks * 300 + c.reports * link_samples * 110});

  add_trace_footprint(s, c, f);

  // --- output: report.json and the CSVs rendered as text before `--out` writes them
  // (io/report_writer_output_dir.cpp): each matrix twice (JSON, CSV).
  f.output.push_back(
      {fmt::format("report files as text: {} report(s) x 2 matrices x 2 formats x {}^2 x {} B",
                   count(c.reports), count(c.units), kMatrixEntryTextBytes),
       c.reports * 4 * sq(c.units) * kMatrixEntryTextBytes});
  return f;
}

namespace {

// Whether every run's synthetic trace takes the same power-law profiles: the same tables (as the
// profiles see them), layout and seed.
bool same_trace_profiles(std::span<const Scenario> runs) {
  const auto profile_key = [](const EmbeddingTable& t) {
    return std::tie(t.rows, t.alpha, t.q, t.heavy_hitters);
  };
  const Scenario& first = runs.front();
  for (const Scenario& r : runs.subspan(1)) {
    if (r.workload.seed != first.workload.seed ||
        r.workload.trace.layout != first.workload.trace.layout ||
        r.model.tables.size() != first.model.tables.size())
      return false;
    for (std::size_t i = 0; i < r.model.tables.size(); ++i) {
      if (profile_key(r.model.tables[i]) != profile_key(first.model.tables[i])) return false;
    }
  }
  return true;
}

}  // namespace

ResourceEstimate estimate_memory(std::span<const Scenario> runs, const RunShape& shape) {
  ResourceEstimate e;
  if (runs.empty()) return e;
  double kept = 0, output = 0, chrome_trace = 0;
  std::size_t largest = 0, largest_shared = 0;
  std::vector<RunFootprint> feet;
  feet.reserve(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    feet.push_back(run_footprint(runs[i]));
    kept += feet.back().kept_bytes();
    output += feet.back().output_bytes();
    for (const auto& i : feet.back().chrome_trace) chrome_trace += i.bytes;
    if (feet.back().peak_bytes() > feet[largest].peak_bytes()) largest = i;
    if (feet.back().shared_bytes() > feet[largest_shared].shared_bytes()) largest_shared = i;
  }
  const double in_flight =
      static_cast<double>(std::min<std::size_t>(runs.size(), std::max(1, shape.jobs)));
  // Runs of the same tables share one set of profiles (trace/shared_profiles.hpp). Otherwise
  // each run in flight has its own, and the last finished run's may still be kept for the next.
  const double shared_sets =
      same_trace_profiles(runs) ? 1 : std::min(static_cast<double>(runs.size()), in_flight + 1);
  const double shared = feet[largest_shared].shared_bytes() * shared_sets;
  const double peak = feet[largest].peak_bytes() * in_flight;
  // The text of the largest file is also copied once more while rendered (ostringstream::str()).
  const double out_total = shape.writes_out_dir ? output * 1.5 : 0;
  // The trace text is copied once more into the file stream's buffer: counted once.
  const double trace_total = shape.writes_chrome_trace ? chrome_trace : 0;
  e.total_bytes = kept + peak + shared + out_total + trace_total;
  e.run_peak_bytes = feet[largest].peak_bytes();

  // Items: one run's terms when there is one run; otherwise summed kept terms by kind, the
  // largest run's peak terms scaled by the runs in flight and the largest shared terms by the
  // sets of them held at once.
  const std::string runs_text =
      runs.size() == 1 ? std::string() : fmt::format("{} runs: ", count(runs.size()));
  for (std::size_t k = 0; k < feet.front().kept.size(); ++k) {
    double sum = 0;
    for (const auto& f : feet) sum += k < f.kept.size() ? f.kept[k].bytes : 0;
    e.items.push_back({runs_text + feet[largest].kept[k].what, sum});
  }
  const std::string flight_text =
      in_flight > 1 ? fmt::format("{} runs at once: ", count(in_flight)) : std::string();
  for (const auto& i : feet[largest].peak)
    e.items.push_back({flight_text + i.what, i.bytes * in_flight});
  for (const auto& i : feet[largest_shared].shared) {
    e.items.push_back({shared_sets > 1   ? fmt::format("{} sets of {}", count(shared_sets), i.what)
                       : runs.size() > 1 ? i.what + " (one set: every run has these tables)"
                                         : i.what,
                       i.bytes * shared_sets});
  }
  if (shape.writes_out_dir) {
    e.items.push_back({runs_text + feet[largest].output.front().what, out_total});
  }
  if (shape.writes_chrome_trace) {
    e.items.push_back({runs_text + feet[largest].chrome_trace.front().what, trace_total});
  }
  sort_largest_first(e.items);
  return e;
}

void sort_largest_first(std::vector<MemoryItem>& items) {
  std::stable_sort(items.begin(), items.end(),
                   [](const MemoryItem& a, const MemoryItem& b) { return a.bytes > b.bytes; });
}

std::string human_bytes(double bytes) {
  if (bytes >= 1e12) return fmt::format("{:.2f} TB", bytes / 1e12);
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.1f} MB", bytes / 1e6);
  if (bytes >= 1e3) return fmt::format("{:.1f} kB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
}

}  // namespace shardsim
