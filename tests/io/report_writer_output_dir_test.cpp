// `--out DIR`: the files, refusal to overwrite without --force (before writing anything),
// overwriting with it, and no temporary file left behind.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "io/report_writer_test_fixtures.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/io/report_writer.hpp"

namespace shardsim {
namespace {

namespace fs = std::filesystem;

class ReportWriterOutputDir : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() /
            ("shardsim_report_test_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(root_);
    dir_ = (root_ / "out").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  std::set<std::string> listing() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.insert(e.path().filename().string());
    return names;
  }
  std::string read(const std::string& name) const {
    std::ifstream in(fs::path(dir_) / name, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void write(const std::string& name, const std::string& content) const {
    std::ofstream(fs::path(dir_) / name, std::ios::binary) << content;
  }

  fs::path root_;
  std::string dir_;
};

TEST_F(ReportWriterOutputDir, WritesEveryFileForOneReport) {
  const std::vector<Report> reports{test::make_report()};
  write_output_dir(dir_, reports, false);  // creates root_/out and its parent
  const std::set<std::string> expected{"report.json", "summary.csv", "per_gpu.csv",
                                       "comm_matrix_fwd.csv", "comm_matrix_bwd.csv"};
  EXPECT_EQ(listing(), expected);
  const std::vector<std::string> names = output_file_names(1);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), expected);

  const auto json = nlohmann::ordered_json::parse(read("report.json"));
  EXPECT_EQ(json["planner"], "table_wise");
  EXPECT_EQ(json["comm_matrix_files"]["fwd"], "comm_matrix_fwd.csv");
  EXPECT_EQ(json["comm_matrix_files"]["bwd"], "comm_matrix_bwd.csv");

  // Each file holds what its writer writes.
  std::ostringstream fwd, per_gpu, summary;
  write_comm_matrix_csv(fwd, reports[0].comm_fwd);
  write_per_gpu_csv(per_gpu, reports);
  write_csv_summary(summary, reports);
  EXPECT_EQ(read("comm_matrix_fwd.csv"), fwd.str());
  EXPECT_EQ(read("per_gpu.csv"), per_gpu.str());
  EXPECT_EQ(read("summary.csv"), summary.str());
}

TEST_F(ReportWriterOutputDir, SeveralReportsGetIndexedMatrices) {
  Report b = test::make_report(2, "row_wise");
  b.comm_bwd.at(0, 1) = 777;
  const std::vector<Report> reports{test::make_report(4, "table_wise"), b,
                                    test::make_unfit_report(3, "oper")};
  write_output_dir(dir_, reports, false);
  const std::set<std::string> files = listing();
  EXPECT_EQ(files.size(), 3u + 2 * 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(files.count("comm_matrix_fwd." + std::to_string(i) + ".csv")) << i;
    EXPECT_TRUE(files.count("comm_matrix_bwd." + std::to_string(i) + ".csv")) << i;
  }
  EXPECT_FALSE(files.count("comm_matrix_fwd.csv"));
  const auto json = nlohmann::ordered_json::parse(read("report.json"));
  ASSERT_EQ(json["reports"].size(), 3u);
  EXPECT_EQ(json["reports"][1]["planner"], "row_wise");
  EXPECT_EQ(json["reports"][1]["comm_matrix_files"]["bwd"], "comm_matrix_bwd.1.csv");
  EXPECT_EQ(json["reports"][2]["comm_matrix_files"]["fwd"], "comm_matrix_fwd.2.csv");
  EXPECT_EQ(read("comm_matrix_bwd.1.csv"), "src\\dst,0,1\n0,0,777\n1,4000,0\n");
}

TEST_F(ReportWriterOutputDir, ExistingFileWithoutForceChangesNothing) {
  fs::create_directories(dir_);
  write("per_gpu.csv", "old");
  const std::vector<Report> reports{test::make_report()};
  try {
    write_output_dir(dir_, reports, false);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "--out");
    EXPECT_EQ(e.where().file, dir_);
    EXPECT_EQ(e.problem(), "per_gpu.csv already exists");
    EXPECT_EQ(e.hint(), "pass --force to overwrite");
  }
  EXPECT_EQ(listing(), std::set<std::string>{"per_gpu.csv"});
  EXPECT_EQ(read("per_gpu.csv"), "old");
}

TEST_F(ReportWriterOutputDir, ForceOverwrites) {
  const std::vector<Report> first{test::make_report(4, "table_wise")};
  write_output_dir(dir_, first, false);
  const std::vector<Report> second{test::make_report(2, "row_wise")};
  EXPECT_THROW(write_output_dir(dir_, second, false), InputError);
  write_output_dir(dir_, second, true);
  const auto json = nlohmann::ordered_json::parse(read("report.json"));
  EXPECT_EQ(json["planner"], "row_wise");
  EXPECT_EQ(read("comm_matrix_fwd.csv"), "src\\dst,0,1\n0,0,1001\n1,2000,0\n");
  EXPECT_EQ(listing().size(), 5u);  // and no temporary files
}

TEST_F(ReportWriterOutputDir, NoTemporaryFileLeftBehind) {
  const std::vector<Report> reports{test::make_report(), test::make_report(2, "row_wise")};
  write_output_dir(dir_, reports, false);
  write_output_dir(dir_, reports, true);
  for (const std::string& name : listing()) {
    EXPECT_EQ(name.find(".tmp"), std::string::npos) << name;
  }
}

TEST_F(ReportWriterOutputDir, SameReportsSameBytes) {
  const std::vector<Report> reports{test::make_report(), test::make_unfit_report()};
  write_output_dir(dir_, reports, false);
  std::vector<std::string> before;
  for (const std::string& name : output_file_names(2)) before.push_back(read(name));
  write_output_dir(dir_, reports, true);
  std::vector<std::string> after;
  for (const std::string& name : output_file_names(2)) after.push_back(read(name));
  EXPECT_EQ(before, after);
}

TEST_F(ReportWriterOutputDir, OutPathThatIsAFileIsBadInput) {
  fs::create_directories(root_);
  std::ofstream(dir_) << "not a directory";
  const std::vector<Report> reports{test::make_report()};
  try {
    write_output_dir(dir_, reports, true);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "--out");
    EXPECT_EQ(e.problem(), "exists and is not a directory");
  }
}

TEST_F(ReportWriterOutputDir, TargetThatIsADirectoryIsBadInputEvenWithForce) {
  fs::create_directories(fs::path(dir_) / "summary.csv");
  const std::vector<Report> reports{test::make_report()};
  EXPECT_THROW(write_output_dir(dir_, reports, true), InputError);
  EXPECT_EQ(listing(), std::set<std::string>{"summary.csv"});
}

}  // namespace
}  // namespace shardsim
