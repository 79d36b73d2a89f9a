// The network models by name (sim/network_model.hpp).
#include "shardsim/sim/network_model.hpp"

#include <array>
#include <stdexcept>

#include "shardsim/core/named_registry.hpp"
#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/sim/simulation_options.hpp"
#include "sim/fair_share_network.hpp"

namespace shardsim {

namespace {

// Max-min fair sharing of the links (sim/fair_share_network.hpp) between demands of one
// granularity; `interference` adds the loss of links that several flows share.
class FairShareModel final : public NetworkModelType {
 public:
  enum class Sharing { shared, shared_with_interference, idle };
  FairShareModel(FlowGranularity granularity, Sharing sharing)
      : granularity_(granularity), sharing_(sharing) {}

  bool needs_pair_traffic() const override { return granularity_ == FlowGranularity::per_flow; }
  CollectiveDemand alltoall_demand(const Cluster& cluster, std::span<const int> group,
                                   const LevelTraffic& traffic, const ByteMatrix* pairs,
                                   const CostParams& p) const override {
    if (pairs) return alltoallv_demand(cluster, *pairs, p, FlowGranularity::per_flow, group);
    return alltoallv_demand(cluster, traffic, p, group);
  }
  CollectiveDemand allreduce_demand(const Cluster& cluster, std::span<const int> gpus, double bytes,
                                    const CostParams& p) const override {
    return shardsim::allreduce_demand(cluster, gpus, bytes, p, granularity_);
  }
  CollectiveDemand replica_sync_demand(const Cluster& cluster, const ReplicaSyncBucket& bucket,
                                       ReplicaSync variant, const CostParams& p) const override {
    return shardsim::replica_sync_demand(cluster, bucket, variant, p, granularity_);
  }
  bool shares_links() const override { return sharing_ != Sharing::idle; }
  std::unique_ptr<NetworkModel> make_network(std::vector<double> capacity_Bps,
                                             const CostParams& p) const override {
    if (sharing_ == Sharing::idle) {
      throw std::logic_error("a network model that shares no links makes no network");
    }
    const double loss = sharing_ == Sharing::shared_with_interference ? p.interference_loss : 0.0;
    return std::make_unique<FairShareNetwork>(std::move(capacity_Bps), loss);
  }

 private:
  FlowGranularity granularity_;
  Sharing sharing_;
};

const FairShareModel kAggregated(FlowGranularity::aggregated, FairShareModel::Sharing::shared);
const FairShareModel kPerFlow(FlowGranularity::per_flow, FairShareModel::Sharing::shared);
const FairShareModel kIdle(FlowGranularity::aggregated, FairShareModel::Sharing::idle);
const FairShareModel kInterference(FlowGranularity::aggregated,
                                   FairShareModel::Sharing::shared_with_interference);

const std::array<NetworkModelInfo, 4> kModels = {{
    {"aggregated",
     "max-min fair sharing; each collective aggregated to one flow per link (default)", 0,
     kAggregated},
    {"per_flow",
     "max-min fair sharing; one flow per GPU pair or ring hop (reference; small clusters)",
     kPerFlowMaxGpus, kPerFlow},
    {"none", "no sharing: every collective takes its idle-network α-β time", 0, kIdle},
    {"interference",
     "as aggregated, and a link that k collectives share delivers 1 - interference_loss x "
     "(1 - 1/k) of its capacity (Neo §4.2's interference; the loss is a GUESS)",
     0, kInterference},
}};

}  // namespace

std::span<const NetworkModelInfo> network_models() {
  return kModels;
}

std::vector<std::string> network_model_names() {
  return registry_names(network_models());
}

const NetworkModelInfo& network_model(std::string_view name) {
  for (const NetworkModelInfo& m : kModels) {
    if (m.name == name) return m;
  }
  throw std::invalid_argument("unknown network model '" + std::string(name) + "'");
}

const NetworkModelInfo& find_network_model(std::string_view name, const SourceLocation& where,
                                           const std::string& key) {
  return find_in_registry(network_models(), name, "network model", where, key);
}

}  // namespace shardsim
