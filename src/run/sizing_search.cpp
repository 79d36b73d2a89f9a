// The sizing search (run/sizing_search.hpp).
#include "shardsim/run/sizing_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>

#include "shardsim/core/log.hpp"
#include "shardsim/core/parallel_for.hpp"

namespace shardsim {

bool meets_target(const PlannerOutcome& o, const SizingTarget& target) {
  if (!o.fits) return false;
  if (target.min_qps && !(o.qps >= *target.min_qps)) return false;
  if (target.max_iteration_s && !(o.iteration_s <= *target.max_iteration_s)) return false;
  return true;
}

namespace {

// One preset's probes, each node count at most once.
class PresetProber {
 public:
  PresetProber(const SizingProblem& problem, std::size_t preset)
      : problem_(problem), preset_(preset) {}

  bool passes(int nodes) { return passes(nodes, std::nullopt); }

  // With `evaluated`: the probe at `nodes` already made (by the brute force, several at once).
  bool passes(int nodes, std::optional<SizingProbe> evaluated) {
    auto it = probes_.find(nodes);
    if (it == probes_.end()) {
      SizingProbe probe = evaluated ? std::move(*evaluated) : problem_.evaluate(preset_, nodes);
      probe.preset = preset_;
      probe.nodes = nodes;
      probe.passes = false;
      for (PlannerOutcome& o : probe.planners) {
        o.meets = meets_target(o, problem_.target);
        probe.passes = probe.passes || o.meets;
      }
      log_debug("size: {} x {} nodes: {}", problem_.presets[preset_], nodes,
                probe.passes ? "passes" : "fails");
      it = probes_.emplace(nodes, std::move(probe)).first;
    }
    return it->second.passes;
  }

  std::size_t preset() const { return preset_; }

  std::vector<SizingProbe> take() {
    std::vector<SizingProbe> out;
    for (auto& [nodes, probe] : probes_) out.push_back(std::move(probe));
    return out;
  }

 private:
  const SizingProblem& problem_;
  std::size_t preset_;
  std::map<int, SizingProbe> probes_;  // by node count
};

// The node counts of `preset` in [1, max_nodes] that can be probed; the others into `skipped`.
std::vector<int> probe_able(const SizingProblem& problem, std::size_t preset,
                            SkippedNodes& skipped) {
  std::vector<int> valid;
  for (int n = 1; n <= problem.max_nodes; ++n) {
    std::string why = problem.skip_reason ? problem.skip_reason(preset, n) : std::string();
    if (why.empty()) {
      valid.push_back(n);
    } else {
      skipped.nodes.push_back(n);
      if (skipped.reason.empty()) skipped.reason = std::move(why);
    }
  }
  return valid;
}

// Galloping, then bisection, over the indices of `valid`.
void search_preset(const std::vector<int>& valid, PresetProber& prober) {
  if (valid.empty()) return;
  const auto last = static_cast<std::ptrdiff_t>(valid.size()) - 1;
  std::ptrdiff_t lo = -1;  // the last failing index
  std::ptrdiff_t hi = -1;  // the first passing index
  std::int64_t t = 1;
  while (true) {
    auto idx = static_cast<std::ptrdiff_t>(std::lower_bound(valid.begin(), valid.end(), t) -
                                           valid.begin());
    if (idx > last) idx = last;  // past the largest count: probe the largest
    if (idx <= lo) break;        // the largest was probed and failed
    if (prober.passes(valid[static_cast<std::size_t>(idx)])) {
      hi = idx;
      break;
    }
    lo = idx;
    if (idx == last) break;
    while (t <= valid[static_cast<std::size_t>(idx)]) t *= 2;
  }
  if (hi < 0) return;  // nothing passes up to the largest count
  while (hi - lo > 1) {
    const std::ptrdiff_t mid = lo + (hi - lo) / 2;
    if (prober.passes(valid[static_cast<std::size_t>(mid)])) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
}

template <class PerPreset>
SizingResult run_presets(const SizingProblem& problem, int jobs, PerPreset per_preset) {
  const std::size_t n = problem.presets.size();
  std::vector<std::vector<SizingProbe>> probes(n);
  std::vector<SkippedNodes> skipped(n);
  Progress progress("size: presets searched", n);
  std::mutex progress_mutex;
  parallel_for(n, jobs, [&](std::size_t p) {
    const std::vector<int> valid = probe_able(problem, p, skipped[p]);
    PresetProber prober(problem, p);
    per_preset(valid, prober);
    probes[p] = prober.take();
    std::lock_guard lock(progress_mutex);
    progress.advance();
  });
  progress.finish();
  SizingResult result;
  for (auto& ps : probes) {
    for (auto& probe : ps) result.probes.push_back(std::move(probe));
  }
  result.skipped = std::move(skipped);
  result.answer = choose_sizing_answer(result.probes);
  return result;
}

}  // namespace

std::optional<SizingAnswer> choose_sizing_answer(const std::vector<SizingProbe>& probes) {
  std::optional<SizingAnswer> best;
  auto better = [&](const SizingAnswer& a, const SizingAnswer& b) {  // a before b
    const SizingProbe& pa = probes[a.probe];
    const SizingProbe& pb = probes[b.probe];
    if (pa.gpus != pb.gpus) return pa.gpus < pb.gpus;
    const double qa = pa.planners[a.planner].qps;
    const double qb = pb.planners[b.planner].qps;
    if (qa != qb) return qa > qb;
    if (a.planner != b.planner) return a.planner < b.planner;
    return pa.preset < pb.preset;
  };
  for (std::size_t i = 0; i < probes.size(); ++i) {
    for (std::size_t k = 0; k < probes[i].planners.size(); ++k) {
      if (!probes[i].planners[k].meets) continue;
      const SizingAnswer candidate{i, k};
      if (!best || better(candidate, *best)) best = candidate;
    }
  }
  return best;
}

SizingResult size_search(const SizingProblem& problem, int jobs) {
  return run_presets(problem, jobs, [](const std::vector<int>& valid, PresetProber& prober) {
    search_preset(valid, prober);
  });
}

SizingResult size_brute_force(const SizingProblem& problem, int jobs) {
  return run_presets(problem, jobs, [&](const std::vector<int>& valid, PresetProber& prober) {
    if (problem.probes_at_once <= 1) {
      for (int n : valid) prober.passes(n);
      return;
    }
    std::vector<SizingProbe> probes(valid.size());
    const std::size_t preset = prober.preset();
    parallel_for(valid.size(), problem.probes_at_once,
                 [&](std::size_t i) { probes[i] = problem.evaluate(preset, valid[i]); });
    for (std::size_t i = 0; i < valid.size(); ++i) prober.passes(valid[i], std::move(probes[i]));
  });
}

std::string node_ranges(const std::vector<int>& nodes) {
  std::string out;
  for (std::size_t i = 0; i < nodes.size();) {
    std::size_t j = i;
    while (j + 1 < nodes.size() && nodes[j + 1] == nodes[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += j == i ? std::to_string(nodes[i]) : fmt::format("{}-{}", nodes[i], nodes[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace shardsim
