// Network models by name (sim/network_model.hpp) and the collective model seam
// (cost/collective_model.hpp, SimulationInputs::collectives).
#include "shardsim/sim/network_model.hpp"

#include <gtest/gtest.h>

#include "shardsim/plan/planner.hpp"
#include "shardsim/sim/engine.hpp"
#include "shardsim/sim/iteration_builder.hpp"
#include "support/hand_model.hpp"
#include "support/hand_preset.hpp"
#include "support/uniform_trace.hpp"

namespace shardsim {
namespace {

TEST(NetworkModels, EveryLinkSharingValueHasOneModelNamedAsInTheScenario) {
  for (LinkSharing id : {LinkSharing::aggregated, LinkSharing::per_flow, LinkSharing::none}) {
    const NetworkModelInfo& m = network_model(id);
    EXPECT_EQ(m.id, id);
    EXPECT_EQ(std::string(m.name), to_string(id));
    EXPECT_EQ(m.make != nullptr, m.has_demands) << m.name;
  }
  EXPECT_EQ(network_models().size(), 3u);
  EXPECT_EQ(network_model(LinkSharing::per_flow).granularity, FlowGranularity::per_flow);
  EXPECT_EQ(network_model(LinkSharing::per_flow).max_gpus, kPerFlowMaxGpus);
}

TEST(NetworkModels, FairShareModelsMoveAFlowAtTheLinkCapacity) {
  for (LinkSharing id : {LinkSharing::aggregated, LinkSharing::per_flow}) {
    std::unique_ptr<NetworkModel> net = network_model(id).make({100.0, 50.0});
    const std::vector<int> links = {0, 1};
    net->add_flow(0.0, links, 200.0, 7);
    net->update(0.0);
    EXPECT_DOUBLE_EQ(net->next_completion_s(), 4.0);  // the 50 B/s link limits it
    std::vector<int> tags;
    net->complete_due(4.0, tags);
    EXPECT_EQ(tags, (std::vector<int>{7}));
  }
}

TEST(NetworkModels, TheEngineRefusesDemandsUnderAModelWithoutFlows) {
  TaskGraph g;
  CollectiveDemand d;
  d.stages.push_back(CollectiveStage{});
  const std::vector<int> link = {0};
  d.stages.back().add_flow(100.0, link);
  const int demand = g.add_demand(d);
  const std::vector<std::vector<int>> deps(2);
  g.add_collective(std::vector<int>{0, 1}, Stream::sparse_comm, Phase::alltoall_fwd, 1.0, 100.0,
                   deps, demand);
  const std::vector<double> capacity = {10.0};
  EXPECT_THROW(run_engine(g, 2, capacity, network_model(LinkSharing::none)), std::logic_error);
  const Timeline tl = run_engine(g, 2, capacity, network_model(LinkSharing::aggregated));
  EXPECT_NEAR(tl.makespan_s, 10.0, 1e-9);  // 100 B at 10 B/s
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
  none.link_sharing = LinkSharing::none;  // durations are the idle times themselves
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
