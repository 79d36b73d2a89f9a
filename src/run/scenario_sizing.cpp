// `shardsim size` on a scenario file (run/scenario_sizing.hpp).
#include "shardsim/run/scenario_sizing.hpp"

#include <fmt/format.h>

#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/io/scenario_loader.hpp"
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
    if (o.fits) {
      o.qps = r.qps;
      o.iteration_s = r.iteration_time.mean_s;
    }
    if (r.cost) o.cost_per_million_samples = r.cost->cost_per_million_samples;
    probe.planners.push_back(std::move(o));
  }
  return probe;
}

}  // namespace

ScenarioSizing size_scenario(const SizingRequest& request) {
  ScenarioDocument doc = ScenarioDocument::load(request.path, request.overrides);
  if (doc.has_sweep()) {
    log_warn("{}: has a sweep block; `size` ignores it (it chooses the node counts itself)",
             doc.file());
    doc = doc.without_sweep();
  }
  const std::vector<ScenarioDocument> docs = preset_documents(doc, request.presets);
  std::vector<HardwarePreset> presets;
  ScenarioSizing out;
  out.source = doc.file();
  out.global_batch = written_global_batch(doc);
  for (const ScenarioDocument& d : docs) {
    presets.push_back(load_scenario_preset(d));
    out.presets.push_back(presets.back().name);
  }

  SizingProblem problem;
  problem.presets = out.presets;
  problem.max_nodes = request.max_nodes;
  problem.target = request.target;
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
    const Scenario sc = load_scenario_at_point(
        docs[p].with_overrides({Override{"cluster.nodes", std::to_string(nodes)}}), label);
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
    check_runs(std::span<const Scenario>(&sc, 1), RunShape{request.jobs, false}, request.limits,
               sc.source);
    log_debug("size: probing {}", label);
    return probe_of(sc, run_scenario(sc, RunOptions{label, false, {}}));
  };
  out.result = request.exhaustive ? size_brute_force(problem, request.jobs)
                                  : size_search(problem, request.jobs);
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
  out.scenario = first.name;
  out.priced = first.cluster.price_per_gpu_hour > 0;
  return out;
}

}  // namespace shardsim
