// The report schema (metrics/report_schema.hpp): every field of a report, one row each.
#include "shardsim/metrics/report_schema.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "metrics/report_schema_fragments.hpp"
#include "shardsim/metrics/bottleneck.hpp"
#include "shardsim/sim/task.hpp"

namespace shardsim {

namespace {

using namespace report_schema_fragments;
using V = FieldValue;
using R = const Report&;

V text_of(const std::string& s) {
  return V(s);
}
V int_of(long long v) {
  return V(static_cast<std::int64_t>(v));
}
V uint_of(std::uint64_t v) {
  return V(v);
}

// The summary CSV's breakdown columns: serialized and exposed time of each phase on the critical
// GPU (empty when the phase did not run), then the exposed idle time.
std::vector<std::string> breakdown_csv_names() {
  std::vector<std::string> names;
  for (int p = 0; p < kNumPhases; ++p) {
    const std::string phase = to_string(static_cast<Phase>(p));
    names.push_back("serialized_" + phase + "_s");
    names.push_back("exposed_" + phase + "_s");
  }
  names.emplace_back("exposed_idle_s");
  return names;
}
std::vector<V> breakdown_csv_values(R r) {
  std::vector<V> values;
  const bool timed = report_meets(r, FieldNeeds::timing);
  auto find = [&](const std::string& phase) {
    return std::find_if(r.breakdown.begin(), r.breakdown.end(),
                        [&](const PhaseTime& x) { return x.phase == phase; });
  };
  for (int p = 0; p < kNumPhases; ++p) {
    const auto it = find(to_string(static_cast<Phase>(p)));
    const bool ran = timed && it != r.breakdown.end();
    values.push_back(ran ? finite_value(it->serialized_s) : V());
    values.push_back(ran ? finite_value(it->exposed_s) : V());
  }
  const auto idle = find("idle");
  values.push_back(!timed                      ? V()
                   : idle != r.breakdown.end() ? finite_value(idle->exposed_s)
                                               : V(0.0));
  return values;
}

// The plan statistics' estimates in the summary CSV (empty without a plan).
std::vector<std::string> plan_csv_names() {
  return {"estimated_embedding_s",         "estimated_alltoall_fwd_s",
          "estimated_alltoall_bwd_s",      "estimated_degree_of_balance",
          "estimated_total_max_over_mean", "memory_gap_to_bound"};
}
std::vector<V> plan_csv_values(R r) {
  if (!r.plan_stats) return std::vector<V>(6);
  const PlanStats& st = *r.plan_stats;
  return {finite_value(st.estimated_embedding_s),   finite_value(st.alltoall_fwd_s),
          finite_value(st.alltoall_bwd_s),          finite_value(st.estimated_degree_of_balance),
          finite_value(st.total_s.max_over_mean()), finite_value(st.memory_bytes.gap_to_bound())};
}

bool has_cost(R r) {
  return r.cost.has_value();
}
bool has_epoch(R r) {
  return r.cost && r.cost->dataset_samples > 0;
}

double sum_comm_sent_bytes(R r) {
  double total = 0;
  for (const GpuReport& g : r.per_gpu) total += g.comm_sent_bytes;
  return total;
}
double most_comm_gpu_bytes(R r) {
  double most = 0;
  for (const GpuReport& g : r.per_gpu)
    most = std::max(most, g.comm_sent_bytes + g.comm_received_bytes);
  return most;
}

// One row a field, packed by hand (docs/architecture.md, "Add a report field").
// clang-format off
constexpr ReportField kFields[] = {
    // --- identity and set-up ---
    {.path = "scenario", .type = FieldType::string, .section = "setup", .needs = FieldNeeds::always,
     .description = "the scenario's name", .value = [](R r) { return text_of(r.scenario); },
     .csv_name = "scenario", .csv = CsvColumn::always},
    {.path = "scenario_source", .type = FieldType::string, .section = "setup",
     .needs = FieldNeeds::always, .description = "the scenario file (or \"built-in default\")",
     .value = [](R r) { return text_of(r.scenario_source); }},
    {.path = "planner", .type = FieldType::string, .section = "setup", .needs = FieldNeeds::always,
     .description = "the planner that made the plan",
     .value = [](R r) { return text_of(r.planner); }, .csv_name = "planner",
     .csv = CsvColumn::always, .text_label = "planner", .text = TextFormat::text},
    {.path = "sweep_point", .type = FieldType::string, .section = "setup",
     .needs = FieldNeeds::always, .description = "the sweep point's label (only in a sweep)",
     .value = [](R r) { return text_of(r.sweep_point); },
     .present = [](R r) { return !r.sweep_point.empty(); }, .csv_name = "sweep_point",
     .csv = CsvColumn::always, .text_label = "sweep point", .text = TextFormat::text},
    {.path = "mode", .type = FieldType::string, .section = "setup", .needs = FieldNeeds::always,
     .description = "training or inference", .value = [](R r) { return text_of(r.mode); },
     .csv_name = "mode", .csv = CsvColumn::always, .setup = true},
    {.path = "preset", .type = FieldType::string, .section = "setup", .needs = FieldNeeds::always,
     .description = "the hardware preset", .value = [](R r) { return text_of(r.preset); },
     .csv_name = "preset", .csv = CsvColumn::always, .setup = true},
    {.path = "num_gpus", .type = FieldType::integer, .unit = "count", .section = "setup",
     .needs = FieldNeeds::always, .description = "GPUs in the cluster",
     .value = [](R r) { return int_of(r.num_gpus); }, .csv_name = "num_gpus",
     .csv = CsvColumn::always, .setup = true},
    {.path = "num_nodes", .type = FieldType::integer, .unit = "count", .section = "setup",
     .needs = FieldNeeds::always, .description = "nodes in the cluster",
     .value = [](R r) { return int_of(r.num_nodes); }, .csv_name = "num_nodes",
     .csv = CsvColumn::always, .setup = true},
    {.path = "num_tables", .type = FieldType::integer, .unit = "count", .section = "setup",
     .needs = FieldNeeds::always, .description = "embedding tables of the model",
     .value = [](R r) { return int_of(r.num_tables); }, .csv_name = "num_tables",
     .csv = CsvColumn::always, .setup = true},
    {.path = "iterations", .type = FieldType::integer, .unit = "count", .section = "setup",
     .needs = FieldNeeds::always, .description = "measured iterations",
     .value = [](R r) { return int_of(r.iterations); }, .csv_name = "iterations",
     .csv = CsvColumn::always, .setup = true},
    {.path = "warmup", .type = FieldType::integer, .unit = "count", .section = "setup",
     .needs = FieldNeeds::always, .description = "warm-up iterations before the measured ones",
     .value = [](R r) { return int_of(r.warmup); }, .csv_name = "warmup", .csv = CsvColumn::always,
     .setup = true},
    {.path = "global_batch", .type = FieldType::integer, .unit = "samples", .section = "setup",
     .needs = FieldNeeds::always, .description = "samples per iteration over all GPUs",
     .value = [](R r) { return uint_of(r.global_batch); }, .csv_name = "global_batch",
     .csv = CsvColumn::always, .setup = true},
    {.path = "bottom_mlp_gpu", .type = FieldType::integer, .section = "setup",
     .needs = FieldNeeds::always,
     .description = "the GPU that ran the bottom MLP for the global batch (absent: data parallel)",
     .value = [](R r) { return int_of(r.bottom_mlp_gpu); },
     .present = [](R r) { return r.bottom_mlp_gpu >= 0; }, .setup = true,
     .setup_absent = "data parallel"},
    {.path = "seed", .type = FieldType::integer, .section = "setup", .needs = FieldNeeds::always,
     .description = "the workload's random seed", .value = [](R r) { return uint_of(r.seed); },
     .csv_name = "seed", .csv = CsvColumn::always},
    // --- the answer ---
    {.path = "fits_in_memory", .type = FieldType::boolean, .section = "memory",
     .needs = FieldNeeds::always,
     .description = "every GPU's memory (and each node's host memory) holds its part of the plan",
     .value = [](R r) { return V(r.fits_in_memory); }, .csv_name = "fits_in_memory",
     .csv = CsvColumn::always, .text_label = "fits", .text = TextFormat::yes_no,
     .compare = CompareSpec{MetricId::fits_in_memory, "fits_in_memory",
                            "every GPU's memory fits", Better::higher, MetricUnit::flag, 0.0, false}},
    {.path = "fit_error", .type = FieldType::string, .section = "memory",
     .needs = FieldNeeds::always,
     .description = "why the plan does not fit (the GPU, the bytes, the capacity); null when it "
                     "fits",
     .value = [](R r) { return r.fits_in_memory ? V() : text_of(r.fit_error); }, .nullable = true,
     .csv_name = "fit_error", .csv = CsvColumn::always},
    {.path = "iteration_time_s", .type = FieldType::object, .unit = "s", .section = "timing",
     .needs = FieldNeeds::timing, .description = "iteration time over the measured iterations"},
    {.path = "iteration_time_s.mean", .type = FieldType::number, .unit = "s", .section = "timing",
     .needs = FieldNeeds::timing, .description = "mean iteration time",
     .value = [](R r) { return finite_value(r.iteration_time.mean_s); }, .nullable = true,
     .csv_name = "iteration_mean_s", .csv = CsvColumn::always, .text_label = "iteration ms",
     .text = TextFormat::ms,
     .compare = CompareSpec{MetricId::iteration_time_mean_s, "iteration_time_mean_s",
                            "mean iteration time", Better::lower, MetricUnit::seconds, 0.01, false}},
    {.path = "iteration_time_s.p50", .type = FieldType::number, .unit = "s", .section = "timing",
     .needs = FieldNeeds::timing, .description = "median iteration time",
     .value = [](R r) { return finite_value(r.iteration_time.p50_s); }, .nullable = true,
     .csv_name = "iteration_p50_s", .csv = CsvColumn::always},
    {.path = "iteration_time_s.p99", .type = FieldType::number, .unit = "s", .section = "timing",
     .needs = FieldNeeds::timing, .description = "99th-percentile iteration time",
     .value = [](R r) { return finite_value(r.iteration_time.p99_s); }, .nullable = true,
     .csv_name = "iteration_p99_s", .csv = CsvColumn::always,
     .compare = CompareSpec{MetricId::iteration_time_p99_s, "iteration_time_p99_s",
                            "p99 iteration time", Better::lower, MetricUnit::seconds, 0.02, false}},
    {.path = "iteration_time_s.min", .type = FieldType::number, .unit = "s", .section = "timing",
     .needs = FieldNeeds::timing, .description = "shortest iteration",
     .value = [](R r) { return finite_value(r.iteration_time.min_s); }, .nullable = true,
     .csv_name = "iteration_min_s", .csv = CsvColumn::always},
    {.path = "iteration_time_s.max", .type = FieldType::number, .unit = "s", .section = "timing",
     .needs = FieldNeeds::timing, .description = "longest iteration",
     .value = [](R r) { return finite_value(r.iteration_time.max_s); }, .nullable = true,
     .csv_name = "iteration_max_s", .csv = CsvColumn::always},
    {.path = "iteration_times_s", .type = FieldType::array, .unit = "s", .section = "timing",
     .needs = FieldNeeds::timing, .description = "each measured iteration's time",
     .json_schema = kTimesSchema},
    {.path = "qps", .type = FieldType::number, .unit = "samples/s", .section = "timing",
     .needs = FieldNeeds::timing,
     .description = "samples per second: global batch / mean iteration",
     .value = [](R r) { return finite_value(r.qps); }, .nullable = true, .csv_name = "qps",
     .csv = CsvColumn::always, .text_label = "QPS", .text = TextFormat::thousands,
     .compare = CompareSpec{MetricId::qps, "qps",
                            "samples per second", Better::higher, MetricUnit::per_second, 0.01, false}},
    {.path = "scaling_factor", .type = FieldType::number, .unit = "ratio", .section = "timing",
     .needs = FieldNeeds::timing,
     .description = "QPS speed-up over the sweep's first point of the same planner and seed, "
                     "divided by the GPU-count multiplier (2D §4.3); null without such a point",
     .value = [](R r) { return finite_value(r.scaling_factor); }, .nullable = true,
     .csv_name = "scaling_factor", .csv = CsvColumn::always, .text_label = "scaling %",
     .text = TextFormat::percent, .text_when_any = true},
    {.path = "price_per_gpu_hour", .type = FieldType::number, .unit = "price", .section = "cost",
     .needs = FieldNeeds::always,
     .description = "cluster.price_per_gpu_hour as given (only with a price)",
     .value = [](R r) { return finite_value(r.cost->price_per_gpu_hour); }, .present = has_cost,
     .csv_name = "price_per_gpu_hour", .csv = CsvColumn::when_any},
    {.path = "cost_per_million_samples", .type = FieldType::number, .unit = "price",
     .section = "cost", .needs = FieldNeeds::always,
     .description = "price x GPUs x (10^6 / QPS) / 3600 (only with a price; null when not "
                     "simulated)",
     .value = [](R r) { return finite_value(r.cost->cost_per_million_samples); },
     .present = has_cost, .nullable = true, .csv_name = "cost_per_million_samples",
     .csv = CsvColumn::when_any},
    {.path = "dataset_samples", .type = FieldType::integer, .unit = "samples", .section = "cost",
     .needs = FieldNeeds::always,
     .description = "workload.dataset_samples (only with a price and a dataset size)",
     .value = [](R r) { return uint_of(r.cost->dataset_samples); }, .present = has_epoch},
    {.path = "cost_per_epoch", .type = FieldType::number, .unit = "price", .section = "cost",
     .needs = FieldNeeds::always,
     .description = "price x GPUs x (dataset_samples / QPS) / 3600 (only with a price and a "
                     "dataset size)",
     .value = [](R r) { return finite_value(r.cost->cost_per_epoch); }, .present = has_epoch,
     .nullable = true, .csv_name = "cost_per_epoch", .csv = CsvColumn::when_any},
    {.path = "imbalance_ratio", .type = FieldType::number, .unit = "ratio", .section = "balance",
     .needs = FieldNeeds::timing,
     .description = "max / mean embedding lookup time over GPUs (2D §4.2; 1.0 is perfect)",
     .value = [](R r) { return finite_value(r.imbalance_ratio); }, .nullable = true,
     .csv_name = "imbalance_ratio", .csv = CsvColumn::always, .text_label = "imbalance",
     .text = TextFormat::ratio,
     .compare = CompareSpec{MetricId::imbalance_ratio, "imbalance_ratio",
                            "max/mean lookup time over GPUs", Better::lower, MetricUnit::ratio, 0.02, false}},
    {.path = "busy_imbalance_ratio", .type = FieldType::number, .unit = "ratio",
     .section = "balance", .needs = FieldNeeds::timing,
     .description = "max / mean busy time over GPUs",
     .value = [](R r) { return finite_value(r.busy_imbalance_ratio); }, .nullable = true,
     .csv_name = "busy_imbalance_ratio", .csv = CsvColumn::always},
    {.path = "degree_of_balance", .type = FieldType::number, .unit = "ratio", .section = "balance",
     .needs = FieldNeeds::plan,
     .description = "DoB: min / max per-GPU communication cost (OPER Table 3; 1.0 is perfect)",
     .value = [](R r) { return finite_value(r.degree_of_balance); }, .nullable = true,
     .csv_name = "degree_of_balance", .csv = CsvColumn::always, .text_label = "DoB",
     .text = TextFormat::ratio,
     .compare = CompareSpec{MetricId::degree_of_balance, "degree_of_balance",
                            "DoB: min/max communication cost", Better::higher, MetricUnit::ratio, 0.02, false}},
    {.path = "critical_gpu", .type = FieldType::integer, .section = "timing",
     .needs = FieldNeeds::timing,
     .description = "the GPU with the most busy time (ties: the lowest id), whose iteration the "
                     "breakdown shows",
     .value = [](R r) { return int_of(r.critical_gpu); }, .csv_name = "critical_gpu",
     .csv = CsvColumn::always},
    {.path = "bottleneck", .type = FieldType::object, .section = "timing",
     .needs = FieldNeeds::timing,
     .description = "what bounds the iteration: the kind of work with the largest exposed time on "
                    "the critical GPU (docs/report.md, \"The brief\")"},
    {.path = "bottleneck.kind", .type = FieldType::string, .section = "timing",
     .needs = FieldNeeds::timing,
     .description = "alltoall, embedding, dense, mlp_allreduce, replica_allreduce, replica_sync, "
                    "input_alltoall, host, input_ingest or idle",
     .value = [](R r) { const auto b = report_bottleneck(r); return b ? text_of(b->kind) : V(); },
     .nullable = true, .csv_name = "bottleneck", .csv = CsvColumn::always},
    {.path = "bottleneck.label", .type = FieldType::string, .section = "timing",
     .needs = FieldNeeds::timing, .description = "the kind, for people",
     .value = [](R r) { const auto b = report_bottleneck(r); return b ? text_of(b->label) : V(); },
     .nullable = true},
    {.path = "bottleneck.exposed_s", .type = FieldType::number, .unit = "s", .section = "timing",
     .needs = FieldNeeds::timing, .description = "its exposed time per iteration",
     .value = [](R r) { const auto b = report_bottleneck(r); return b ? finite_value(b->exposed_s) : V(); },
     .nullable = true},
    {.path = "bottleneck.share", .type = FieldType::number, .unit = "ratio", .section = "timing",
     .needs = FieldNeeds::timing, .description = "exposed_s / the mean iteration time",
     .value = [](R r) { const auto b = report_bottleneck(r); return b ? finite_value(b->share) : V(); },
     .nullable = true, .csv_name = "bottleneck_share", .csv = CsvColumn::always},
    {.path = "#bound_by", .type = FieldType::string, .section = "timing", .needs = FieldNeeds::timing,
     .description = "the brief's bottleneck: \"LABEL N%\" or \"host-bound: ...\"",
     .value = [](R r) { return text_of(bottleneck_text(r)); }, .nullable = true,
     .text_label = "bound by", .text = TextFormat::plain},
    {.path = "breakdown_s", .type = FieldType::object, .unit = "s", .section = "timing",
     .needs = FieldNeeds::timing, .description = "the critical GPU's iteration by phase",
     .json_schema = kBreakdownSchema, .csv_names = breakdown_csv_names,
     .csv_values = breakdown_csv_values},
    {.path = "phase_max_s", .type = FieldType::object, .unit = "s", .section = "timing",
     .needs = FieldNeeds::timing,
     .description = "per phase, the most any GPU spent in it (2D Fig. 6)",
     .json_schema = kPhaseMaxSchema},
    {.path = "link_utilization", .type = FieldType::array, .unit = "ratio",
     .section = "communication", .needs = FieldNeeds::timing,
     .description = "how busy each class of links was (empty when link sharing is off)",
     .json_schema = kLinksSchema},
    {.path = "planning_time_s", .type = FieldType::number, .unit = "s", .section = "provenance",
     .needs = FieldNeeds::always,
     .description = "the planner's wall time; null unless recorded with --timings",
     .value = [](R r) { return finite_value(r.planning_time_s); }, .nullable = true,
     .csv_name = "planning_time_s", .csv = CsvColumn::always,
     .compare = CompareSpec{MetricId::planning_time_s, "planning_time_s",
                            "planner wall time", Better::lower, MetricUnit::seconds, 0.5, true}},
    // --- memory ---
    {.path = "memory_bytes", .type = FieldType::object, .unit = "bytes", .section = "memory",
     .needs = FieldNeeds::always, .description = "memory per GPU (HBM)"},
    {.path = "memory_bytes.max", .type = FieldType::number, .unit = "bytes", .section = "memory",
     .needs = FieldNeeds::always, .description = "peak memory over GPUs",
     .value = [](R r) { return finite_value(r.memory_max_bytes); }, .nullable = true,
     .csv_name = "memory_max_bytes", .csv = CsvColumn::always, .text_label = "peak memory GB",
     .text = TextFormat::gb,
     .compare = CompareSpec{MetricId::memory_max_bytes, "memory_max_bytes",
                            "peak memory over GPUs", Better::lower, MetricUnit::bytes, 0.01, false}},
    {.path = "memory_bytes.mean", .type = FieldType::number, .unit = "bytes", .section = "memory",
     .needs = FieldNeeds::plan, .description = "mean memory over GPUs",
     .value = [](R r) { return finite_value(r.memory_mean_bytes); }, .nullable = true,
     .csv_name = "memory_mean_bytes", .csv = CsvColumn::always},
    {.path = "memory_bytes.capacity", .type = FieldType::number, .unit = "bytes",
     .section = "memory", .needs = FieldNeeds::always, .description = "one GPU's usable HBM",
     .value = [](R r) { return finite_value(r.memory_capacity_bytes); }, .nullable = true,
     .csv_name = "memory_capacity_bytes", .csv = CsvColumn::always},
    {.path = "memory_bytes.per_gpu", .type = FieldType::array, .unit = "bytes", .section = "memory",
     .needs = FieldNeeds::always, .description = "each GPU's memory",
     .json_schema = kMemoryPerGpuSchema},
    {.path = "worst_memory_gpu", .type = FieldType::integer, .section = "memory",
     .needs = FieldNeeds::always, .description = "the GPU whose memory peaks",
     .value = [](R r) { return int_of(r.worst_memory_gpu); }, .csv_name = "worst_memory_gpu",
     .csv = CsvColumn::always},
    // --- communication ---
    {.path = "comm_total_bytes", .type = FieldType::number, .unit = "bytes",
     .section = "communication", .needs = FieldNeeds::plan,
     .description = "bytes sent per iteration over all GPUs (forward + backward)",
     .value = [](R r) { return finite_value(sum_comm_sent_bytes(r)); }, .nullable = true,
     .csv_name = "comm_total_bytes", .csv = CsvColumn::always,
     .compare = CompareSpec{MetricId::comm_total_bytes, "comm_total_bytes",
                            "bytes sent per iteration, all GPUs", Better::lower, MetricUnit::bytes, 0.01, false}},
    {.path = "comm_max_gpu_bytes", .type = FieldType::number, .unit = "bytes",
     .section = "communication", .needs = FieldNeeds::plan,
     .description = "the most bytes one GPU sends + receives per iteration",
     .value = [](R r) { return finite_value(most_comm_gpu_bytes(r)); }, .nullable = true,
     .csv_name = "comm_max_gpu_bytes", .csv = CsvColumn::always,
     .compare = CompareSpec{MetricId::comm_max_gpu_bytes, "comm_max_gpu_bytes",
                            "most bytes one GPU sends + receives per iteration", Better::lower, MetricUnit::bytes, 0.01, false}},
    {.path = "balance", .type = FieldType::object, .section = "balance",
     .needs = FieldNeeds::always,
     .description = "memory, lookup and communication spread over GPUs (OPER §6.4)",
     .json_schema = kBalanceSchema},
    {.path = "per_gpu", .type = FieldType::array, .section = "per_gpu", .needs = FieldNeeds::always,
     .description = "one object per GPU (empty without a plan)", .json_schema = kPerGpuSchema},
    {.path = "groups", .type = FieldType::array, .section = "groups", .needs = FieldNeeds::always,
     .description = "2D sparse-parallel groups", .json_schema = kGroupsSchema},
    {.path = "replica_sync", .type = FieldType::object, .section = "groups",
     .needs = FieldNeeds::always, .description = "2D replica synchronisation",
     .json_schema = kReplicaSyncSchema},
    {.path = "pruning", .type = FieldType::object, .section = "model", .needs = FieldNeeds::always,
     .description = "frequency pruning of the model's tables",
     .present = [](R r) { return r.pruning.has_value(); }, .json_schema = kPruningSchema},
    {.path = "comm_bytes", .type = FieldType::object, .unit = "bytes", .section = "communication",
     .needs = FieldNeeds::always, .description = "the communication matrices",
     .json_schema = kCommBytesSchema},
    {.path = "input_hashes", .type = FieldType::object, .section = "provenance",
     .needs = FieldNeeds::always, .description = "the inputs that produced the report",
     .json_schema = kInputHashesSchema},
    {.path = "scenario_values", .type = FieldType::object, .section = "provenance",
     .needs = FieldNeeds::always,
     .description = "the resolved scenario, after every --set and the sweep point's values, as "
                    "dotted keys and their values (a list of over 64 entries: its length and "
                    "hash); `shardsim diff` compares them",
     .json_schema = kScenarioValuesSchema},
    {.path = "plan_stats", .type = FieldType::object, .section = "plan",
     .needs = FieldNeeds::always, .description = "plan statistics", .json_schema = kPlanStatsSchema,
     .csv_names = plan_csv_names, .csv_values = plan_csv_values},
    // --- CSV-only columns, derived from structured fields ---
    {.path = "#num_groups", .type = FieldType::integer, .unit = "count", .section = "groups",
     .needs = FieldNeeds::always, .description = "sparse-parallel groups (1 without 2D groups)",
     .value = [](R r) {
       return int_of(r.groups.empty() ? 1 : static_cast<long long>(r.groups.size()));
     },
     .csv_name = "num_groups", .csv = CsvColumn::always},
    {.path = "#replica_sync_s", .type = FieldType::number, .unit = "s", .section = "groups",
     .needs = FieldNeeds::timing, .description = "replica_sync.simulated_s",
     .value = [](R r) { return r.replica_sync ? finite_value(r.replica_sync->simulated_s) : V(); },
     .nullable = true, .csv_name = "replica_sync_s", .csv = CsvColumn::always},
    // --- provenance ---
    {.path = "schema_version", .type = FieldType::string, .section = "provenance",
     .needs = FieldNeeds::always,
     .description = "the report schema's version, MAJOR.MINOR (CHANGELOG.md)",
     .value = [](R) { return V(std::string(kReportSchemaVersion)); }, .csv_name = "schema_version",
     .csv = CsvColumn::always},
    {.path = "shardsim_version", .type = FieldType::string, .section = "provenance",
     .needs = FieldNeeds::always, .description = "the shardsim that produced the numbers",
     .value = [](R r) {
       return text_of(r.shardsim_version.empty() ? std::string(SHARDSIM_VERSION)
                                                 : r.shardsim_version);
     },
     .csv_name = "shardsim_version", .csv = CsvColumn::always},
};
// clang-format on

// The compare rows name the metrics 0, 1, 2, ... in table order (MetricId's order).
constexpr bool metrics_in_id_order() {
  std::size_t next = 0;
  for (const ReportField& f : kFields) {
    if (!f.compare) continue;
    if (index_of(f.compare->id) != next) return false;
    ++next;
  }
  return next == kMetricCount;
}
static_assert(metrics_in_id_order(),
              "report_schema: the rows with a compare spec must name every MetricId, in order");

std::vector<MetricInfo> build_metrics() {
  std::vector<MetricInfo> out;
  for (const ReportField& f : kFields) {
    if (!f.compare) continue;
    const CompareSpec& c = *f.compare;
    out.push_back(MetricInfo{c.id, c.name, c.description, c.better, c.unit, c.default_tolerance,
                             c.only_when_both});
  }
  return out;
}

}  // namespace

std::span<const ReportField> report_fields() {
  return kFields;
}

const ReportField* find_report_field(std::string_view path) {
  for (const ReportField& f : kFields) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

bool report_meets(const Report& r, FieldNeeds needs) {
  switch (needs) {
    case FieldNeeds::always:
      return true;
    case FieldNeeds::plan:
      return !r.per_gpu.empty();
    case FieldNeeds::timing:
      return r.fits_in_memory;
  }
  return true;
}

std::vector<const ReportField*> child_fields(std::string_view parent) {
  std::vector<const ReportField*> out;
  for (const ReportField& f : kFields) {
    if (f.path.size() > parent.size() + 1 && f.path.substr(0, parent.size()) == parent &&
        f.path[parent.size()] == '.') {
      out.push_back(&f);
    }
  }
  return out;
}

FieldValue finite_value(double v) {
  return std::isfinite(v) ? FieldValue(v) : FieldValue();
}

std::span<const MetricInfo> comparison_metrics() {
  static const std::vector<MetricInfo> metrics = build_metrics();
  return metrics;
}

const MetricInfo& metric_info(MetricId id) {
  const std::size_t i = index_of(id);
  if (i >= comparison_metrics().size()) throw std::logic_error("metric_info: not a metric");
  return comparison_metrics()[i];
}

const MetricInfo* find_metric(std::string_view name) {
  for (const MetricInfo& m : comparison_metrics()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace shardsim
