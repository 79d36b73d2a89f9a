#pragma once
// Reading a planner's `placement.options`: the keys every planner accepts, checked together with
// the planner's own keys (an unknown key is an InputError with a "did you mean"), and typed
// getters with the planner's defaults. docs/planners.md lists every option.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/plan/plan.hpp"

namespace shardsim {

// Options every planner accepts.
inline constexpr std::string_view kHeadroomOption = "headroom";
// How the plan's lookups reach remote rows (Plan::lookup_comm): `pooled` or `one_sided`.
inline constexpr std::string_view kCommunicationOption = "communication";
// How replicated blocks synchronise gradients (Plan::replica_sync): `dense`, `allgather` or
// `local_aggregated`.
inline constexpr std::string_view kReplicaSyncOption = "replica_sync";

// The values of those options (and of the plan-file keys of the same names); an InputError
// listing the choices otherwise.
LookupComm read_lookup_comm(const YamlValue& v);
ReplicaSync read_replica_sync(const YamlValue& v);

class PlannerOptions {
 public:
  // `options` may be null (no options). Rejects keys other than `own_keys` and the common ones.
  PlannerOptions(const YamlValue& options, std::vector<std::string> own_keys);

  bool has(std::string_view key) const;
  std::optional<YamlValue> find(std::string_view key) const;

  // `headroom`: fraction of each GPU's HBM the planner leaves free, in [0, 0.9].
  double headroom(double default_fraction) const;
  // `communication` and `replica_sync`, when given. The registry applies them to every plan
  // (planner_registry.cpp); a planner that plans differently for them reads them here too.
  std::optional<LookupComm> lookup_comm() const;
  std::optional<ReplicaSync> replica_sync() const;
  // One of `choices` (default when absent).
  std::string choice(std::string_view key, std::initializer_list<std::string_view> choices,
                     std::string default_value) const;
  std::uint64_t nonnegative_int(std::string_view key, std::uint64_t default_value) const;
  std::uint64_t positive_int(std::string_view key, std::uint64_t default_value) const;
  // A number in [lo, hi].
  double number_in(std::string_view key, double lo, double hi, double default_value) const;

 private:
  YamlValue options_;
};

}  // namespace shardsim
