// The reports' bottleneck (metrics/bottleneck.hpp) on simulated scenarios: the JSON names the
// kind with the largest exposed time of the critical GPU's breakdown, on a host-bound, an
// AlltoAll-bound and an AllReduce-bound plan of the default scenario and on a large-batch one.
#include <gtest/gtest.h>

#include <map>

#include "shardsim/io/report_writer.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/metrics/bottleneck.hpp"
#include "shardsim/run/run_scenario.hpp"

namespace shardsim {
namespace {

// Each kind's exposed time, from the JSON breakdown.
std::map<std::string, double> exposed_by_kind(const nlohmann::ordered_json& r) {
  std::map<std::string, double> out;
  for (const BottleneckKind& k : kBottleneckKinds) {
    const std::string list = " " + std::string(k.phases) + " ";
    for (auto it = r["breakdown_s"].begin(); it != r["breakdown_s"].end(); ++it) {
      if (list.find(" " + it.key() + " ") != std::string::npos) {
        out[std::string(k.kind)] += it.value()["exposed"].get<double>();
      }
    }
  }
  return out;
}

void expect_consistent(const nlohmann::ordered_json& r) {
  const auto by_kind = exposed_by_kind(r);
  const std::string kind = r["bottleneck"]["kind"];
  for (const auto& [k, s] : by_kind) EXPECT_LE(s, by_kind.at(kind)) << k << " beats " << kind;
  EXPECT_DOUBLE_EQ(r["bottleneck"]["exposed_s"].get<double>(), by_kind.at(kind));
  EXPECT_DOUBLE_EQ(r["bottleneck"]["share"].get<double>(),
                   by_kind.at(kind) / r["iteration_time_s"]["mean"].get<double>());
}

TEST(BottleneckScenarios, TheDefaultScenariosThreePlansAreBoundByThreeThings) {
  const Scenario sc = load_default_scenario({{"workload.iterations", "2"}});
  const std::vector<Report> reports = run_scenario(sc);
  ASSERT_EQ(reports.size(), 3u);
  const std::vector<std::string> want{"host", "alltoall", "replica_allreduce"};
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const nlohmann::ordered_json j = report_to_json(reports[i]);
    SCOPED_TRACE(reports[i].planner);
    EXPECT_EQ(j["bottleneck"]["kind"], want[i]);
    expect_consistent(j);
  }
}

TEST(BottleneckScenarios, ALargeBatchIsNoLongerHostBound) {
  const Scenario sc = load_default_scenario({{"workload.iterations", "2"},
                                             {"workload.batch_per_gpu", "65536"},
                                             {"placement.planner", "table_wise"}});
  const nlohmann::ordered_json j = report_to_json(run_scenario(sc).at(0));
  EXPECT_NE(j["bottleneck"]["kind"], "host");
  expect_consistent(j);
}

TEST(BottleneckScenarios, APlanThatDoesNotFitHasNone) {
  const Scenario sc =
      load_default_scenario({{"workload.iterations", "1"},
                             {"placement.planner", "data_parallel"},
                             {"cluster.overrides", "{gpu: {hbm_capacity_GiB: 4}}"}});
  const Report r = run_scenario(sc).at(0);
  ASSERT_FALSE(r.fits_in_memory);
  EXPECT_TRUE(report_to_json(r)["bottleneck"].is_null());
}

}  // namespace
}  // namespace shardsim
