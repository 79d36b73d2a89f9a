// The host's step priced from what it issues (cost/host_step_cost.hpp), by hand.
#include "shardsim/cost/host_step_cost.hpp"

#include <gtest/gtest.h>

#include "shardsim/cost/host_framework.hpp"

namespace shardsim {
namespace {

CostParams round_host() {
  CostParams p = default_cost_params();
  p.host_eager_step_s = 2e-3;
  p.host_eager_inference_step_s = 0.5e-3;
  p.host_embedding_op_s = 100e-6;
  p.host_collective_call_s = 10e-6;
  p.host_collective_peer_s = 1e-6;
  p.host_graph_iteration_s = 50e-6;
  return p;
}

TEST(HostStepCost, EagerAddsOpsCallsAndPeersToTheFixedStep) {
  HostWork w;
  w.embedding_ops = 3;
  w.peer_loop_calls = 5;
  w.peer_loop_peers = 5 * 7;  // five AlltoAlls over 8 GPUs
  w.single_calls = 2;
  // 2 ms + 3 x 100 us + 7 x 10 us + 35 x 1 us
  EXPECT_NEAR(host_step_s(w, round_host()), 2e-3 + 300e-6 + 70e-6 + 35e-6, 1e-15);
  EXPECT_NEAR(host_step_s(HostWork{}, round_host()), 2e-3, 1e-15);
  // Inference: the forward's fixed step, the same ops and calls.
  w.forward_only = true;
  EXPECT_NEAR(host_step_s(w, round_host()), 0.5e-3 + 300e-6 + 70e-6 + 35e-6, 1e-15);
}

TEST(HostStepCost, CudaGraphsReplayTheStepWhateverItIssues) {
  CostParams p = round_host();
  p.host_launch_mode = HostLaunchMode::cuda_graphs;
  HostWork w;
  w.embedding_ops = 26;
  w.peer_loop_calls = 5;
  EXPECT_DOUBLE_EQ(host_step_s(w, p), 50e-6);
}

TEST(HostStepCost, ModelledUnlessEveryTermIsZero) {
  CostParams p = round_host();
  EXPECT_TRUE(host_step_modelled(p));
  p.host_eager_step_s = p.host_embedding_op_s = p.host_collective_call_s = 0;
  EXPECT_TRUE(host_step_modelled(p));  // the inference and per-peer terms remain
  p.host_eager_inference_step_s = 0;
  EXPECT_TRUE(host_step_modelled(p));  // the per-peer term remains
  p.host_collective_peer_s = 0;
  EXPECT_FALSE(host_step_modelled(p));
  p.host_launch_mode = HostLaunchMode::cuda_graphs;
  EXPECT_TRUE(host_step_modelled(p));
  p.host_graph_iteration_s = 0;
  EXPECT_FALSE(host_step_modelled(p));
}

TEST(HostFramework, TheProfilesOfTheConfigFile) {
  const HostFramework& torchrec = host_framework("torchrec");
  EXPECT_EQ(torchrec.embedding_ops, EmbeddingOpGrouping::per_group);
  EXPECT_EQ(torchrec.lookup_calls_forward, 4);
  EXPECT_EQ(torchrec.lookup_calls_backward, 1);
  EXPECT_EQ(host_framework("oper").embedding_ops, EmbeddingOpGrouping::one);
  EXPECT_EQ(host_framework("oper").lookup_calls_forward, 0);
  EXPECT_EQ(host_framework("pytorch").embedding_ops, EmbeddingOpGrouping::per_table);
  for (const HostFramework& f : host_frameworks()) EXPECT_FALSE(f.source.empty()) << f.name;
  EXPECT_EQ(host_framework_choices().front(), "auto");
}

TEST(HostFramework, AnUnknownNameSuggestsTheClosest) {
  try {
    host_framework("torchrek");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'torchrec'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace shardsim
