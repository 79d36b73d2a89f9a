// --tolerance metric=value and tolerance files.
#include "shardsim/io/tolerances.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "shardsim/core/error.hpp"
#include "support/scratch.hpp"

namespace shardsim::tolerances_test {
namespace {

double tol(const CompareOptions& o, MetricId id) {
  return o.tolerance[index_of(id)];
}

template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path =
      ::testing::TempDir() + "/shardsim_tol_" + std::to_string(::getpid()) + "_" + name;
  testing::ScratchPaths::instance().add(path);
  std::ofstream(path) << text;
  return path;
}

TEST(Tolerances, DefaultsComeFromTheMetricCatalogue) {
  const CompareOptions o;
  EXPECT_EQ(tol(o, MetricId::qps), 0.01);
  EXPECT_EQ(tol(o, MetricId::iteration_time_p99_s), 0.02);
  EXPECT_EQ(tol(o, MetricId::planning_time_s), 0.5);
  EXPECT_EQ(o.standard_errors, 2.0);
}

TEST(Tolerances, FlagsTakeFractionsAndPercentages) {
  CompareOptions o;
  apply_tolerance_flag(o, "qps=0.05");
  EXPECT_EQ(tol(o, MetricId::qps), 0.05);
  apply_tolerance_flag(o, "qps=2.5%");
  EXPECT_DOUBLE_EQ(tol(o, MetricId::qps), 0.025);
  apply_tolerance_flag(o, "all=0");
  EXPECT_EQ(tol(o, MetricId::qps), 0);
  EXPECT_EQ(tol(o, MetricId::memory_max_bytes), 0);
}

TEST(Tolerances, BadFlagsAreInputErrors) {
  CompareOptions o;
  EXPECT_NE(error_of([&] { apply_tolerance_flag(o, "qsp=0.1"); }).find("did you mean 'qps'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply_tolerance_flag(o, "fits_in_memory=0.1"); }).find("no tolerance"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply_tolerance_flag(o, "qps=-1"); }).find("expected a tolerance"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply_tolerance_flag(o, "qps=fast"); }).find("expected a tolerance"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply_tolerance_flag(o, "qps"); }).find("metric=value"),
            std::string::npos);
  EXPECT_THROW(apply_tolerance_flag(o, "qps=nan"), InputError);
  EXPECT_THROW(apply_tolerance_flag(o, "qps=%"), InputError);
}

TEST(Tolerances, FileSetsMetricsAllFirstAndStandardErrors) {
  const std::string path = write_temp("ok.yaml", R"(# tolerances for the golden tests
tolerances:
  qps: 5%
  all: 0.001
  degree_of_balance: 0.1
standard_errors: 3
)");
  CompareOptions o;
  apply_tolerance_file(o, path);
  EXPECT_DOUBLE_EQ(tol(o, MetricId::qps), 0.05);  // named beats `all`, whatever the order
  EXPECT_EQ(tol(o, MetricId::degree_of_balance), 0.1);
  EXPECT_EQ(tol(o, MetricId::iteration_time_mean_s), 0.001);
  EXPECT_EQ(o.standard_errors, 3);
}

TEST(Tolerances, BadFilesNameFileLineAndKey) {
  CompareOptions o;
  std::string m = error_of([&] {
    apply_tolerance_file(o, write_temp("k.yaml", "tolerances:\n  qps: 0.1\nstandard_error: 2\n"));
  });
  EXPECT_NE(m.find("k.yaml:3:"), std::string::npos) << m;
  EXPECT_NE(m.find("did you mean 'standard_errors'"), std::string::npos) << m;
  m = error_of([&] {
    apply_tolerance_file(o,
                         write_temp("m.yaml", "tolerances:\n  qps: 0.1\n  imbalanse_ratio: 0.2\n"));
  });
  EXPECT_NE(m.find("m.yaml:3:"), std::string::npos) << m;
  EXPECT_NE(m.find("tolerances.imbalanse_ratio"), std::string::npos) << m;
  EXPECT_NE(m.find("did you mean 'imbalance_ratio'"), std::string::npos) << m;
  m = error_of(
      [&] { apply_tolerance_file(o, write_temp("v.yaml", "tolerances:\n  qps: lots\n")); });
  EXPECT_NE(m.find("v.yaml:2:"), std::string::npos) << m;
  EXPECT_NE(m.find("expected a tolerance"), std::string::npos) << m;
  m = error_of(
      [&] { apply_tolerance_file(o, write_temp("d.yaml", "tolerances:\n  qps: 1\n  qps: 2\n")); });
  EXPECT_NE(m.find("written twice"), std::string::npos) << m;
  EXPECT_THROW(apply_tolerance_file(o, write_temp("s.yaml", "standard_errors: 0\n")), InputError);
  EXPECT_THROW(apply_tolerance_file(o, write_temp("e.yaml", "")), InputError);
  EXPECT_THROW(apply_tolerance_file(o, write_temp("y.yaml", "tolerances: [1\n")), InputError);
  EXPECT_THROW(apply_tolerance_file(o, "/nonexistent/tolerances.yaml"), InputError);
}

}  // namespace
}  // namespace shardsim::tolerances_test
