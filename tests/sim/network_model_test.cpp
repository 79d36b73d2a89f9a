// Network models by name (sim/network_model.hpp) and the collective model seam
// (cost/collective_model.hpp, SimulationInputs::collectives).
#include "shardsim/sim/network_model.hpp"

#include <gtest/gtest.h>

#include "shardsim/core/error.hpp"
#include "shardsim/plan/planner.hpp"
#include "shardsim/sim/engine.hpp"
#include "shardsim/sim/iteration_builder.hpp"
#include "support/hand_model.hpp"
#include "support/hand_preset.hpp"
#include "support/uniform_trace.hpp"

namespace shardsim {
namespace {

TEST(NetworkModels, TheRegistryFindsEachModelByItsScenarioName) {
  EXPECT_EQ(network_model_names(),
            (std::vector<std::string>{"aggregated", "per_flow", "none", "interference"}));
  for (const NetworkModelInfo& m : network_models()) {
    EXPECT_EQ(&network_model(m.name), &m);
    EXPECT_EQ(&find_network_model(m.name, SourceLocation{"s.yaml", 3, 1}, "k"), &m);
  }
  EXPECT_EQ(std::string(kDefaultNetworkModel), SimulationOptions{}.link_sharing);
  EXPECT_TRUE(network_model("per_flow").model.needs_pair_traffic());
  EXPECT_EQ(network_model("per_flow").max_gpus, kPerFlowMaxGpus);
  EXPECT_FALSE(network_model("none").model.shares_links());
  for (std::string_view n : {"aggregated", "per_flow", "interference"}) {
    EXPECT_TRUE(network_model(n).model.shares_links()) << n;
  }
  EXPECT_THROW(network_model("fair"), std::invalid_argument);
  try {
    find_network_model("per_flw", SourceLocation{"s.yaml", 3, 1}, "simulation.link_sharing");
    FAIL() << "an unknown name must be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "simulation.link_sharing");
    EXPECT_NE(e.hint().find("did you mean 'per_flow'?"), std::string::npos) << e.hint();
    EXPECT_NE(e.hint().find("interference"), std::string::npos) << e.hint();
  }
}

TEST(NetworkModels, FairShareModelsMoveAFlowAtTheLinkCapacity) {
  const CostParams cost;
  for (std::string_view name : {"aggregated", "per_flow", "interference"}) {
    std::unique_ptr<NetworkModel> net = network_model(name).model.make_network({100.0, 50.0}, cost);
    const std::vector<int> links = {0, 1};
    net->add_flow(0.0, links, 200.0, 7);
    net->update(0.0);
    EXPECT_DOUBLE_EQ(net->next_completion_s(), 4.0) << name;  // the 50 B/s link limits it
    std::vector<int> tags;
    net->complete_due(4.0, tags);
    EXPECT_EQ(tags, (std::vector<int>{7}));
  }
}

// Two flows on a 100 B/s link under a loss of 0.3: the link delivers 100 x (1 - 0.3 x 1/2) = 85
// B/s, 42.5 each; the 85 B flow ends at 2 s, and the other's last 85 B run alone at 100 B/s.
TEST(NetworkModels, InterferenceSlowsALinkThatSeveralFlowsShare) {
  CostParams cost;
  cost.interference_loss = 0.3;
  for (const double loss : {0.3, 0.0}) {
    cost.interference_loss = loss;
    std::unique_ptr<NetworkModel> net =
        network_model("interference").model.make_network({100.0}, cost);
    const std::vector<int> link = {0};
    net->add_flow(0.0, link, 85.0, 1);
    net->add_flow(0.0, link, 170.0, 2);
    net->update(0.0);
    const double first_s = loss > 0 ? 2.0 : 1.7;  // without loss: 50 B/s each
    EXPECT_DOUBLE_EQ(net->next_completion_s(), first_s);
    std::vector<int> tags;
    net->complete_due(first_s, tags);
    EXPECT_EQ(tags, (std::vector<int>{1}));
    net->update(first_s);
    EXPECT_NEAR(net->next_completion_s(), loss > 0 ? 2.85 : 2.55, 1e-12);
    const std::vector<LinkSample> samples = net->take_samples();
    ASSERT_FALSE(samples.empty());
    EXPECT_NEAR(samples.front().utilization, loss > 0 ? 0.85 : 1.0, 1e-12);  // of the full link
  }
  cost.interference_loss = 1.0;
  EXPECT_THROW(network_model("interference").model.make_network({100.0}, cost),
               std::invalid_argument);
}

// A graph of one collective on GPUs 0 and 1 whose demand is 100 B over link 0 (and, with
// `second`, another at the same time with the same demand).
TaskGraph one_link_graph(bool second) {
  TaskGraph g;
  CollectiveDemand d;
  d.stages.push_back(CollectiveStage{});
  const std::vector<int> link = {0};
  d.stages.back().add_flow(100.0, link);
  const int demand = g.add_demand(d);
  const std::vector<std::vector<int>> deps(2);
  g.add_collective(std::vector<int>{0, 1}, Stream::sparse_comm, Phase::alltoall_fwd, 1.0, 100.0,
                   deps, demand);
  if (second) {
    g.add_collective(std::vector<int>{0, 1}, Stream::dense_comm, Phase::mlp_allreduce, 1.0, 100.0,
                     deps, demand);
  }
  return g;
}

TEST(NetworkModels, TheEngineRefusesDemandsUnderAModelWithoutFlows) {
  const TaskGraph g = one_link_graph(false);
  const std::vector<double> capacity = {10.0};
  EXPECT_THROW(run_engine(g, 2, capacity, network_model("none").model), std::logic_error);
  const Timeline tl = run_engine(g, 2, capacity, network_model("aggregated").model);
  EXPECT_NEAR(tl.makespan_s, 10.0, 1e-9);  // 100 B at 10 B/s
}

// Two collectives at once on one 10 B/s link (100 B each): fair sharing ends both at 20 s; under
// interference (loss 0.3) the link delivers 8.5 B/s, so both end at 100 / 4.25 = 23.53 s.
TEST(NetworkModels, TheEngineMovesConcurrentCollectivesThroughTheChosenModel) {
  const TaskGraph g = one_link_graph(true);
  const std::vector<double> capacity = {10.0};
  CostParams cost;
  cost.interference_loss = 0.3;
  EXPECT_NEAR(run_engine(g, 2, capacity, network_model("aggregated").model, cost).makespan_s, 20.0,
              1e-9);
  EXPECT_NEAR(run_engine(g, 2, capacity, network_model("interference").model, cost).makespan_s,
              100.0 / 4.25, 1e-9);
}

// A collective model that doubles every idle-network time: the builder's collectives follow it.
class Doubled final : public CollectiveModel {
 public:
  std::string_view name() const override { return "doubled"; }
  double idle_time_s(const Cluster& c, const CollectiveDemand& d,
                     const CostParams& p) const override {
    return 2 * alpha_beta_collectives().idle_time_s(c, d, p);
  }
};

TEST(CollectiveModels, TheSimulationAsksItsInputsCollectiveModel) {
  const Cluster cluster(testing::hand_preset(4), 1);
  const DlrmModel model = testing::hand_model(2, 1000, 32, 5);
  Workload wl;
  wl.batch_per_gpu = 256;
  const testing::UniformTrace trace({1000, 1000}, {5, 5});
  const PlanningContext ctx{cluster, model, wl, trace};
  const Plan plan = testing::plan_with("row_wise", ctx);
  const CostParams cost = testing::hand_cost_params();
  SimulationOptions none;
  none.link_sharing = "none";  // durations are the idle times themselves
  const Doubled doubled;
  auto alltoall_s = [&](const CollectiveModel* m) {
    const IterationBuilder b({cluster, model, wl, plan, trace, cost, none, m});
    TaskGraph graph;
    b.append(graph, 0, nullptr);
    for (const Collective& c : graph.collectives) {
      if (graph.tasks[c.members.front()].phase == Phase::alltoall_fwd) return c.duration_s;
    }
    return -1.0;
  };
  const double base = alltoall_s(nullptr);
  ASSERT_GT(base, 0);
  EXPECT_EQ(alltoall_s(&alpha_beta_collectives()), base);
  EXPECT_DOUBLE_EQ(alltoall_s(&doubled), 2 * base);
}

}  // namespace
}  // namespace shardsim
