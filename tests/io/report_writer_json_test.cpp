// The JSON report against the DESIGN.md §3 contract, with values built by hand
// (report_writer_test_fixtures.hpp).
#include <gtest/gtest.h>

#include <limits>
#include <sstream>

#include "io/report_writer_test_fixtures.hpp"
#include "shardsim/io/report_writer.hpp"

namespace shardsim {
namespace {

using Json = nlohmann::ordered_json;

TEST(ReportWriterJson, HasEveryContractKey) {
  const Json j = report_to_json(test::make_report());
  for (const char* key : {"scenario",
                          "scenario_source",
                          "planner",
                          "mode",
                          "preset",
                          "num_gpus",
                          "num_nodes",
                          "num_tables",
                          "iterations",
                          "warmup",
                          "global_batch",
                          "seed",
                          "fits_in_memory",
                          "iteration_time_s",
                          "iteration_times_s",
                          "qps",
                          "imbalance_ratio",
                          "degree_of_balance",
                          "breakdown_s",
                          "planning_time_s",
                          "memory_bytes",
                          "worst_memory_gpu",
                          "balance",
                          "per_gpu",
                          "comm_bytes",
                          "shardsim_version"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  for (const char* key : {"mean", "p50", "p99", "min", "max"}) {
    EXPECT_TRUE(j["iteration_time_s"].contains(key)) << key;
  }
  for (const char* key : {"max", "mean", "capacity", "per_gpu"}) {
    EXPECT_TRUE(j["memory_bytes"].contains(key)) << key;
  }
  EXPECT_TRUE(j["comm_bytes"].contains("fwd"));
  EXPECT_TRUE(j["comm_bytes"].contains("bwd"));
}

TEST(ReportWriterJson, ValuesAreTheOnesGiven) {
  const Json j = report_to_json(test::make_report());
  EXPECT_EQ(j["scenario"], "example");
  EXPECT_EQ(j["scenario_source"], "scenarios/example.yaml");
  EXPECT_EQ(j["planner"], "table_wise");
  EXPECT_EQ(j["mode"], "training");
  EXPECT_EQ(j["preset"], "dgx-a100");
  EXPECT_EQ(j["num_gpus"], 4);
  EXPECT_EQ(j["num_nodes"], 2);
  EXPECT_EQ(j["num_tables"], 103);
  EXPECT_EQ(j["iterations"], 10);
  EXPECT_EQ(j["warmup"], 2);
  EXPECT_EQ(j["global_batch"], 16384u);
  EXPECT_EQ(j["seed"], 42u);
  EXPECT_EQ(j["fits_in_memory"], true);
  EXPECT_TRUE(j["fit_error"].is_null());
  EXPECT_DOUBLE_EQ(j["iteration_time_s"]["mean"].get<double>(), 0.0123456);
  EXPECT_DOUBLE_EQ(j["iteration_time_s"]["p50"].get<double>(), 0.0123);
  EXPECT_DOUBLE_EQ(j["iteration_time_s"]["p99"].get<double>(), 0.0130);
  EXPECT_DOUBLE_EQ(j["iteration_time_s"]["min"].get<double>(), 0.0120);
  EXPECT_DOUBLE_EQ(j["iteration_time_s"]["max"].get<double>(), 0.0131);
  EXPECT_EQ(j["iteration_times_s"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["qps"].get<double>(), 1234567.8);
  EXPECT_DOUBLE_EQ(j["imbalance_ratio"].get<double>(), 1.6);
  EXPECT_DOUBLE_EQ(j["degree_of_balance"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(j["breakdown_s"]["embedding_lookup_fwd"]["serialized"].get<double>(), 0.004);
  EXPECT_DOUBLE_EQ(j["breakdown_s"]["embedding_lookup_fwd"]["exposed"].get<double>(), 0.003);
  EXPECT_DOUBLE_EQ(j["breakdown_s"]["alltoall_fwd"]["exposed"].get<double>(), 0.0005);
  EXPECT_DOUBLE_EQ(j["planning_time_s"].get<double>(), 0.0425);
  EXPECT_DOUBLE_EQ(j["memory_bytes"]["max"].get<double>(), 40e9);
  EXPECT_DOUBLE_EQ(j["memory_bytes"]["mean"].get<double>(), 25e9);
  EXPECT_DOUBLE_EQ(j["memory_bytes"]["capacity"].get<double>(), 80e9);
  EXPECT_EQ(j["memory_bytes"]["per_gpu"], Json({10e9, 20e9, 30e9, 40e9}));
  EXPECT_EQ(j["worst_memory_gpu"], 3);
  EXPECT_EQ(j["shardsim_version"], "0.1.0-test");
  // comm_fwd(i, j) = 1000 (i+1) + j off the diagonal; bwd twice that.
  EXPECT_EQ(j["comm_bytes"]["fwd"].size(), 4u);
  EXPECT_DOUBLE_EQ(j["comm_bytes"]["fwd"][1][2].get<double>(), 2002.0);
  EXPECT_DOUBLE_EQ(j["comm_bytes"]["fwd"][2][2].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(j["comm_bytes"]["bwd"][3][0].get<double>(), 8000.0);
}

TEST(ReportWriterJson, PerGpuCarriesEveryGpuReportField) {
  const Json j = report_to_json(test::make_report());
  ASSERT_EQ(j["per_gpu"].size(), 4u);
  const Json& g = j["per_gpu"][2];  // GPU 2: see make_gpu
  std::vector<std::string> keys;
  for (const auto& [k, v] : g.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"gpu",
                                            "node",
                                            "lookup_s",
                                            "busy_s",
                                            "compute_s",
                                            "comm_transfer_s",
                                            "comm_wait_s",
                                            "idle_s",
                                            "time_shares_s",
                                            "memory_bytes",
                                            "memory_capacity_bytes",
                                            "weights_bytes",
                                            "optimizer_bytes",
                                            "cache_bytes",
                                            "activation_bytes",
                                            "reserved_bytes",
                                            "host_memory_bytes",
                                            "host_link_bytes",
                                            "lookups",
                                            "shards",
                                            "comm_sent_bytes",
                                            "comm_received_bytes"}));
  EXPECT_EQ(g["gpu"], 2);
  EXPECT_EQ(g["node"], 1);
  EXPECT_DOUBLE_EQ(g["lookup_s"].get<double>(), 3e-3);
  EXPECT_DOUBLE_EQ(g["busy_s"].get<double>(), 4e-3);
  EXPECT_DOUBLE_EQ(g["comm_transfer_s"].get<double>(), 1e-3);
  EXPECT_DOUBLE_EQ(g["comm_wait_s"].get<double>(), 0.2e-3);
  EXPECT_EQ(g["time_shares_s"].size(), 6u);
  EXPECT_DOUBLE_EQ(g["compute_s"].get<double>(), 3e-3);
  EXPECT_DOUBLE_EQ(g["idle_s"].get<double>(), 0.5e-3);
  EXPECT_DOUBLE_EQ(g["memory_bytes"].get<double>(), 30e9);
  EXPECT_DOUBLE_EQ(g["memory_capacity_bytes"].get<double>(), 80e9);
  EXPECT_DOUBLE_EQ(g["weights_bytes"].get<double>(), 18e9);
  EXPECT_DOUBLE_EQ(g["optimizer_bytes"].get<double>(), 3e9);
  EXPECT_DOUBLE_EQ(g["activation_bytes"].get<double>(), 6e9);
  EXPECT_DOUBLE_EQ(g["reserved_bytes"].get<double>(), 3e9);
  EXPECT_DOUBLE_EQ(g["cache_bytes"].get<double>(), 1e9);
  EXPECT_DOUBLE_EQ(g["host_memory_bytes"].get<double>(), 200e9);
  EXPECT_DOUBLE_EQ(g["host_link_bytes"].get<double>(), 2e8);
  EXPECT_DOUBLE_EQ(g["lookups"].get<double>(), 3e6);
  EXPECT_EQ(g["shards"], 7);
  EXPECT_DOUBLE_EQ(g["comm_sent_bytes"].get<double>(), 3e6);
  EXPECT_DOUBLE_EQ(g["comm_received_bytes"].get<double>(), 6e6);
}

TEST(ReportWriterJson, BalanceIsMaxMinusMinAndMaxOverMean) {
  const Json b = report_to_json(test::make_report())["balance"];
  // memory 10, 20, 30, 40 GB: max - min = 30 GB, mean 25 GB, max/mean = 1.6.
  EXPECT_DOUBLE_EQ(b["memory_bytes"]["max_minus_min"].get<double>(), 30e9);
  EXPECT_DOUBLE_EQ(b["memory_bytes"]["mean"].get<double>(), 25e9);
  EXPECT_DOUBLE_EQ(b["memory_bytes"]["max_over_mean"].get<double>(), 1.6);
  EXPECT_EQ(b["memory_bytes"]["min_gpu"], 0);
  EXPECT_EQ(b["memory_bytes"]["max_gpu"], 3);
  // lookups 1,234,567 + 2e6 + 3e6 + 4e6 = 10,234,567; mean 2,558,641.75.
  EXPECT_DOUBLE_EQ(b["lookups"]["mean"].get<double>(), 2558641.75);
  EXPECT_DOUBLE_EQ(b["lookups"]["max_over_mean"].get<double>(), 4e6 / 2558641.75);
  // comm bytes sent + received = 3 MB (i+1): 3, 6, 9, 12 MB; max - min = 9 MB.
  EXPECT_DOUBLE_EQ(b["comm_bytes"]["max_minus_min"].get<double>(), 9e6);
}

TEST(ReportWriterJson, BalanceWithNothingToBalanceIsNull) {
  Report r = test::make_report();
  for (GpuReport& g : r.per_gpu) g.lookups = 0;
  const Json b = report_to_json(r)["balance"];
  EXPECT_TRUE(b["lookups"]["max_over_mean"].is_null());
  EXPECT_DOUBLE_EQ(b["lookups"]["max_minus_min"].get<double>(), 0.0);
}

TEST(ReportWriterJson, KeyOrderIsStable) {
  const Json j = report_to_json(test::make_report(2, "table_wise", "cluster.nodes=1"));
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  ASSERT_GE(keys.size(), 5u);
  EXPECT_EQ(keys[0], "scenario");
  EXPECT_EQ(keys[1], "scenario_source");
  EXPECT_EQ(keys[2], "planner");
  EXPECT_EQ(keys[3], "sweep_point");
  EXPECT_EQ(keys[4], "mode");
  EXPECT_EQ(keys.back(), "shardsim_version");
}

TEST(ReportWriterJson, SweepPointOnlyWhenSet) {
  EXPECT_FALSE(report_to_json(test::make_report()).contains("sweep_point"));
  const Json j = report_to_json(test::make_report(4, "table_wise", "cluster.nodes=2"));
  EXPECT_EQ(j["sweep_point"], "cluster.nodes=2");
}

TEST(ReportWriterJson, UnfitReportHasNoTiming) {
  const Json j = report_to_json(test::make_unfit_report());
  EXPECT_EQ(j["fits_in_memory"], false);
  EXPECT_EQ(j["fit_error"],
            "the plan does not fit: GPU 2 needs 90.000 GB but has 80.000 GB available");
  for (const char* key :
       {"iteration_time_s", "iteration_times_s", "qps", "imbalance_ratio", "breakdown_s"}) {
    ASSERT_TRUE(j.contains(key)) << key;
    EXPECT_TRUE(j[key].is_null()) << key;
  }
  for (const Json& g : j["per_gpu"]) {
    for (const char* key : {"lookup_s", "busy_s", "comm_transfer_s", "comm_wait_s", "compute_s",
                            "idle_s", "time_shares_s"}) {
      EXPECT_TRUE(g[key].is_null()) << key;
    }
    EXPECT_FALSE(g["memory_bytes"].is_null());
  }
  // What the plan itself says stays: memory, the worst GPU, the communication matrices and the
  // degree of balance of their cost.
  EXPECT_DOUBLE_EQ(j["memory_bytes"]["max"].get<double>(), 90e9);
  EXPECT_DOUBLE_EQ(j["memory_bytes"]["mean"].get<double>(), 25e9);
  EXPECT_EQ(j["worst_memory_gpu"], 2);
  EXPECT_DOUBLE_EQ(j["comm_bytes"]["fwd"][0][1].get<double>(), 1001.0);
  EXPECT_DOUBLE_EQ(j["degree_of_balance"].get<double>(), 0.25);
}

TEST(ReportWriterJson, UnplacedReportHasNoPlanFigures) {
  const Json j = report_to_json(test::make_unplaced_report());
  EXPECT_EQ(j["fits_in_memory"], false);
  EXPECT_TRUE(j["qps"].is_null());
  EXPECT_TRUE(j["degree_of_balance"].is_null());  // no plan: the 0 it carries is no measurement
  EXPECT_TRUE(j["memory_bytes"]["mean"].is_null());
  EXPECT_DOUBLE_EQ(j["memory_bytes"]["max"].get<double>(), 120e9);
  EXPECT_EQ(j["worst_memory_gpu"], 1);
  EXPECT_TRUE(j["per_gpu"].empty());
  EXPECT_TRUE(j["memory_bytes"]["per_gpu"].empty());
  EXPECT_TRUE(j["comm_bytes"]["fwd"].empty());
  EXPECT_TRUE(j["balance"]["memory_bytes"]["max"].is_null());
  EXPECT_TRUE(j["balance"]["lookups"]["max_gpu"].is_null());
}

TEST(ReportWriterJson, SeveralReportsAreAnArrayInOrder) {
  const std::vector<Report> reports{test::make_report(4, "table_wise"),
                                    test::make_report(4, "row_wise"),
                                    test::make_unfit_report(4, "oper")};
  const Json j = reports_to_json(reports);
  ASSERT_TRUE(j.contains("reports"));
  ASSERT_EQ(j.size(), 1u);
  ASSERT_EQ(j["reports"].size(), 3u);
  EXPECT_EQ(j["reports"][0]["planner"], "table_wise");
  EXPECT_EQ(j["reports"][1]["planner"], "row_wise");
  EXPECT_EQ(j["reports"][2]["planner"], "oper");
  EXPECT_EQ(j["reports"][1], report_to_json(reports[1]));
}

TEST(ReportWriterJson, OneReportIsTheObjectItself) {
  const std::vector<Report> reports{test::make_report()};
  EXPECT_EQ(reports_to_json(reports), report_to_json(reports[0]));
  EXPECT_FALSE(reports_to_json(reports).contains("reports"));
}

TEST(ReportWriterJson, NoReportsIsAnEmptyArray) {
  const Json j = reports_to_json({});
  ASSERT_TRUE(j.contains("reports"));
  EXPECT_TRUE(j["reports"].empty());
}

TEST(ReportWriterJson, VersionDefaultsToThisBuild) {
  Report r = test::make_report();
  r.shardsim_version.clear();
  EXPECT_EQ(report_to_json(r)["shardsim_version"], SHARDSIM_VERSION);
}

TEST(ReportWriterJson, DuplicatePhasesAreSummed) {
  Report r = test::make_report();
  r.breakdown.push_back({"alltoall_fwd", 0.001, 0.00025});
  const Json j = report_to_json(r);
  EXPECT_EQ(j["breakdown_s"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["breakdown_s"]["alltoall_fwd"]["serialized"].get<double>(), 0.003);
  EXPECT_DOUBLE_EQ(j["breakdown_s"]["alltoall_fwd"]["exposed"].get<double>(), 0.00075);
}

// Property: the printed JSON reads back to exactly the same doubles, and printing is
// deterministic (same reports, same bytes).
TEST(ReportWriterJson, PrintedNumbersRoundTripExactly) {
  Report r = test::make_report();
  r.qps = 1.0 / 3.0 * 1e6;
  r.comm_fwd.at(0, 1) = 0.1 + 0.2;
  r.per_gpu[1].lookup_s = 1e-7 / 3;
  const std::vector<Report> reports{r, test::make_report(2, "row_wise")};
  std::ostringstream a, b;
  write_json(a, reports);
  write_json(b, reports);
  EXPECT_EQ(a.str(), b.str());
  const Json back = Json::parse(a.str());
  EXPECT_EQ(back["reports"][0]["qps"].get<double>(), r.qps);
  EXPECT_EQ(back["reports"][0]["comm_bytes"]["fwd"][0][1].get<double>(), 0.1 + 0.2);
  EXPECT_EQ(back["reports"][0]["per_gpu"][1]["lookup_s"].get<double>(), 1e-7 / 3);
  EXPECT_EQ(back, reports_to_json(reports));
}

// write_json streams the matrices and prints flat arrays on one line; what it prints must read
// back as exactly reports_to_json.
TEST(ReportWriterJson, StreamedJsonReadsBackAsReportsToJson) {
  Report odd = test::make_report(3, "row_wise", "cluster.nodes=1");
  odd.comm_fwd.at(0, 1) = 1e20;
  odd.comm_fwd.at(1, 0) = 0.1 + 0.2;
  odd.comm_bwd.at(2, 0) = std::numeric_limits<double>::quiet_NaN();  // prints null
  Report empty = test::make_report(0, "none");
  for (const std::vector<Report>& reports :
       {std::vector<Report>{}, std::vector<Report>{test::make_report()},
        std::vector<Report>{test::make_report(), odd, test::make_unfit_report(), empty,
                            test::make_unplaced_report()}}) {
    std::ostringstream out;
    write_json(out, reports);
    EXPECT_EQ(Json::parse(out.str()), reports_to_json(reports)) << out.str();
  }
}

TEST(ReportWriterJson, FlatArraysAndMatrixRowsAreOneLine) {
  const std::vector<Report> reports{test::make_report(2)};
  std::ostringstream out;
  write_json(out, reports);
  const std::string s = out.str();
  EXPECT_NE(s.find("\"per_gpu\": [10000000000.0, 20000000000.0]"), std::string::npos) << s;
  EXPECT_NE(s.find("[0.0, 1001.0]"), std::string::npos) << s;
  EXPECT_NE(s.find("[2000.0, 0.0]"), std::string::npos) << s;
  EXPECT_NE(s.find("\n  \"scenario\": \"example\",\n"), std::string::npos) << s;
}

TEST(ReportWriterJson, ExtraFieldsGoLastInEachReport) {
  const std::vector<Report> reports{test::make_report(), test::make_report(2, "row_wise")};
  std::vector<Json> extra(2);
  extra[0]["note"] = "first";
  extra[1]["note"] = "second";
  std::ostringstream out;
  write_json(out, reports, extra);
  const Json j = Json::parse(out.str());
  EXPECT_EQ(j["reports"][0]["note"], "first");
  EXPECT_EQ(j["reports"][1]["note"], "second");
  EXPECT_EQ(j["reports"][1].items().begin().key(), "scenario");
  std::vector<Json> wrong(1);
  EXPECT_THROW(write_json(out, reports, wrong), std::logic_error);
}

}  // namespace
}  // namespace shardsim

namespace shardsim {
namespace {

TEST(ReportWriterJson, CommMatrixGranularityAndLinkUtilization) {
  Report r = test::make_report();
  r.link_utilization = {LinkClassUse{"nic_rack", 8, 0.25, 0.5, "nic1->rack0"},
                        LinkClassUse{"rack_pod", 2, 0.0, 0.0, ""}};
  Json j = report_to_json(r);
  EXPECT_EQ(j["comm_bytes"]["granularity"], "gpu");
  ASSERT_EQ(j["link_utilization"].size(), 2u);
  EXPECT_EQ(j["link_utilization"][0]["class"], "nic_rack");
  EXPECT_EQ(j["link_utilization"][0]["links"], 8);
  EXPECT_DOUBLE_EQ(j["link_utilization"][0]["max_utilization"].get<double>(), 0.5);
  EXPECT_EQ(j["link_utilization"][0]["busiest_link"], "nic1->rack0");
  EXPECT_TRUE(j["link_utilization"][1]["busiest_link"].is_null());
  // Above the matrix limit, a coarser unit; with none that fits, null matrices. The streamed
  // writer prints the same as the JSON value.
  r.comm_granularity = "node";
  r.comm_fwd = ByteMatrix(2);
  r.comm_fwd.at(0, 1) = 5;
  r.comm_bwd = ByteMatrix(2);
  for (const char* g : {"node", "none"}) {
    r.comm_granularity = g;
    std::ostringstream out;
    write_json(out, std::span<const Report>(&r, 1));
    const Json streamed = Json::parse(out.str());
    EXPECT_EQ(streamed["comm_bytes"], report_to_json(r)["comm_bytes"]) << g;
    EXPECT_EQ(streamed["comm_bytes"]["granularity"], g);
  }
  EXPECT_TRUE(report_to_json(r)["comm_bytes"]["fwd"].is_null());
  EXPECT_TRUE(report_to_json(test::make_unfit_report())["link_utilization"].is_null());
}

}  // namespace
}  // namespace shardsim
