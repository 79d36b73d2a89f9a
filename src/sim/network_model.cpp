// The network models by name (sim/network_model.hpp).
#include "shardsim/sim/network_model.hpp"

#include <array>
#include <stdexcept>

#include "shardsim/sim/fair_share_network.hpp"

namespace shardsim {

namespace {

std::unique_ptr<NetworkModel> make_fair_share(std::vector<double> capacity_Bps) {
  return std::make_unique<FairShareNetwork>(std::move(capacity_Bps));
}

const std::array<NetworkModelInfo, 3> kModels = {{
    {LinkSharing::aggregated, "aggregated",
     "max-min fair sharing; each collective aggregated to one flow per link (default)", true,
     FlowGranularity::aggregated, 0, make_fair_share},
    {LinkSharing::per_flow, "per_flow",
     "max-min fair sharing; one flow per GPU pair or ring hop (reference; small clusters)", true,
     FlowGranularity::per_flow, kPerFlowMaxGpus, make_fair_share},
    {LinkSharing::none, "none", "no sharing: every collective takes its idle-network α-β time",
     false, FlowGranularity::aggregated, 0, nullptr},
}};

}  // namespace

std::span<const NetworkModelInfo> network_models() {
  return kModels;
}

const NetworkModelInfo& network_model(LinkSharing id) {
  for (const NetworkModelInfo& m : kModels) {
    if (m.id == id) return m;
  }
  throw std::logic_error("unknown network model");
}

}  // namespace shardsim
