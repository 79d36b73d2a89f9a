// The sizing search (run/sizing_search.hpp) against the brute force, on fake evaluators.
#include "shardsim/run/sizing_search.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include <atomic>
#include <map>

namespace shardsim {
namespace {

namespace sizing_test {

// A fake preset: GPUs per node, and each planner's QPS as a function of the node count.
struct FakePreset {
  int gpus_per_node = 8;
  // QPS of planner k at `nodes`; fits when `nodes` >= fit_nodes[k].
  std::vector<double> qps_per_node;  // QPS per node of each planner (linear scaling)
  std::vector<int> fit_nodes;
};

struct Fake {
  std::vector<FakePreset> presets;
  std::uint64_t global_batch = 0;  // 0: no divisibility constraint
  std::atomic<int> calls{0};

  SizingProblem problem(SizingTarget target, int max_nodes) {
    SizingProblem p;
    for (std::size_t i = 0; i < presets.size(); ++i) p.presets.push_back("p" + std::to_string(i));
    p.max_nodes = max_nodes;
    p.target = target;
    p.skip_reason = [this](std::size_t k, int nodes) -> std::string {
      const auto gpus = static_cast<std::uint64_t>(nodes) * presets[k].gpus_per_node;
      if (global_batch > 0 && global_batch % gpus != 0) return "does not divide";
      return {};
    };
    p.evaluate = [this](std::size_t k, int nodes) {
      ++calls;
      const FakePreset& fp = presets[k];
      SizingProbe probe;
      probe.gpus = nodes * fp.gpus_per_node;
      for (std::size_t j = 0; j < fp.qps_per_node.size(); ++j) {
        PlannerOutcome o;
        o.planner = "planner" + std::to_string(j);
        o.fits = nodes >= fp.fit_nodes[j];
        o.qps = o.fits ? fp.qps_per_node[j] * nodes : 0;
        o.iteration_s = o.fits ? 1.0 / nodes : std::nan("");
        probe.planners.push_back(o);
      }
      return probe;
    };
    return p;
  }
};

struct Picked {
  std::size_t preset;
  int nodes;
  std::string planner;
  bool operator==(const Picked&) const = default;
};

std::optional<Picked> picked(const SizingResult& r) {
  if (!r.answer) return std::nullopt;
  const SizingProbe& p = r.probes[r.answer->probe];
  return Picked{p.preset, p.nodes, p.planners[r.answer->planner].planner};
}

void expect_same_answer(Fake& fake, SizingTarget target, int max_nodes) {
  const SizingProblem problem = fake.problem(target, max_nodes);
  const SizingResult searched = size_search(problem);
  const SizingResult brute = size_brute_force(problem);
  ASSERT_EQ(picked(searched).has_value(), picked(brute).has_value());
  if (picked(brute)) {
    EXPECT_EQ(picked(searched)->preset, picked(brute)->preset);
    EXPECT_EQ(picked(searched)->nodes, picked(brute)->nodes);
    EXPECT_EQ(picked(searched)->planner, picked(brute)->planner);
  }
  // Probes come sorted by preset, then node count, each once.
  for (std::size_t i = 1; i < searched.probes.size(); ++i) {
    const SizingProbe& a = searched.probes[i - 1];
    const SizingProbe& b = searched.probes[i];
    EXPECT_TRUE(a.preset < b.preset || (a.preset == b.preset && a.nodes < b.nodes));
  }
}

TEST(SizingSearch, EqualsBruteForceOverManyThresholds) {
  for (int fit = 1; fit <= 40; fit += 3) {
    for (double target = 1; target <= 120; target += 7) {
      Fake fake;
      fake.presets = {{8, {1.0, 1.5}, {fit, fit + 2}}, {4, {0.8, 2.0}, {fit * 2, fit}}};
      expect_same_answer(fake, SizingTarget{target, std::nullopt}, 64);
      expect_same_answer(fake, SizingTarget{}, 64);  // --fit
      expect_same_answer(fake, SizingTarget{std::nullopt, 1.0 / (target / 3 + 1)}, 64);
    }
  }
}

TEST(SizingSearch, ProbesFarFewerCountsThanBruteForce) {
  Fake fake;
  fake.presets = {{8, {1.0}, {1}}};
  const SizingResult r = size_search(fake.problem(SizingTarget{77.0, std::nullopt}, 128));
  ASSERT_TRUE(r.answer);
  EXPECT_EQ(r.probes[r.answer->probe].nodes, 77);
  EXPECT_LE(r.probes.size(), 16u);  // 8 gallops + 7 bisections, not 128
}

TEST(SizingSearch, TargetReachedAtOneNode) {
  Fake fake;
  fake.presets = {{8, {100.0, 50.0}, {1, 1}}};
  const SizingResult r = size_search(fake.problem(SizingTarget{10.0, std::nullopt}, 128));
  ASSERT_TRUE(r.answer);
  EXPECT_EQ(r.probes.size(), 1u);
  EXPECT_EQ(r.probes[0].nodes, 1);
  EXPECT_EQ(picked(r)->planner, "planner0");  // higher QPS wins at equal GPUs
}

TEST(SizingSearch, NeverReached) {
  Fake fake;
  fake.presets = {{8, {1.0}, {1}}, {8, {1.0}, {200}}};
  const SizingProblem problem = fake.problem(SizingTarget{1000.0, std::nullopt}, 100);
  const SizingResult r = size_search(problem);
  EXPECT_FALSE(r.answer);
  EXPECT_FALSE(size_brute_force(problem).answer);
  // Galloping ends with the largest count: 1, 2, 4, ..., 64, then 100.
  EXPECT_EQ(r.probes.back().nodes, 100);
}

TEST(SizingSearch, NonDividingNodeCountsAreSkippedNotProbed) {
  Fake fake;
  fake.presets = {{8, {1.0}, {1}}, {6, {1.0}, {1}}};
  fake.global_batch = 96 * 8;  // preset 0: nodes dividing 96; preset 1: 6n | 768 -> n | 128
  for (double target : {1.0, 5.0, 7.0, 13.0, 33.0, 50.0, 97.0}) {
    const SizingProblem problem = fake.problem(SizingTarget{target, std::nullopt}, 128);
    const SizingResult r = size_search(problem);
    for (const SizingProbe& p : r.probes) {
      EXPECT_EQ(static_cast<std::uint64_t>(fake.global_batch) % static_cast<std::uint64_t>(p.gpus),
                0u);
    }
    expect_same_answer(fake, SizingTarget{target, std::nullopt}, 128);
    ASSERT_EQ(r.skipped.size(), 2u);
    EXPECT_EQ(r.skipped[0].reason, "does not divide");
    EXPECT_EQ(r.skipped[0].nodes.front(), 5);  // 1, 2, 3, 4 divide 96; 5 does not
  }
  // A target of 7 (QPS = nodes): preset 0 passes at 8 nodes (the first count >= 7 dividing 96),
  // 64 GPUs; preset 1 at 8 (dividing 128), 48 GPUs: preset 1 wins.
  const SizingResult r = size_search(fake.problem(SizingTarget{7.0, std::nullopt}, 128));
  ASSERT_TRUE(r.answer);
  EXPECT_EQ(picked(r)->preset, 1u);
  EXPECT_EQ(picked(r)->nodes, 8);
}

TEST(SizingSearch, NoProbeableNodeCount) {
  Fake fake;
  fake.presets = {{8, {1.0}, {1}}};
  fake.global_batch = 12;  // 8 GPUs never divide 12
  const SizingResult r = size_search(fake.problem(SizingTarget{}, 16));
  EXPECT_FALSE(r.answer);
  EXPECT_TRUE(r.probes.empty());
  EXPECT_EQ(r.skipped[0].nodes.size(), 16u);
  EXPECT_EQ(fake.calls.load(), 0);
}

TEST(SizingSearch, TiesGoToFewerGpusThenQpsThenPlannerThenPreset) {
  Fake fake;
  // Both presets pass at 2 nodes of 8 GPUs with equal QPS: the earlier preset wins.
  fake.presets = {{8, {5.0, 5.0}, {2, 2}}, {8, {5.0, 5.0}, {2, 2}}};
  SizingResult r = size_search(fake.problem(SizingTarget{}, 8));
  EXPECT_EQ(picked(r), (Picked{0, 2, "planner0"}));
  // The later preset has fewer GPUs per node, so the same 16 GPUs at 4 nodes and more QPS.
  fake.presets = {{8, {5.0, 5.0}, {2, 2}}, {4, {5.0, 6.0}, {4, 4}}};
  r = size_search(fake.problem(SizingTarget{}, 8));
  EXPECT_EQ(picked(r), (Picked{1, 4, "planner1"}));
}

TEST(SizingSearch, ResultDoesNotDependOnJobs) {
  Fake fake;
  fake.presets = {{8, {1.0}, {3}}, {4, {2.0}, {5}}, {2, {3.0}, {7}}};
  const SizingProblem problem = fake.problem(SizingTarget{20.0, std::nullopt}, 64);
  const SizingResult one = size_search(problem, 1);
  const SizingResult three = size_search(problem, 3);
  ASSERT_EQ(one.probes.size(), three.probes.size());
  for (std::size_t i = 0; i < one.probes.size(); ++i) {
    EXPECT_EQ(one.probes[i].nodes, three.probes[i].nodes);
    EXPECT_EQ(one.probes[i].preset, three.probes[i].preset);
  }
  EXPECT_EQ(picked(one), picked(three));
}

TEST(SizingSearch, NonMonotoneFindsABoundaryAndExhaustiveTheMinimum) {
  // Passes at 3 and from 9 on, not at 4..8: galloping probes 1, 2, 4, 8, 16 and bisects to 9;
  // the brute force finds 3. Documented (docs/report.md "Sizing").
  SizingProblem p;
  p.presets = {"x"};
  p.max_nodes = 32;
  p.evaluate = [](std::size_t, int nodes) {
    SizingProbe probe;
    probe.gpus = nodes;
    PlannerOutcome o;
    o.planner = "a";
    o.fits = nodes == 3 || nodes >= 9;
    o.qps = o.fits ? 1.0 : 0.0;
    probe.planners.push_back(o);
    return probe;
  };
  EXPECT_EQ(picked(size_search(p))->nodes, 9);
  EXPECT_EQ(picked(size_brute_force(p))->nodes, 3);
}

TEST(SizingSearch, MeetsTarget) {
  PlannerOutcome o;
  o.fits = true;
  o.qps = 100;
  o.iteration_s = 0.01;
  EXPECT_TRUE(meets_target(o, SizingTarget{}));
  EXPECT_TRUE(meets_target(o, SizingTarget{100.0, 0.01}));
  EXPECT_FALSE(meets_target(o, SizingTarget{100.5, std::nullopt}));
  EXPECT_FALSE(meets_target(o, SizingTarget{std::nullopt, 0.005}));
  o.fits = false;
  EXPECT_FALSE(meets_target(o, SizingTarget{}));
}

// What decided the answer's node count: the next smaller count probed, and why it fails there.
TEST(SizingSearch, BoundSaysWhatFailsAtTheNextSmallerCount) {
  Fake fake;
  // planner0 fits from 5 nodes, planner1 from 7; --fit: 5 nodes (probes 1, 2, 4, 8, 6, 5).
  fake.presets = {{8, {1.0, 1.5}, {5, 7}}};
  SizingResult r = size_search(fake.problem(SizingTarget{}, 16));
  ASSERT_TRUE(r.answer && r.bound);
  EXPECT_EQ(picked(r), (Picked{0, 5, "planner0"}));
  EXPECT_EQ(r.bound->decided_by, SizingDecider::memory);
  ASSERT_TRUE(r.bound->below);
  EXPECT_EQ(r.probes[*r.bound->below].nodes, 4);
  // The runner-up: planner1 at the only count probed where it fits (8), not at 7.
  ASSERT_TRUE(r.runner_up);
  EXPECT_EQ(r.probes[r.runner_up->probe].nodes, 8);
  EXPECT_EQ(r.probes[r.runner_up->probe].planners[r.runner_up->planner].planner, "planner1");
  const SizingResult brute = size_brute_force(fake.problem(SizingTarget{}, 16));
  ASSERT_TRUE(brute.runner_up);  // the brute force probes 7 too
  EXPECT_EQ(brute.probes[brute.runner_up->probe].nodes, 7);

  // Both fit everywhere; QPS = 1.0 / 1.5 x nodes, target 12: planner1 at 8; at 7 it gives 10.5.
  fake.presets = {{8, {1.0, 1.5}, {1, 1}}};
  r = size_search(fake.problem(SizingTarget{12.0, std::nullopt}, 16));
  ASSERT_TRUE(r.answer && r.bound && r.bound->below && r.bound->below_planner);
  EXPECT_EQ(picked(r), (Picked{0, 8, "planner1"}));
  EXPECT_EQ(r.bound->decided_by, SizingDecider::qps);
  const SizingProbe& below = r.probes[*r.bound->below];
  EXPECT_EQ(below.nodes, 7);
  EXPECT_DOUBLE_EQ(below.planners[*r.bound->below_planner].qps, 10.5);  // the fastest
  EXPECT_FALSE(r.runner_up);  // planner0 (8 QPS at 8 nodes) passes at no count probed

  // Iteration time 1 / nodes <= 1/6: 6 nodes; at 5 both fit but take 0.2 s.
  r = size_search(fake.problem(SizingTarget{std::nullopt, 1.0 / 6}, 16));
  ASSERT_TRUE(r.answer && r.bound && r.bound->below);
  EXPECT_EQ(picked(r), (Picked{0, 6, "planner1"}));
  EXPECT_EQ(r.bound->decided_by, SizingDecider::iteration_time);
  EXPECT_EQ(r.probes[*r.bound->below].nodes, 5);
  ASSERT_TRUE(r.runner_up);
  EXPECT_EQ(r.probes[r.runner_up->probe].nodes, 6);
  EXPECT_EQ(r.probes[r.runner_up->probe].planners[r.runner_up->planner].planner, "planner0");

  // Reached at 1 node: nothing smaller to fail.
  r = size_search(fake.problem(SizingTarget{1.0, std::nullopt}, 16));
  ASSERT_TRUE(r.bound);
  EXPECT_EQ(r.bound->decided_by, SizingDecider::smallest);
  EXPECT_FALSE(r.bound->below);
}

TEST(SizingSearch, RunnerUpIsAnotherPresetOrPlanner) {
  Fake fake;
  // Preset 0: planner0 passes at 2 nodes (16 GPUs), planner1 never fits up to 8; preset 1
  // (4 GPUs per node) passes at 4 nodes (16 GPUs) with less QPS: the runner-up.
  fake.presets = {{8, {5.0, 9.0}, {2, 100}}, {4, {2.0}, {4}}};
  const SizingResult r = size_search(fake.problem(SizingTarget{}, 8));
  EXPECT_EQ(picked(r), (Picked{0, 2, "planner0"}));
  ASSERT_TRUE(r.runner_up);
  const SizingProbe& p = r.probes[r.runner_up->probe];
  EXPECT_EQ(p.preset, 1u);
  EXPECT_EQ(p.nodes, 4);
  EXPECT_EQ(p.gpus, 16);
}

TEST(SizingSearch, NodeRanges) {
  EXPECT_EQ(node_ranges({}), "");
  EXPECT_EQ(node_ranges({3}), "3");
  EXPECT_EQ(node_ranges({3, 5, 6, 7, 9, 10, 12}), "3, 5-7, 9-10, 12");
}

}  // namespace sizing_test

}  // namespace
}  // namespace shardsim

