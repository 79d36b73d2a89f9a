// Inference's host step (docs/model.md, "Host overhead"; cost/host_step_cost.hpp) against the
// inference throughputs NVIDIA publishes for its PyTorch DLRM, one GPU, CUDA graphs off
// (tests/data/inference/points.csv: a DGX A100's and a DGX-1's tables). At
// batches up to 256 the latency does not grow with the batch: the host sets it. The A100's
// points fit host_eager_inference_step_s (their mean, less the one fused embedding op); the
// DGX-1's judge it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "kernel_data.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/cost/host_step_cost.hpp"

namespace shardsim {
namespace {

constexpr double kHostBoundBatch = 256;  // up to here the published latency is flat

// The latencies (batch / throughput) of one system's eager points at the host-bound batches.
std::vector<double> eager_host_bound(const std::string& system_prefix) {
  std::ifstream in(std::string(SHARDSIM_SOURCE_DIR) + "/tests/data/inference/points.csv");
  EXPECT_TRUE(in) << "tests/data/inference/points.csv";
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("source_url,framework,system,gpus,model,batch_per_gpu,precision,"
                       "measured_samples_per_s,scenario,set,notes",
                       0),
            0u);
  std::vector<double> out;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = test::csv_fields(line);  // the model column is quoted
    EXPECT_EQ(f.size(), 11u) << line;
    if (f.size() != 11) continue;
    const double batch = std::stod(f[5]);
    const bool eager = f[9].find("cost.host_launch_mode=eager") != std::string::npos;
    if (f[2].find(system_prefix) != std::string::npos && eager && batch <= kHostBoundBatch) {
      out.push_back(batch / std::stod(f[7]));
    }
  }
  return out;
}

HostWork one_gpu_forward() {
  HostWork w;
  w.embedding_ops = 1;  // NVIDIA's DLRM: its 26 tables in one custom CUDA embedding
  w.forward_only = true;
  return w;
}

TEST(HostStepInferenceValidation, TheDefaultIsTheA100sHostBoundMean) {
  const std::vector<double> a100 = eager_host_bound("A100");
  ASSERT_EQ(a100.size(), 16u);  // batches 2-256, two precisions
  double mean = 0;
  for (double s : a100) mean += s / static_cast<double>(a100.size());
  const CostParams p = default_cost_params();
  EXPECT_NEAR(host_step_s(one_gpu_forward(), p), mean, 1e-6);
  // A training step of the same layout costs the host about six times more.
  HostWork training = one_gpu_forward();
  training.forward_only = false;
  EXPECT_GT(host_step_s(training, p), 5 * host_step_s(one_gpu_forward(), p));
}

// Judged: the DGX-1's sixteen host-bound points. Today −2…−19% (median −10%): its host, two
// CPU generations older, dispatches more slowly, which the model does not describe.
TEST(HostStepInferenceValidation, TheDgx1sHostBoundLatenciesAreJudged) {
  const std::vector<double> v100 = eager_host_bound("V100");
  ASSERT_EQ(v100.size(), 16u);
  const double predicted = host_step_s(one_gpu_forward(), default_cost_params());
  std::vector<double> errors;
  for (double s : v100) errors.push_back(predicted / s - 1);
  std::sort(errors.begin(), errors.end(),
            [](double a, double b) { return std::abs(a) < std::abs(b); });
  const double median = std::abs(errors[errors.size() / 2]);
  EXPECT_LT(median, 0.15);
  EXPECT_LT(std::abs(errors.back()), 0.20);
  for (double e : errors) EXPECT_LT(e, 0) << "the older host is the slower one";
}

}  // namespace
}  // namespace shardsim
