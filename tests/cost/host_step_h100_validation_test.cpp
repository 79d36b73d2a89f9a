// The host step (docs/model.md, "Host overhead"; cost/host_step_cost.hpp) against eager
// PyTorch DLRM training steps measured on two H100 machines
// (tests/data/kernels/h100_host_step.json: a Criteo-shaped DLRM with its 26 tables in one
// EmbeddingBag or in 26, SGD, the loss read back every step; each step also replayed as a CUDA
// graph, which gives the GPU's work). host_eager_step_s and host_embedding_op_s are fitted to
// the first machine's host-bound points (replay under a quarter of the eager step); every other
// point is judged: an eager step takes the longer of the host's time and the GPU's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "kernel_data.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/cost/host_step_cost.hpp"

namespace shardsim {
namespace {

constexpr int kTables = 26;
constexpr double kHostBoundReplayShare = 0.25;  // replay / eager below this: the host's pace

double step_s(const nlohmann::json& run, bool fused, bool graph, double batch) {
  for (const auto& p : run.at("points")) {
    if (p.at("fused_tables") == fused && p.at("cuda_graph") == graph &&
        p.at("batch").get<double>() == batch) {
      return p.at("step_s").get<double>();
    }
  }
  ADD_FAILURE() << "no point at batch " << batch;
  return 0;
}

bool host_bound(const nlohmann::json& run, bool fused, double batch) {
  return step_s(run, fused, true, batch) < kHostBoundReplayShare * step_s(run, fused, false, batch);
}

HostWork one_gpu_step(bool fused) {
  HostWork w;
  w.embedding_ops = fused ? 1 : kTables;  // one GPU: no collective calls
  return w;
}

// The fit: per EmbeddingBag, the mean over the host-bound batches of (26 bags - 1 bag) / 25;
// the fixed step, the one-bag step's mean less one bag.
TEST(HostStepH100Validation, TheDefaultsAreTheFirstMachinesHostBoundFit) {
  const nlohmann::json run = test::kernel_data("h100_host_step.json").at("runs").at(0);
  double gap = 0, one_bag = 0;
  int n = 0;
  for (double batch : {16.0, 256.0, 4096.0}) {
    if (!host_bound(run, true, batch) || !host_bound(run, false, batch)) continue;
    gap += (step_s(run, false, false, batch) - step_s(run, true, false, batch)) / (kTables - 1);
    one_bag += step_s(run, true, false, batch);
    ++n;
  }
  ASSERT_EQ(n, 2) << "batches 16 and 256 are host-bound, 4096 is not";
  const double op_s = gap / n;
  const double fixed_s = one_bag / n - op_s;
  const CostParams p = default_cost_params();
  EXPECT_NEAR(p.host_embedding_op_s, op_s, 1e-6);
  EXPECT_NEAR(p.host_eager_step_s, fixed_s, 2e-6);
}

// Judged: the second machine's twelve points' eager steps and the first machine's batch-4096
// ones. Today: the host-bound ones within -17%...+12% (the two machines differ by 21% on the
// same point); the two batch-4096 steps of 26 bags 28-31% slower than max(host, GPU): their
// GPU work (3.95 ms replayed) does not hide behind the host's dispatch.
TEST(HostStepH100Validation, HeldOutStepsTakeTheLongerOfTheHostAndTheGpu) {
  const CostParams p = default_cost_params();
  const nlohmann::json data = test::kernel_data("h100_host_step.json");
  int judged = 0;
  for (int r = 0; r < 2; ++r) {
    const nlohmann::json& run = data.at("runs").at(r);
    for (bool fused : {true, false}) {
      for (double batch : {16.0, 256.0, 4096.0}) {
        if (r == 0 && batch != 4096.0) continue;  // the fit's points
        const double predicted =
            std::max(host_step_s(one_gpu_step(fused), p), step_s(run, fused, true, batch));
        const double error = predicted / step_s(run, fused, false, batch) - 1;
        const bool bound = host_bound(run, fused, batch);
        EXPECT_LT(std::abs(error), bound ? 0.20 : 0.35)
            << "run " << r << (fused ? " one bag" : " 26 bags") << " batch " << batch;
        ++judged;
      }
    }
  }
  EXPECT_EQ(judged, 8);
}

// The mechanism the plan now changes: 25 more EmbeddingBags cost the host what the measurement
// shows on both machines (3.9-5.6 ms at the host-bound batches; model 4.18 ms).
TEST(HostStepH100Validation, SeparateEmbeddingBagsCostTheHostPerBag) {
  const CostParams p = default_cost_params();
  const double model_gap = host_step_s(one_gpu_step(false), p) - host_step_s(one_gpu_step(true), p);
  const nlohmann::json data = test::kernel_data("h100_host_step.json");
  for (int r = 0; r < 2; ++r) {
    for (double batch : {16.0, 256.0}) {
      const nlohmann::json& run = data.at("runs").at(r);
      const double measured = step_s(run, false, false, batch) - step_s(run, true, false, batch);
      EXPECT_NEAR(model_gap / measured, 1.0, 0.3) << "run " << r << " batch " << batch;
    }
  }
}

}  // namespace
}  // namespace shardsim
