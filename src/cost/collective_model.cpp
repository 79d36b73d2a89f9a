// The α-β collective model behind the CollectiveModel interface (cost/collective_model.hpp).
#include "shardsim/cost/collective_model.hpp"

namespace shardsim {

namespace {

class AlphaBetaCollectives final : public CollectiveModel {
 public:
  std::string_view name() const override { return "alpha_beta"; }
  double idle_time_s(const Cluster& cluster, const CollectiveDemand& demand,
                     const CostParams& params) const override {
    return shardsim::idle_time_s(cluster, demand, params);
  }
};

}  // namespace

const CollectiveModel& alpha_beta_collectives() {
  static const AlphaBetaCollectives model;
  return model;
}

}  // namespace shardsim
