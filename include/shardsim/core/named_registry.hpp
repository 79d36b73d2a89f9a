#pragma once
// The one rule for things chosen by name in a scenario (planners, network models): a registry
// is a list of entries with a `name`; an unknown name is an InputError at the key with a "did you
// mean" and the list of names.
#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shardsim/core/did_you_mean.hpp"
#include "shardsim/core/error.hpp"

namespace shardsim {

template <class Entry>
std::vector<std::string> registry_names(std::span<const Entry> entries) {
  std::vector<std::string> names;
  names.reserve(entries.size());
  for (const Entry& e : entries) names.emplace_back(e.name);
  return names;
}

// The entry called `name`; `what` names the kind ("planner", "network model").
template <class Entry>
const Entry& find_in_registry(std::span<const Entry> entries, std::string_view name,
                              std::string_view what, const SourceLocation& where,
                              const std::string& key) {
  const auto it =
      std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.name == name; });
  if (it != entries.end()) return *it;
  const std::vector<std::string> names = registry_names(entries);
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  const auto best = did_you_mean(name, names);
  throw InputError(where, key, fmt::format("unknown {} '{}'", what, name),
                   best ? fmt::format("did you mean '{}'? {}s: {}", *best, what, list)
                        : fmt::format("{}s: {}", what, list));
}

}  // namespace shardsim