namespace shardsim {
namespace {

using sizing_test::Fake;
using sizing_test::FakePreset;
using sizing_test::picked;

// The brute force with several probes of a preset at once (an MPI job's slots) makes the same
// probes, in the same order, with the same answer.
TEST(SizingSearch, BruteForceProbesAtOnceChangeNothing) {
  Fake fake;
  fake.presets = {FakePreset{8, {100, 120}, {3, 5}}, FakePreset{4, {60, 90}, {2, 7}}};
  fake.global_batch = 96;
  SizingProblem one = fake.problem(SizingTarget{1000.0, std::nullopt}, 24);
  SizingProblem many = one;
  many.probes_at_once = 5;
  const SizingResult a = size_brute_force(one, 1);
  const SizingResult b = size_brute_force(many, 2);
  ASSERT_EQ(a.probes.size(), b.probes.size());
  for (std::size_t i = 0; i < a.probes.size(); ++i) {
    EXPECT_EQ(a.probes[i].preset, b.probes[i].preset);
    EXPECT_EQ(a.probes[i].nodes, b.probes[i].nodes);
    EXPECT_EQ(a.probes[i].passes, b.probes[i].passes);
  }
  EXPECT_EQ(picked(a), picked(b));
}

}  // namespace
}  // namespace shardsim
