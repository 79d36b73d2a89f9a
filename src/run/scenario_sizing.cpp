// `shardsim size` on a scenario file (run/scenario_sizing.hpp).
#include "shardsim/run/scenario_sizing.hpp"

#include "shardsim/io/trust_figures.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>

#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/metrics/bottleneck.hpp"
#include "shardsim/run/run_scenario.hpp"
#include "shardsim/run/scenario_runs.hpp"

namespace shardsim {

namespace {

// The document of each preset searched: the scenario with `cluster.preset` set by --presets.
std::vector<ScenarioDocument> preset_documents(const ScenarioDocument& doc,
                                               const std::vector<std::string>& presets) {
  if (presets.empty()) return {doc};
  const YamlValue& root = doc.root();
  root.expect_map();
  if (auto c = root.find("cluster"); c && c->is_map() && c->has("preset_file")) {
    throw c->get("preset_file")
        .error(
            "--presets replaces cluster.preset, but the scenario names its hardware by a "
            "preset file",
            "use cluster.preset in the scenario, or drop --presets to size its own preset");
  }
  std::vector<ScenarioDocument> docs;
  for (const std::string& name : presets) {
    builtin_preset(name, SourceLocation{"--presets"}, "--presets");  // unknown: "did you mean"
    docs.push_back(doc.with_overrides({Override{"cluster.preset", name}}));
  }
  return docs;
}

std::string probe_label(const std::string& preset, int nodes) {
  return fmt::format("cluster.preset={},cluster.nodes={}", preset, nodes);
}

SizingProbe probe_of(const Scenario& sc, const std::vector<Report>& reports) {
  SizingProbe probe;
  probe.nodes = sc.cluster.nodes;
  probe.gpus = sc.cluster.nodes * sc.cluster.preset.gpus_per_node;
  probe.batch_per_gpu = sc.workload.batch_per_gpu;
  for (const Report& r : reports) {
    PlannerOutcome o;
    o.planner = r.planner;
    o.fits = r.fits_in_memory && !r.iteration_times_s.empty();
    o.memory_max_bytes = r.memory_max_bytes;
    o.memory_capacity_bytes = r.memory_capacity_bytes;
    if (o.fits) {
      o.qps = r.qps;
      o.iteration_s = r.iteration_time.mean_s;
      if (const std::optional<Bottleneck> b = report_bottleneck(r)) {
        o.bottleneck_kind = b->kind;
        o.bottleneck = bottleneck_text(r);
        o.bottleneck_share = b->share;
      }
    }
    if (r.cost) o.cost_per_million_samples = r.cost->cost_per_million_samples;
    probe.planners.push_back(std::move(o));
  }
  return probe;
}

// The documents a sizing search probes: the scenario (without its sweep block) and one document
// per preset searched, with the presets themselves.
struct SizingInputs {
  ScenarioDocument doc;
  std::vector<ScenarioDocument> docs;
  std::vector<HardwarePreset> presets;
  std::vector<std::string> names;
};

SizingInputs sizing_inputs(const SizingRequest& request) {
  ScenarioDocument doc =
      request.text ? ScenarioDocument::parse(*request.text, request.path, request.overrides)
                   : ScenarioDocument::load(request.path, request.overrides);
  if (doc.has_sweep()) {
    log_warn("{}: has a sweep block; `size` ignores it (it chooses the node counts itself)",
             doc.file());
    doc = doc.without_sweep();
  }
  std::vector<ScenarioDocument> docs = preset_documents(doc, request.presets);
  SizingInputs in{std::move(doc), std::move(docs), {}, {}};
  for (const ScenarioDocument& d : in.docs) {
    in.presets.push_back(load_scenario_preset(d));
    in.names.push_back(in.presets.back().name);
  }
  return in;
}

// The probe of preset `p` at `nodes`, loaded.
Scenario probe_scenario(const SizingInputs& in, std::size_t p, int nodes) {
  return load_scenario_at_point(
      in.docs[p].with_overrides({Override{"cluster.nodes", std::to_string(nodes)}}),
      probe_label(in.names[p], nodes));
}

std::uint64_t probe_run(const SizingRequest& request, std::size_t p, int nodes) {
  return p * (static_cast<std::uint64_t>(request.max_nodes) + 1) +
         static_cast<std::uint64_t>(nodes);
}

// --margin: a percentage >= 0, and only with a QPS or iteration-time target to scale.
void check_margin(const SizingRequest& request) {
  const SourceLocation where{"shardsim size"};
  if (!std::isfinite(request.margin_pct) || request.margin_pct < 0) {
    throw InputError(where, "--margin",
                     fmt::format("a margin of {}%: expected a percentage >= 0", request.margin_pct),
                     "e.g. --margin 15 sizes for the target + 15%");
  }
  if (request.margin_pct > 0 && !request.target.min_qps && !request.target.max_iteration_s) {
    throw InputError(where, "--margin",
                     "a margin scales the QPS or iteration-time target, and there is none",
                     "add --target-qps X or --max-iteration-ms M, or drop --margin");
  }
}

}  // namespace

RunLoader sizing_run_loader(const SizingRequest& request) {
  struct Inputs {
    std::once_flag once;
    std::optional<SizingInputs> in;
    std::exception_ptr error;
  };
  auto inputs = std::make_shared<Inputs>();
  return [request, inputs](std::uint64_t run) {
    std::call_once(inputs->once, [&] {
      try {
        inputs->in = sizing_inputs(request);
      } catch (...) {
        inputs->error = std::current_exception();
      }
    });
    if (inputs->error) std::rethrow_exception(inputs->error);
    const auto per_preset = static_cast<std::uint64_t>(request.max_nodes) + 1;
    const std::size_t p = static_cast<std::size_t>(run / per_preset);
    const int nodes = static_cast<int>(run % per_preset);
    if (p >= inputs->in->docs.size() || nodes < 1) {
      throw std::runtime_error(fmt::format("rank 0 handed out probe {}, which is not one", run));
    }
    Scenario sc = probe_scenario(*inputs->in, p, nodes);
    PlanGuard guard =
        check_runs(std::span<const Scenario>(&sc, 1), RunShape{}, request.limits, sc.source);
    return LoadedRun{std::move(sc), probe_label(inputs->in->names[p], nodes), std::move(guard)};
  };
}

ScenarioSizing size_scenario(const SizingRequest& request) {
  check_margin(request);
  const WarningTally tally;  // each probe's warnings once, with a count
  const SizingInputs inputs = sizing_inputs(request);
  const ScenarioDocument& doc = inputs.doc;
  const std::vector<ScenarioDocument>& docs = inputs.docs;
  const std::vector<HardwarePreset>& presets = inputs.presets;
  ScenarioSizing out;
  out.source = doc.file();
  out.global_batch = written_global_batch(doc);
  out.presets = inputs.names;
  out.target = request.target;
  out.margin_pct = request.margin_pct;
  out.margin_source = request.margin_source;
  out.sized = with_margin(request.target, request.margin_pct);
  out.max_nodes = request.max_nodes;
  out.exhaustive = request.exhaustive;

  std::atomic<std::size_t> kept_probes{0}, simulated_probes{0};
  SizingProblem problem;
  problem.presets = out.presets;
  problem.max_nodes = request.max_nodes;
  problem.target = out.sized;
  problem.skip_reason = [&](std::size_t p, int nodes) -> std::string {
    const HardwarePreset& preset = presets[p];
    try {
      check_cluster_nodes(preset, nodes);
    } catch (const InputError& e) {
      return e.problem();
    }
    const auto gpus = static_cast<std::uint64_t>(nodes) * preset.gpus_per_node;
    if (out.global_batch > 0 && out.global_batch % gpus != 0) {
      return fmt::format("their GPUs ({} per node) do not divide the global batch {}",
                         preset.gpus_per_node, out.global_batch);
    }
    return {};
  };
  problem.evaluate = [&](std::size_t p, int nodes) {
    const std::string label = probe_label(out.presets[p], nodes);
    const Scenario sc = probe_scenario(inputs, p, nodes);
    if (!sc.placement.plan_file.empty()) {
      throw InputError(sc.placement.plan_file_location, "placement.file",
                       "`size` plans at every node count, but a plan file places the tables on "
                       "one cluster",
                       "remove placement.file (or size with its planner in placement.planner)");
    }
    if (sc.placement.planners.empty()) {
      throw InputError(SourceLocation{sc.source}, "placement.planner",
                       "`size` needs at least one planner", "add placement.planner");
    }
    const PlanGuard guard = check_runs(std::span<const Scenario>(&sc, 1),
                                       RunShape{request.jobs, false}, request.limits, sc.source);
    if (request.store != nullptr) {
      if (std::optional<std::vector<Report>> kept = request.store->load(sc, label)) {
        log_debug("size: {} taken from its checkpoint", label);
        ++kept_probes;
        return probe_of(sc, *kept);
      }
    }
    log_debug("size: probing {}", label);
    std::vector<Report> reports;
    if (request.executor == nullptr) {
      reports = run_scenario(sc, RunOptions{label, false, {}, guard});
    } else {
      const RunTask task{probe_run(request, p, nodes), &sc, label};
      request.executor->simulate(
          std::span<const RunTask>(&task, 1), false, guard,
          [&](std::size_t, std::vector<Report> r) { reports = std::move(r); });
    }
    if (request.store != nullptr) request.store->store(sc, label, reports);
    ++simulated_probes;
    return probe_of(sc, reports);
  };
  // Spread over an MPI job's ranks: every preset searched at once (these threads only wait) and
  // the brute force's probes of a preset all handed out at once; the ranks' slots bound the work.
  int search_jobs = request.jobs;
  if (request.executor != nullptr) {
    search_jobs = static_cast<int>(docs.size());
    problem.probes_at_once = std::max(1, request.probes_at_once);
  }
  out.result = request.exhaustive ? size_brute_force(problem, search_jobs)
                                  : size_search(problem, search_jobs);
  // The scenario's name and whether it is priced, from a probe (every probe shares them).
  const Scenario first = [&] {
    for (std::size_t p = 0; p < docs.size(); ++p) {
      for (int n = 1; n <= request.max_nodes; ++n) {
        if (problem.skip_reason(p, n).empty()) {
          return load_scenario(
              docs[p].with_overrides({Override{"cluster.nodes", std::to_string(n)}}));
        }
      }
    }
    return Scenario{};
  }();
  out.probes_kept = kept_probes.load();
  out.probes_simulated = simulated_probes.load();
  out.scenario = first.name;
  out.priced = first.cluster.price_per_gpu_hour > 0;
  return out;
}

SizingMargin default_sizing_margin() {
  const TrustFigures& t = builtin_trust_figures();
  return {std::round(1000 * t.median_abs_error) / 10,
          fmt::format("the measured median error of {} ({}); --margin 0 for none", t.kind, t.doc)};
}

}  // namespace shardsim
