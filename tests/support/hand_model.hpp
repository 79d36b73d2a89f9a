#pragma once
// Small models and plans for tests whose expected values are computed by hand.
#include <string>

#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim::testing {

// `tables` equal tables with fixed pooling; dense 16 -> bottom [64]; top [1]; fp32 tables and
// communication, tf32 MLPs.
inline DlrmModel hand_model(std::size_t tables, std::uint64_t rows, std::uint32_t dim,
                            double pooling) {
  DlrmModel m;
  for (std::size_t t = 0; t < tables; ++t) {
    EmbeddingTable e;
    e.name = "t" + std::to_string(t);
    e.rows = rows;
    e.dim = dim;
    e.pooling.kind = PoolingSpec::Kind::fixed;
    e.pooling.value = pooling;
    e.alpha = 0;
    m.tables.push_back(e);
  }
  m.dense_features = 16;
  m.bottom_mlp = {64};
  m.top_mlp = {1};
  m.table_precision = Precision::fp32;
  m.comm_precision = Precision::fp32;
  m.mlp_precision = Precision::tf32;
  return m;
}

// The plan of a registered planner with no options.
inline Plan plan_with(const std::string& planner, const PlanningContext& ctx) {
  return make_planner(planner)->plan(ctx);
}

}  // namespace shardsim::testing
