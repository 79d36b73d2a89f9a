#pragma once
// The cost of a collective on an idle network, behind one interface, so that calibrated models
// (fitted to measured nccl-tests tables) can stand beside the α-β model. The simulation asks the
// model of its inputs (SimulationInputs::collective_model) for every collective's idle-network
// time; the network model (sim/network_model.hpp) decides how concurrent collectives share
// links on top of it.
#include <string_view>

#include "shardsim/cost/collective_demand.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"

namespace shardsim {

class CollectiveModel {
 public:
  virtual ~CollectiveModel() = default;
  virtual std::string_view name() const = 0;
  // The time `demand` takes alone on an idle network: launch, then its stages one after another.
  virtual double idle_time_s(const Cluster& cluster, const CollectiveDemand& demand,
                             const CostParams& params) const = 0;
};

// α-β over the topology (idle_time_s in collective_demand.hpp, docs/model.md): each stage's
// latency plus its most loaded link's bytes over that link's achievable bandwidth.
const CollectiveModel& alpha_beta_collectives();

}  // namespace shardsim
