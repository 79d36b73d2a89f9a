// Least-squares calibration of the collective model (cost/calibration.hpp).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "shardsim/cost/calibration.hpp"
#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim {
namespace {

// Points made by the model itself under `truth`, on 1, 2 and 8 nodes, four ops, 8 B to 1 GB.
std::vector<CalibrationPoint> synthetic(const CostParams& start, const CostParams& truth,
                                        bool with_alltoall) {
  std::vector<CalibrationPoint> out;
  for (int nodes : {1, 2, 8}) {
    const Cluster cluster(builtin_preset("dgx-a100"), nodes);
    for (CollectiveOp op : {CollectiveOp::allreduce, CollectiveOp::allgather,
                            CollectiveOp::reduce_scatter, CollectiveOp::alltoall}) {
      if (op == CollectiveOp::alltoall && !with_alltoall) continue;
      for (double size = 8; size <= 1.1e9; size *= 16) {
        CalibrationPoint pt;
        pt.terms = collective_terms(cluster, op, size, start);
        pt.measured_s = price(pt.terms, truth);
        pt.label = fmt::format("{}x{} {}", nodes, to_string(op), size);
        out.push_back(std::move(pt));
      }
    }
  }
  return out;
}

TEST(Calibration, RecoversTheTimesOfAModelWithOtherParameters) {
  const CostParams start = default_cost_params();
  CostParams truth = start;
  truth.collective_bandwidth_efficiency = 0.7;
  truth.nccl_ll_base_latency_s *= 2.5;
  truth.nccl_ll_scale_out_step_s *= 3;
  truth.nccl_simple_base_latency_s *= 1.5;
  truth.alltoall_peer_scale_out_s *= 2;
  const auto points = synthetic(start, truth, true);
  CalibrationOptions o;
  o.prior_weight = 1e-4;  // let the points decide
  const CalibrationResult r = calibrate_collectives(points, start, o);
  EXPECT_GT(r.rms_log_error_before, 0.1);
  EXPECT_LT(r.rms_log_error_after, 0.01) << "iterations " << r.iterations;
  EXPECT_NEAR(r.params.collective_bandwidth_efficiency, 0.7, 0.02);
  EXPECT_NEAR(r.params.alltoall_peer_scale_out_s / truth.alltoall_peer_scale_out_s, 1, 0.1);
  ASSERT_EQ(r.after_s.size(), points.size());
  // Every parameter of the default set moves; the tree's own latencies only when named.
  EXPECT_EQ(r.fitted.size(), default_calibrated_cost_params(CollectiveModelKind::nccl).size());
  EXPECT_EQ(default_calibrated_cost_params(CollectiveModelKind::nccl).size() + 9,
            calibratable_cost_params(CollectiveModelKind::nccl).size());
  for (const std::string& n : r.fitted) EXPECT_FALSE(n.starts_with("nccl_tree_")) << n;
}

TEST(Calibration, WhatThePointsDoNotDetermineStaysAtItsStart) {
  // No AlltoAll among the points: the per-peer costs have no say in any residual, so the ridge
  // keeps them exactly where they started.
  const CostParams start = default_cost_params();
  CostParams truth = start;
  truth.collective_bandwidth_efficiency = 0.75;
  const CalibrationResult r = calibrate_collectives(synthetic(start, truth, false), start);
  EXPECT_DOUBLE_EQ(r.params.alltoall_peer_scale_up_s, start.alltoall_peer_scale_up_s);
  EXPECT_DOUBLE_EQ(r.params.alltoall_peer_scale_out_s, start.alltoall_peer_scale_out_s);
  EXPECT_LT(r.rms_log_error_after, r.rms_log_error_before);
  EXPECT_LE(r.params.collective_bandwidth_efficiency, 1.0);
}

TEST(Calibration, OnlyTheChosenParametersMove) {
  const CostParams start = default_cost_params();
  CostParams truth = start;
  truth.collective_bandwidth_efficiency = 0.6;
  truth.nccl_ll_base_latency_s *= 2;
  CalibrationOptions o;
  o.parameters = {"collective_bandwidth_efficiency"};
  const CalibrationResult r = calibrate_collectives(synthetic(start, truth, true), start, o);
  EXPECT_EQ(r.fitted, std::vector<std::string>{"collective_bandwidth_efficiency"});
  EXPECT_DOUBLE_EQ(r.params.nccl_ll_base_latency_s, start.nccl_ll_base_latency_s);
  EXPECT_LT(r.params.collective_bandwidth_efficiency, start.collective_bandwidth_efficiency);
}

TEST(Calibration, BadInputIsRefused) {
  const CostParams start = default_cost_params();
  EXPECT_THROW(calibrate_collectives({}, start), std::invalid_argument);
  auto points = synthetic(start, start, false);
  CalibrationOptions unknown;
  unknown.parameters = {"repeat_lookup_hbm_fraction"};
  EXPECT_THROW(calibrate_collectives(points, start, unknown), std::invalid_argument);
  points.front().measured_s = 0;
  EXPECT_THROW(calibrate_collectives(points, start), std::invalid_argument);
  CostParams ideal = start;
  ideal.collective_model = CollectiveModelKind::ideal;
  EXPECT_THROW(calibrate_collectives(synthetic(start, start, false), ideal), std::invalid_argument);
}

}  // namespace
}  // namespace shardsim
