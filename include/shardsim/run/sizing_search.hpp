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
#include <optional>
#include <string>
#include <vector>

#include "shardsim/io/sizing_report.hpp"

namespace shardsim {

// Whether `o` fits and meets every bound of `target`.
bool meets_target(const PlannerOutcome& o, const SizingTarget& target);

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

// Galloping and bisection per preset; presets searched `jobs` at a time (the result does not
// depend on it). Logs one line per probe (info: its preset, node count and each planner's QPS or
// "does not fit"), and the presets searched when it takes longer than 2 s. Sets the result's
// answer, bound and runner-up.
SizingResult size_search(const SizingProblem& problem, int jobs = 1);
// Every probe-able node count of every preset: the reference the search must equal.
SizingResult size_brute_force(const SizingProblem& problem, int jobs = 1);

// The answer among `probes` (as SizingResult::answer).
std::optional<SizingAnswer> choose_sizing_answer(const std::vector<SizingProbe>& probes);
// The best passing outcome whose preset/planner combination differs from `answer`'s.
std::optional<SizingAnswer> choose_runner_up(const std::vector<SizingProbe>& probes,
                                             const SizingAnswer& answer);
// What decided `answer`'s node count (SizingBound): the probe of its preset at the largest node
// count probed below it, and why that one fails `target`.
SizingBound sizing_bound(const std::vector<SizingProbe>& probes, const SizingAnswer& answer,
                         const SizingTarget& target);

}  // namespace shardsim
