// Scaling factors along each swept key with the others held (metrics/scaling_factor.hpp).
#include "shardsim/metrics/scaling_factor.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace shardsim {
namespace {

struct Point {
  int nodes;
  int batch;
  double qps;
};

// A nodes x batch sweep of one planner on 8-GPU nodes, in sweep order.
void sweep(const std::vector<Point>& points, std::vector<Report>& reports,
           std::vector<SweepCoordinates>& coords) {
  for (const Point& p : points) {
    Report r;
    r.planner = "table_wise";
    r.sweep_point = "cluster.nodes=" + std::to_string(p.nodes) +
                    ",workload.batch_per_gpu=" + std::to_string(p.batch);
    r.num_gpus = 8 * p.nodes;
    r.qps = p.qps;
    r.fits_in_memory = true;
    r.iteration_times_s = {1.0};
    reports.push_back(r);
    coords.push_back({{"cluster.nodes", std::to_string(p.nodes)},
                      {"workload.batch_per_gpu", std::to_string(p.batch)}});
  }
}

TEST(ScalingFactorAlongKeys, HoldsTheOtherKey) {
  // Points (1, 256), (1, 512), (2, 256), (2, 512): (2, 512) scales against (1, 512), not against
  // the first point (1, 256), which differs in the batch too.
  std::vector<Report> rs;
  std::vector<SweepCoordinates> cs;
  sweep({{1, 256, 100}, {1, 512, 180}, {2, 256, 150}, {2, 512, 300}}, rs, cs);
  assign_scaling_factors(rs, cs);
  EXPECT_TRUE(std::isnan(rs[0].scaling_factor));
  EXPECT_TRUE(std::isnan(rs[1].scaling_factor));  // same GPUs as (1, 256): batch only
  EXPECT_DOUBLE_EQ(rs[2].scaling_factor, (150.0 / 100) / 2);
  EXPECT_DOUBLE_EQ(rs[3].scaling_factor, (300.0 / 180) / 2);
}

TEST(ScalingFactorAlongKeys, BatchFirstOrderGivesTheSameReferences) {
  // The keys in the other order (batch outer): the same references by coordinates.
  std::vector<Report> rs;
  std::vector<SweepCoordinates> cs;
  sweep({{1, 256, 100}, {2, 256, 150}, {1, 512, 180}, {2, 512, 300}}, rs, cs);
  assign_scaling_factors(rs, cs);
  EXPECT_DOUBLE_EQ(rs[1].scaling_factor, (150.0 / 100) / 2);
  EXPECT_TRUE(std::isnan(rs[2].scaling_factor));
  EXPECT_DOUBLE_EQ(rs[3].scaling_factor, (300.0 / 180) / 2);
}

TEST(ScalingFactorAlongKeys, NoneWhenTheHeldPointDidNotRun) {
  // (1, 512) does not fit: (2, 512) has no point along the nodes with its batch, and is not
  // scaled against (1, 256), which differs in the batch too.
  std::vector<Report> rs;
  std::vector<SweepCoordinates> cs;
  sweep({{1, 256, 100}, {1, 512, 180}, {2, 256, 150}, {2, 512, 300}}, rs, cs);
  rs[1].fits_in_memory = false;
  rs[1].iteration_times_s.clear();
  assign_scaling_factors(rs, cs);
  EXPECT_TRUE(std::isnan(rs[1].scaling_factor));
  EXPECT_DOUBLE_EQ(rs[2].scaling_factor, (150.0 / 100) / 2);
  EXPECT_TRUE(std::isnan(rs[3].scaling_factor));
}

TEST(ScalingFactorAlongKeys, ZipGroupsScaleAgainstTheirFirstPoint) {
  // nodes and batch zipped: (1, 512), (2, 256), (4, 128): every point differs in both keys.
  std::vector<Report> rs;
  std::vector<SweepCoordinates> cs;
  sweep({{1, 512, 100}, {2, 256, 150}, {4, 128, 220}}, rs, cs);
  assign_scaling_factors(rs, cs);
  EXPECT_DOUBLE_EQ(rs[1].scaling_factor, (150.0 / 100) / 2);
  EXPECT_DOUBLE_EQ(rs[2].scaling_factor, (220.0 / 100) / 4);
}

TEST(ScalingFactorAlongKeys, OneCoordinateListPerReport) {
  std::vector<Report> rs(2);
  std::vector<SweepCoordinates> cs(1);
  EXPECT_THROW(assign_scaling_factors(rs, cs), std::invalid_argument);
}

}  // namespace
}  // namespace shardsim
