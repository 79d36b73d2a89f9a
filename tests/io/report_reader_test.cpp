// Reading reports back for `compare`: summaries of Reports and of report JSON agree; bad files
// are InputErrors naming the file and key.
#include "shardsim/io/report_reader.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/report_writer_test_fixtures.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/io/report_writer.hpp"

namespace shardsim {
namespace {

namespace fs = std::filesystem;

class ReportReader : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/shardsim_reader_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string write_reports(const std::string& name, const std::vector<Report>& reports) {
    std::ostringstream s;
    write_json(s, reports);
    return write(name, s.str());
  }
  std::string dir_;
};

Report with_hashes(Report r) {
  r.input_hashes = {"fnv1a64:1111111111111111", "fnv1a64:2222222222222222",
                    "fnv1a64:3333333333333333"};
  return r;
}

void expect_same(const ReportSummary& a, const ReportSummary& b) {
  EXPECT_EQ(a.scenario, b.scenario);
  EXPECT_EQ(a.planner, b.planner);
  EXPECT_EQ(a.sweep_point, b.sweep_point);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.setup, b.setup);
  EXPECT_EQ(a.shardsim_version, b.shardsim_version);
  EXPECT_EQ(a.input_hashes, b.input_hashes);
  for (const MetricInfo& m : comparison_metrics()) {
    EXPECT_EQ(a.value(m.id), b.value(m.id)) << m.name;
  }
}

TEST_F(ReportReader, SummaryOfAReportEqualsSummaryOfItsJson) {
  for (const Report& r : {with_hashes(test::make_report(4, "table_wise", "cluster.nodes=2")),
                          test::make_unfit_report(), test::make_unplaced_report()}) {
    const auto json = nlohmann::json::parse(report_to_json(r).dump());
    expect_same(summarize_report(r, "mem"), summarize_report_json(json, "f.json", ""));
  }
}

TEST_F(ReportReader, SummaryValuesFollowTheReport) {
  // make_report(4): comm sent (i+1) MB, received 2(i+1) MB: total sent 1+2+3+4 = 10 MB; the
  // busiest GPU (3) sends 4 and receives 8 MB: 12 MB.
  const ReportSummary s = summarize_report(test::make_report(4), "mem");
  EXPECT_EQ(s.value(MetricId::fits_in_memory), 1.0);
  EXPECT_EQ(s.value(MetricId::iteration_time_mean_s), 0.0123456);
  EXPECT_EQ(s.value(MetricId::iteration_time_p99_s), 0.0130);
  EXPECT_EQ(s.value(MetricId::qps), 1234567.8);
  EXPECT_EQ(s.value(MetricId::imbalance_ratio), 1.6);
  EXPECT_EQ(s.value(MetricId::degree_of_balance), 0.25);
  EXPECT_EQ(s.value(MetricId::memory_max_bytes), 40e9);
  EXPECT_DOUBLE_EQ(*s.value(MetricId::comm_total_bytes), 10e6);
  EXPECT_DOUBLE_EQ(*s.value(MetricId::comm_max_gpu_bytes), 12e6);
  EXPECT_EQ(s.value(MetricId::planning_time_s), 0.0425);
  EXPECT_EQ(s.seed, 42u);
  // A plan that does not fit has no timings; no plan at all has no per-GPU figures either.
  const ReportSummary unfit = summarize_report(test::make_unfit_report(), "mem");
  EXPECT_EQ(unfit.value(MetricId::fits_in_memory), 0.0);
  EXPECT_FALSE(unfit.value(MetricId::qps));
  EXPECT_TRUE(unfit.value(MetricId::comm_total_bytes));
  const ReportSummary unplaced = summarize_report(test::make_unplaced_report(), "mem");
  EXPECT_FALSE(unplaced.value(MetricId::comm_total_bytes));
  EXPECT_FALSE(unplaced.value(MetricId::degree_of_balance));
  EXPECT_EQ(unplaced.value(MetricId::memory_max_bytes), 120e9);
}

TEST_F(ReportReader, ReadsOneReportAndListsOfReports) {
  const std::string one = write_reports("one.json", {test::make_report()});
  const auto a = read_report_file(one);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].origin, one);
  const std::string list = write_reports(
      "list.json", {test::make_report(4, "table_wise"), test::make_report(2, "row_wise")});
  const auto b = read_report_file(list);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[1].planner, "row_wise");
  EXPECT_EQ(b[1].origin, list + ": reports[1]");
  EXPECT_TRUE(read_report_file(write("none.json", "{\"reports\": []}")).empty());
}

