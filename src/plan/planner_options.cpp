#include "shardsim/plan/planner_options.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shardsim {

PlannerOptions::PlannerOptions(const YamlValue& options, std::vector<std::string> own_keys)
    : options_(options) {
  if (options_.is_null()) return;
  options_.expect_map();
  std::vector<std::string> allowed = std::move(own_keys);
  allowed.emplace_back(kHeadroomOption);
  allowed.emplace_back(kCommunicationOption);
  allowed.emplace_back(kReplicaSyncOption);
  for (const std::string& k : options_.keys()) {
    if (std::find(allowed.begin(), allowed.end(), k) != allowed.end()) continue;
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    const auto best = did_you_mean(k, allowed);
    throw options_.get(k).error(
        "unknown planner option",
        best ? fmt::format("did you mean '{}'? options of this planner: {}", *best, list)
             : fmt::format("options of this planner: {}", list));
  }
}

bool PlannerOptions::has(std::string_view key) const {
  return !options_.is_null() && options_.has(key);
}

std::optional<YamlValue> PlannerOptions::find(std::string_view key) const {
  if (options_.is_null()) return std::nullopt;
  return options_.find(key);
}

double PlannerOptions::headroom(double default_fraction) const {
  return number_in(kHeadroomOption, 0.0, 0.9, default_fraction);
}

LookupComm read_lookup_comm(const YamlValue& v) {
  return v.as_choice({"pooled", "one_sided"}) == "one_sided" ? LookupComm::one_sided
                                                             : LookupComm::pooled;
}

ReplicaSync read_replica_sync(const YamlValue& v) {
  const std::string s = v.as_choice({"dense", "allgather", "local_aggregated"});
  if (s == "allgather") return ReplicaSync::allgather;
  if (s == "local_aggregated") return ReplicaSync::local_aggregated;
  return ReplicaSync::dense;
}

std::optional<LookupComm> PlannerOptions::lookup_comm() const {
  if (auto v = find(kCommunicationOption)) return read_lookup_comm(*v);
  return std::nullopt;
}

std::optional<ReplicaSync> PlannerOptions::replica_sync() const {
  if (auto v = find(kReplicaSyncOption)) return read_replica_sync(*v);
  return std::nullopt;
}

std::string PlannerOptions::choice(std::string_view key,
                                   std::initializer_list<std::string_view> choices,
                                   std::string default_value) const {
  if (auto v = find(key)) return v->as_choice(choices);
  return default_value;
}

std::uint64_t PlannerOptions::nonnegative_int(std::string_view key,
                                              std::uint64_t default_value) const {
  if (auto v = find(key)) return v->as_nonnegative_int();
  return default_value;
}

std::uint64_t PlannerOptions::positive_int(std::string_view key,
                                           std::uint64_t default_value) const {
  if (auto v = find(key)) return v->as_positive_int();
  return default_value;
}

double PlannerOptions::number_in(std::string_view key, double lo, double hi,
                                 double default_value) const {
  auto v = find(key);
  if (!v) return default_value;
  const double x = v->as_double();
  if (x < lo || x > hi) {
    throw v->error(fmt::format("expected a number in [{}, {}], found {}", lo, hi, x));
  }
  return x;
}

}  // namespace shardsim
