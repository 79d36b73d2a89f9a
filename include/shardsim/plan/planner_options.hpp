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

namespace shardsim {

// Options every planner accepts.
inline constexpr std::string_view kHeadroomOption = "headroom";

class PlannerOptions {
 public:
  // `options` may be null (no options). Rejects keys other than `own_keys` and the common ones.
  PlannerOptions(const YamlValue& options, std::vector<std::string> own_keys);

  bool has(std::string_view key) const;
  std::optional<YamlValue> find(std::string_view key) const;

  // `headroom`: fraction of each GPU's HBM the planner leaves free, in [0, 0.9].
  double headroom(double default_fraction) const;
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