TEST_F(ReportReader, ReadsEveryJsonFileOfADirectoryInNameOrder) {
  write_reports("b.json", {test::make_report(4, "row_wise")});
  write_reports("a.json", {test::make_report(4, "table_wise")});
  write("notes.txt", "not a report");
  const auto all = read_reports(dir_);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].planner, "table_wise");
  EXPECT_EQ(all[1].planner, "row_wise");
  const std::string empty = dir_ + "/empty";
  fs::create_directories(empty);
  EXPECT_THROW(read_reports(empty), InputError);
}

// Where the bottom MLP ran is part of the set-up (compare names a difference); the JSON carries
// `bottom_mlp_gpu` only when one GPU ran it, and a report without the key ran it data parallel.
TEST_F(ReportReader, TheBottomMlpsGpuIsPartOfTheSetUp) {
  Report dp = with_hashes(test::make_report(4, "table_wise", ""));
  Report one = dp;
  one.bottom_mlp_gpu = 0;
  const auto dp_json = nlohmann::json::parse(report_to_json(dp).dump());
  const auto one_json = nlohmann::json::parse(report_to_json(one).dump());
  EXPECT_FALSE(dp_json.contains("bottom_mlp_gpu"));
  EXPECT_EQ(one_json.at("bottom_mlp_gpu"), 0);
  expect_same(summarize_report(one, "mem"), summarize_report_json(one_json, "f.json", ""));
  const ReportSummary a = summarize_report_json(dp_json, "a.json", "");
  const ReportSummary b = summarize_report_json(one_json, "b.json", "");
  const auto setup_of = [](const ReportSummary& s) {
    for (const auto& [k, v] : s.setup) {
      if (k == "bottom_mlp_gpu") return v;
    }
    return std::string("missing");
  };
  EXPECT_EQ(setup_of(a), "data parallel");
  EXPECT_EQ(setup_of(b), "0");
  auto bad = one_json;
  bad["bottom_mlp_gpu"] = "zero";
  EXPECT_THROW((void)summarize_report_json(bad, "bad.json", ""), InputError);
}

TEST_F(ReportReader, OlderReportsWithoutNewKeysStillRead) {
  // No input_hashes, no per_gpu, no planning time: those are simply absent.
  const std::string path = write("old.json", R"({"scenario": "s", "planner": "p", "seed": 1,
    "qps": 5.5, "fits_in_memory": true, "shardsim_version": "0.0.1", "something_new": [1, 2]})");
  const auto s = read_report_file(path);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_TRUE(s[0].input_hashes.empty());
  EXPECT_EQ(s[0].value(MetricId::qps), 5.5);
  EXPECT_FALSE(s[0].value(MetricId::comm_total_bytes));
  EXPECT_EQ(s[0].shardsim_version, "0.0.1");
}

// The message of the InputError `f` throws.
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST_F(ReportReader, BadFilesAreInputErrors) {
  EXPECT_NE(error_of([&] { read_reports(dir_ + "/missing.json"); }).find("cannot open"),
            std::string::npos);
  const std::string bad = write("bad.json", "{\n  \"scenario\": \"s\",\n  \"planner\": oops\n}");
  const std::string msg = error_of([&] { read_reports(bad); });
  EXPECT_NE(msg.find("bad.json:3:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("malformed JSON"), std::string::npos) << msg;
  const std::string not_report = write("nr.json", R"({"name": "x"})");
  EXPECT_NE(error_of([&] { read_reports(not_report); }).find("not a shardsim report"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_reports(write("arr.json", "[1, 2]")); }).find("not a shardsim"),
            std::string::npos);
  const std::string wrong = write("wrong.json", R"({"reports": [{"scenario": "s", "planner": "p",
    "qps": "fast"}]})");
  const std::string m2 = error_of([&] { read_reports(wrong); });
  EXPECT_NE(m2.find("reports[0].qps"), std::string::npos) << m2;
  EXPECT_NE(m2.find("expected a number"), std::string::npos) << m2;
  EXPECT_NE(error_of([&] { read_reports(write("r.json", R"({"reports": 3})")); }).find("reports"),
            std::string::npos);
  const std::string neg = write("seed.json", R"({"scenario": "s", "planner": "p", "seed": -1})");
  EXPECT_NE(error_of([&] { read_reports(neg); }).find("seed"), std::string::npos);
  EXPECT_NE(error_of([&] { read_reports(write("e.json", "")); }).find("malformed"),
            std::string::npos);
}

}  // namespace
}  // namespace shardsim
