#pragma once
// The sizing search of `shardsim size` (docs/report.md "Sizing"): the fewest GPUs, over the node
// counts of one or more presets, at which some planner reaches a target. A pure search over a
// callback `evaluate(preset, nodes)`, so that it can be checked against a brute force with fake
// evaluators; run/scenario_sizing.hpp gives it a scenario's simulations.
//
// Per preset: galloping over the node counts that can be probed (the first probe-able count at
// or above 1, 2, 4, 8, ..., then the largest), until one passes; then bisection between the last
// failing and the first passing probe. Assumes that passing is monotone in the node count (a
// count that passes has every larger one passing); under that assumption the answer equals
// size_brute_force's. Without it, the search returns a passing count whose next smaller
// probe-able count fails (a boundary, not necessarily the smallest): `exhaustive` probes every
// count instead.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace shardsim {

// What a planner must reach. Neither bound: fitting in memory is enough (`--fit`).
struct SizingTarget {
  std::optional<double> min_qps;          // --target-qps
  std::optional<double> max_iteration_s;  // --max-iteration-ms
};

// One planner's result at one probe.
struct PlannerOutcome {
  std::string planner;
  bool fits = false;  // the plan fits in memory (it was simulated)
  double qps = 0;     // 0 when not simulated
  double iteration_s = std::numeric_limits<double>::quiet_NaN();  // mean; NaN: not simulated
  double memory_max_bytes = 0;
  // At cluster.price_per_gpu_hour; NaN without a price or without timings.
  double cost_per_million_samples = std::numeric_limits<double>::quiet_NaN();
  bool meets = false;  // meets the target (set by the search)
};

// Whether `o` fits and meets every bound of `target`.
bool meets_target(const PlannerOutcome& o, const SizingTarget& target);

struct SizingProbe {
  std::size_t preset = 0;  // index into SizingProblem::presets
  int nodes = 0;
  int gpus = 0;
  std::uint32_t batch_per_gpu = 0;
  std::vector<PlannerOutcome> planners;  // in the scenario's order
  bool passes = false;                   // some planner meets the target
};

// The node counts of one preset that could not be probed, and why (the first reason).
struct SkippedNodes {
  std::vector<int> nodes;
  std::string reason;
};

struct SizingProblem {
  std::vector<std::string> presets;  // searched in this order (ties go to the earlier)
  int max_nodes = 128;
  SizingTarget target;
  // Why `nodes` of preset `p` cannot be probed (its GPUs do not divide the global batch, not
  // whole scale-up domains, ...); empty when it can. Cheap: it is asked for every count.
  std::function<std::string(std::size_t p, int nodes)> skip_reason;
  // The probe itself: every planner at `nodes` of preset `p` (gpus, batch and outcomes; `passes`
  // is set by the search). May be called from several threads at once (one per preset).
  std::function<SizingProbe(std::size_t p, int nodes)> evaluate;
  // How many probes of one preset the brute force evaluates at once (an MPI job: the ranks'
  // slots). The search's probes depend on each other and go one at a time.
  int probes_at_once = 1;
};

struct SizingAnswer {
  std::size_t probe = 0;    // index into SizingResult::probes
  std::size_t planner = 0;  // index into that probe's planners
};

struct SizingResult {
  std::vector<SizingProbe> probes;    // every probe made, by preset then node count
  std::vector<SkippedNodes> skipped;  // per preset
  // Fewest GPUs; ties: higher QPS, then the planner's order, then the preset's. None: no probe
  // passes.
  std::optional<SizingAnswer> answer;
};

// Galloping and bisection per preset; presets searched `jobs` at a time (the result does not
// depend on it). Logs progress when it takes longer than 2 s.
SizingResult size_search(const SizingProblem& problem, int jobs = 1);
// Every probe-able node count of every preset: the reference the search must equal.
SizingResult size_brute_force(const SizingProblem& problem, int jobs = 1);

// The answer among `probes` (as SizingResult::answer).
std::optional<SizingAnswer> choose_sizing_answer(const std::vector<SizingProbe>& probes);

// "3, 5-7, 9-15": sorted node counts as ranges.
std::string node_ranges(const std::vector<int>& nodes);

}  // namespace shardsim
