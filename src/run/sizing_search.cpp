// The sizing search (run/sizing_search.hpp).
#include "shardsim/run/sizing_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>

#include "shardsim/core/log.hpp"
#include "shardsim/core/parallel_for.hpp"
#include "shardsim/io/report_format.hpp"

namespace shardsim {

bool meets_target(const PlannerOutcome& o, const SizingTarget& target) {
  if (!o.fits) return false;
  if (target.min_qps && !(o.qps >= *target.min_qps)) return false;
  if (target.max_iteration_s && !(o.iteration_s <= *target.max_iteration_s)) return false;
  return true;
}

namespace {

// "size: probe 3: dgx-h100 x 8 nodes (64 GPUs): table_wise does not fit, hybrid 1,234,567 QPS:
// passes" (info).
void log_probe(const SizingProblem& problem, const SizingProbe& probe, std::size_t number) {
  if (!log_enabled(LogLevel::info)) return;
  std::string planners;
  for (const PlannerOutcome& o : probe.planners) {
    if (!planners.empty()) planners += ", ";
    planners += o.planner + (o.fits ? " " + report_format::thousands(o.qps) + " QPS"
                                    : std::string(" does not fit"));
  }
  log_info("size: probe {}: {} x {} node{} ({} GPUs): {}: {}", number,
           problem.presets[probe.preset], probe.nodes, probe.nodes == 1 ? "" : "s", probe.gpus,
           planners, probe.passes ? "passes" : "fails");
}

// One preset's probes, each node count at most once; `probes_made` numbers them (all presets').
class PresetProber {
 public:
  PresetProber(const SizingProblem& problem, std::size_t preset,
               std::atomic<std::size_t>& probes_made)
      : problem_(problem), preset_(preset), probes_made_(probes_made) {}

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
      log_probe(problem_, probe, ++probes_made_);
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
  std::atomic<std::size_t>& probes_made_;
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
  std::atomic<std::size_t> probes_made{0};
  parallel_for(n, jobs, [&](std::size_t p) {
    const std::vector<int> valid = probe_able(problem, p, skipped[p]);
    PresetProber prober(problem, p, probes_made);
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
  if (result.answer) {
    result.bound = sizing_bound(result.probes, *result.answer, problem.target);
    result.runner_up = choose_runner_up(result.probes, *result.answer);
  }
  return result;
}

// Whether passing outcome `a` comes before `b` (SizingResult::answer's order).
bool answers_before(const std::vector<SizingProbe>& probes, const SizingAnswer& a,
                    const SizingAnswer& b) {
  const SizingProbe& pa = probes[a.probe];
  const SizingProbe& pb = probes[b.probe];
  if (pa.gpus != pb.gpus) return pa.gpus < pb.gpus;
  const double qa = pa.planners[a.planner].qps;
  const double qb = pb.planners[b.planner].qps;
  if (qa != qb) return qa > qb;
  if (a.planner != b.planner) return a.planner < b.planner;
  return pa.preset < pb.preset;
}

// The first passing outcome in the answer's order among those `keep` accepts.
template <class Keep>
std::optional<SizingAnswer> best_passing(const std::vector<SizingProbe>& probes, Keep keep) {
  std::optional<SizingAnswer> best;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    for (std::size_t k = 0; k < probes[i].planners.size(); ++k) {
      const SizingAnswer candidate{i, k};
      if (!probes[i].planners[k].meets || !keep(candidate)) continue;
      if (!best || answers_before(probes, candidate, *best)) best = candidate;
    }
  }
  return best;
}

}  // namespace

std::optional<SizingAnswer> choose_sizing_answer(const std::vector<SizingProbe>& probes) {
  return best_passing(probes, [](const SizingAnswer&) { return true; });
}

std::optional<SizingAnswer> choose_runner_up(const std::vector<SizingProbe>& probes,
                                             const SizingAnswer& answer) {
  const SizingProbe& pa = probes[answer.probe];
  const std::string& planner = pa.planners[answer.planner].planner;
  return best_passing(probes, [&](const SizingAnswer& c) {
    const SizingProbe& pc = probes[c.probe];
    return pc.preset != pa.preset || pc.planners[c.planner].planner != planner;
  });
}

SizingBound sizing_bound(const std::vector<SizingProbe>& probes, const SizingAnswer& answer,
                         const SizingTarget& target) {
  const SizingProbe& at = probes[answer.probe];
  SizingBound bound;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const SizingProbe& p = probes[i];
    if (p.preset != at.preset || p.nodes >= at.nodes) continue;
    if (!bound.below || p.nodes > probes[*bound.below].nodes) bound.below = i;
  }
  if (!bound.below) return bound;  // SizingDecider::smallest
  const SizingProbe& below = probes[*bound.below];
  std::optional<std::size_t> fastest, leanest;  // the fastest that fits; the least memory
  for (std::size_t k = 0; k < below.planners.size(); ++k) {
    const PlannerOutcome& o = below.planners[k];
    if (o.fits && (!fastest || o.qps > below.planners[*fastest].qps)) fastest = k;
    if (!leanest || o.memory_max_bytes < below.planners[*leanest].memory_max_bytes) leanest = k;
  }
  if (!fastest) {
    bound.decided_by = SizingDecider::memory;
    bound.below_planner = leanest;
    return bound;
  }
  bound.below_planner = fastest;
  const PlannerOutcome& f = below.planners[*fastest];
  const bool qps_short = target.min_qps && !(f.qps >= *target.min_qps);
  bound.decided_by =
      qps_short || !target.max_iteration_s ? SizingDecider::qps : SizingDecider::iteration_time;
  return bound;
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

}  // namespace shardsim
