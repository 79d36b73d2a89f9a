// `shardsim calibrate --kernels`: fitting the embedding kernels to FBGEMM benchmark output, the
// leave-one-out predictions, the cost file it writes (and a scenario that loads it), and its bad
// input.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "shardsim/cost/kernel_calibration.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "support/cli_run.hpp"

namespace shardsim {
namespace {

using testing::run;
using testing::unique_temp;

const std::string kRealLog =
    SHARDSIM_SOURCE_DIR "/tests/data/kernels/fbgemm_pr1244_nbit_device_amd.log";

std::string write_kernel_temp(const std::string& stem, const std::string& text) {
  const std::string path = unique_temp(stem);
  std::ofstream(path) << text;
  return path;
}

std::string slurp_kernel(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A log in the device benchmark's layout whose times the model itself gives on a dgx-h100 GPU
// under known parameters (B 2048, L 20, E 1e9 uniform rows, fp32, row-wise AdaGrad), as the CLI
// is documented to read it: T tables of B·L lookups and B bags each.
std::string synthetic_log() {
  CostParams truth = default_cost_params();
  truth.kernel_hbm_efficiency = 0.7;
  truth.kernel_dim_half_cols = 32;
  truth.kernel_tables_half = 1.5;
  const GpuSpec gpu = builtin_preset("dgx-h100").gpu;
  const double batch = 2048, bag = 20, rows = 1e9;
  std::string text = "# alpha: 1.0\n";
  for (int tables : {1, 4, 16}) {
    for (std::uint32_t dim : {16u, 64u, 256u}) {
      for (const char* pass : {"Forward", "ForwardBackward"}) {
        EmbeddingWork w;
        w.lookups = batch * bag;
        w.pooled_outputs = batch;
        w.distinct_rows = -rows * std::expm1(w.lookups * std::log1p(-1 / rows));
        w.cols = dim;
        w.rows = rows;
        KernelPoint p;
        p.works.assign(static_cast<std::size_t>(tables), w);
        p.pass =
            std::string(pass) == "Forward" ? KernelPass::forward : KernelPass::forward_backward;
        const double t_us = predict_kernel_s(gpu, p, truth) * 1e6;
        text += fmt::format(
            "INFO:root:{}, B: 2048, E: 1000000000, T: {}, D: {}, L: 20, W: False, BW: 1.00 "
            "GB/s, T: {:.4f}us\n",
            pass, tables, dim, t_us);
      }
    }
  }
  return text;
}

TEST(CalibrateKernelsCli, FitsAndPredictsEachPointLeftOut) {
  const std::string log = write_kernel_temp("kernels", synthetic_log());
  const auto r = run("calibrate --kernels " + log +
                     " --preset dgx-h100 --leave-one-out --robust-scale 0 --prior-weight 0.001 "
                     "--format json --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["points"].size(), 18u);
  EXPECT_GT(j["median_abs_error"]["start"].get<double>(), 0.3);  // neutral defaults miss
  EXPECT_LT(j["median_abs_error"]["fitted"].get<double>(), 0.002);
  EXPECT_LT(j["median_abs_error"]["left_out"].get<double>(), 0.01);
  EXPECT_NEAR(j["parameters"]["kernel_hbm_efficiency"]["fitted"].get<double>(), 0.7, 0.01);
  EXPECT_NEAR(j["parameters"]["kernel_dim_half_cols"]["fitted"].get<double>(), 32, 0.5);
  EXPECT_NEAR(j["parameters"]["kernel_tables_half"]["fitted"].get<double>(), 1.5, 0.05);
  EXPECT_FALSE(j["parameters"].contains("kernel_pooling_half"));  // one bag size: undetermined
  const auto& first = j["points"][0];
  EXPECT_EQ(first["pass"], "forward");
  EXPECT_DOUBLE_EQ(first["T"].get<double>(), 1);
  EXPECT_TRUE(first.contains("left_out_s"));
}

TEST(CalibrateKernelsCli, WritesACostFileAScenarioLoadsAndNeverOverwritesIt) {
  const std::string log = write_kernel_temp("kernels", synthetic_log());
  const std::string dir = unique_temp("kcalib_dir");
  std::filesystem::create_directories(dir);
  const std::string cost = dir + "/cost.yaml";
  const auto r =
      run("calibrate --kernels " + log + " --preset dgx-h100 --out " + cost + " --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string text = slurp_kernel(cost);
  EXPECT_NE(text.find("kernel_dim_half_cols: "), std::string::npos) << text;
  EXPECT_NE(text.find("# was 0"), std::string::npos) << text;
  std::ofstream(dir + "/s.yaml") << slurp_kernel(SHARDSIM_SOURCE_DIR "/scenarios/default.yaml")
                                 << "cost: {file: cost.yaml}\n";
  const auto loaded = run("validate " + dir + "/s.yaml --quiet");
  EXPECT_EQ(loaded.code, 0) << loaded.err;
  // An existing --out is refused without --force, and left as it was.
  std::ofstream(cost) << "# mine\n";
  const auto refused = run("calibrate --kernels " + log + " --preset dgx-h100 --out " + cost);
  EXPECT_EQ(refused.code, 2);
  EXPECT_EQ(slurp_kernel(cost), "# mine\n");
  const auto forced =
      run("calibrate --kernels " + log + " --preset dgx-h100 --out " + cost + " --force --quiet");
  EXPECT_EQ(forced.code, 0) << forced.err;
  EXPECT_NE(slurp_kernel(cost).find("kernel_hbm_efficiency: "), std::string::npos);
}

TEST(CalibrateKernelsCli, ReadsAPublishedLog) {
  // One averaged point (pytorch/FBGEMM#1244, an AMD GPU: no preset matches it, so only the
  // reading is checked here; tests/data/kernels/README.md).
  const auto r =
      run("calibrate --kernels " + kRealLog + " --preset dgx-h100 --format json --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["points"].size(), 1u);
  EXPECT_EQ(j["points"][0]["label"], "fbgemm_pr1244_nbit_device_amd.log:9");
  EXPECT_DOUBLE_EQ(j["points"][0]["measured_s"].get<double>(), 5225e-6);
  EXPECT_DOUBLE_EQ(j["points"][0]["D"].get<double>(), 192);
}

TEST(CalibrateKernelsCli, BadInputIsExitTwoWithFileAndLine) {
  const std::string truncated = write_kernel_temp(
      "kernels_bad",
      "INFO:root:Forward, B: 512, E: 100000, T: 32, D: 128, L: 20, W: False, BW: 1 GB/s, T: "
      "9us\nINFO:root:ForwardBackward, B: 512, E: 100000, T: 32, D: 128, L: 20, BW: 590.2\n");
  auto r = run("calibrate --kernels " + truncated + " --preset dgx-h100");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(truncated + ":2: key 'BW'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
  r = run("calibrate --kernels " + kRealLog);  // no GPU
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("need the GPU"), std::string::npos) << r.err;
  r = run("calibrate --kernels " + kRealLog + " --preset dgx-h100 --kernel-set alpha");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("not key=value"), std::string::npos) << r.err;
  // The setting applies where the lines do not name a precision (the published log's do).
  const std::string plain = write_kernel_temp(
      "kernels_plain",
      "INFO:root:Forward, B: 512, E: 100000, T: 32, D: 128, L: 20, W: False, BW: 1 GB/s, T: 9us\n");
  r = run("calibrate --kernels " + plain +
          " --preset dgx-h100 --kernel-set weights-precision=int8");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'int8' are not modelled"), std::string::npos) << r.err;
  r = run("calibrate --kernels " + kRealLog + " --preset dgx-h100 --params collective_launch_s");
  EXPECT_EQ(r.code, 2);
  const std::string uvm = write_kernel_temp(
      "kernels_uvm",
      "python split_table_batched_embeddings_benchmark.py uvm --alpha 1.0\n"
      "INFO:root:Forward, B: 512, E: 100000, T: 32, D: 128, L: 20, W: False, BW: 1 GB/s, T: 9us\n");
  r = run("calibrate --kernels " + uvm + " --preset dgx-h100");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("UVM"), std::string::npos) << r.err;
  r = run("calibrate --kernels " + kRealLog + " --points x.csv --preset dgx-h100");
  EXPECT_EQ(r.code, 2);
}

}  // namespace
}  // namespace shardsim
