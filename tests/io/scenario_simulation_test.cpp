// The `simulation:` map (docs/scenario.md) and per-direction communication precision.
#include <gtest/gtest.h>

#include "scenario_test_helpers.hpp"

namespace shardsim {
namespace {

using test::expect_input_error;
using test::tiny_plus;
using test::tiny_with;

TEST(ScenarioSimulation, DefaultsWhenAbsent) {
  const Scenario sc = load_scenario_text(test::tiny_text(), "tiny.yaml");
  EXPECT_EQ(sc.simulation.link_sharing, "aggregated");
  EXPECT_EQ(sc.simulation.input_alltoall, InputAlltoall::overlapped);
  EXPECT_EQ(sc.simulation.pooled_alltoall, PooledAlltoall::overlapped);
  EXPECT_TRUE(sc.simulation.stragglers.empty());
  EXPECT_EQ(sc.simulation.jitter_cv, 0.0);
}

TEST(ScenarioSimulation, EveryKeyIsRead) {
  const Scenario sc = load_scenario_text(
      tiny_plus("simulation:\n"
                "  link_sharing: per_flow\n"
                "  pipeline: {input_alltoall: serial, pooled_alltoall: serial}\n"
                "  stragglers: [{gpu: 3, slowdown: 1.5}, {gpu: 0, slowdown: 2}]\n"
                "  jitter: {cv: 0.05}"),
      "s.yaml");
  EXPECT_EQ(sc.simulation.link_sharing, "per_flow");
  EXPECT_EQ(sc.simulation.input_alltoall, InputAlltoall::serial);
  EXPECT_EQ(sc.simulation.pooled_alltoall, PooledAlltoall::serial);
  ASSERT_EQ(sc.simulation.stragglers.size(), 2u);
  EXPECT_EQ(sc.simulation.stragglers[0].gpu, 3);
  EXPECT_EQ(sc.simulation.stragglers[0].slowdown, 1.5);
  EXPECT_EQ(sc.simulation.jitter_cv, 0.05);
  const Scenario none = load_scenario_text(
      tiny_plus("simulation: {link_sharing: none, pipeline: {input_alltoall: none}}"), "s.yaml");
  EXPECT_EQ(none.simulation.link_sharing, "none");
  EXPECT_EQ(none.simulation.input_alltoall, InputAlltoall::none);
}

TEST(ScenarioSimulation, BadValuesNameTheKey) {
  // The tiny scenario has 17 lines; `simulation:` is line 18, its first key line 19.
  expect_input_error(tiny_plus("simulation:\n  link_sharing: fair"), 19, "simulation.link_sharing",
                     "aggregated");
  expect_input_error(tiny_plus("simulation:\n  link_shareing: none"), 19,
                     "simulation.link_shareing", "did you mean 'link_sharing'?");
  expect_input_error(tiny_plus("simulation:\n  pipeline: {input_alltoall: later}"), 19,
                     "simulation.pipeline.input_alltoall", "overlapped");
  expect_input_error(tiny_plus("simulation:\n  stragglers: [{gpu: 8, slowdown: 2}]"), 19,
                     "simulation.stragglers[0].gpu", "the cluster has 8 GPUs");
  expect_input_error(tiny_plus("simulation:\n  stragglers: [{gpu: 1, slowdown: 0.5}]"), 19,
                     "simulation.stragglers[0].slowdown", ">= 1");
  expect_input_error(
      tiny_plus("simulation:\n  stragglers: [{gpu: 1, slowdown: 2}, {gpu: 1, slowdown: 3}]"), 19,
      "simulation.stragglers[1].gpu", "listed twice");
  expect_input_error(tiny_plus("simulation:\n  stragglers: {gpu: 1, slowdown: 2}"), 19,
                     "simulation.stragglers", "list");
  expect_input_error(tiny_plus("simulation:\n  jitter: {cv: 3}"), 19, "simulation.jitter.cv",
                     "[0, 1]");
  expect_input_error(tiny_plus("simulation:\n  jitter: {sigma: 0.1}"), 19,
                     "simulation.jitter.sigma");
  // The per-flow reference is for small clusters: 40 nodes x 8 = 320 GPUs is too many.
  expect_input_error(tiny_with(4, "  nodes: 40") + "simulation:\n  link_sharing: per_flow\n", 19,
                     "simulation.link_sharing", "limit of 256");
}

TEST(ScenarioSimulation, CommunicationPrecisionPerDirection) {
  // Neo §8.4: FP16 forward AlltoAll, BF16 backward.
  const Scenario sc = load_scenario_text(
      tiny_with(13, "  top_mlp: [64, 1]\n  precision: {comms: {fwd: fp16, bwd: bf16}}"), "p.yaml");
  EXPECT_EQ(sc.model.comm_precision, Precision::fp16);
  EXPECT_EQ(sc.model.comm_bwd_precision, Precision::bf16);
  const Scenario both =
      load_scenario_text(tiny_with(13, "  top_mlp: [64, 1]\n  precision: {comms: fp16}"), "p.yaml");
  EXPECT_EQ(both.model.comm_precision, Precision::fp16);
  EXPECT_EQ(both.model.comm_bwd_precision, Precision::fp16);
  expect_input_error(tiny_with(13, "  top_mlp: [64, 1]\n  precision: {comms: {forward: fp16}}"), 14,
                     "model.precision.comms.forward", "allowed keys here: fwd, bwd");
}

}  // namespace
}  // namespace shardsim
