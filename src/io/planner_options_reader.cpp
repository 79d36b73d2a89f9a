// Planner options from YAML (io/planner_options_reader.hpp).
#include "shardsim/io/planner_options_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "shardsim/plan/planner.hpp"

namespace shardsim {

namespace {

std::string option_name_list(const std::vector<std::string>& names) {
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
}

// One of `choices`, as YamlValue::as_choice says it.
std::string option_choice(const YamlValue& v, const std::vector<std::string>& choices) {
  const std::string s = v.as_string();
  if (std::find(choices.begin(), choices.end(), s) != choices.end()) return s;
  const auto best = did_you_mean(s, choices);
  throw v.error(fmt::format("'{}' is not one of: {}", s, option_name_list(choices)),
                best ? fmt::format("did you mean '{}'?", *best) : std::string{});
}

void check_option_keys(const YamlValue& options, const OptionSchema& schema) {
  std::vector<std::string> allowed;
  for (const OptionSpec& s : schema) allowed.push_back(s.name);
  for (const std::string& k : options.keys()) {
    if (std::find(allowed.begin(), allowed.end(), k) != allowed.end()) continue;
    const auto best = did_you_mean(k, allowed);
    throw options.get(k).error(
        "unknown planner option",
        best ? fmt::format("did you mean '{}'? options of this planner: {}", *best,
                           option_name_list(allowed))
             : fmt::format("options of this planner: {}", option_name_list(allowed)));
  }
}

// A value of every kind but planner_options.
OptionValue option_value(const YamlValue& v, const OptionSpec& spec) {
  switch (spec.kind) {
    case OptionKind::number: {
      const double x = v.as_double();
      if (x < spec.lo || x > spec.hi) {
        throw v.error(fmt::format("expected a number in [{}, {}], found {}", spec.lo, spec.hi, x));
      }
      return x;
    }
    case OptionKind::nonnegative_int:
      return v.as_nonnegative_int();
    case OptionKind::positive_int:
      return v.as_positive_int();
    case OptionKind::boolean:
      return v.as_bool();
    case OptionKind::choice:
      return option_choice(v, spec.choices);
    case OptionKind::planner: {
      std::string name = v.as_string();
      (void)find_planner(name, v.location(), v.path());  // an unknown one: "did you mean"
      return name;
    }
    case OptionKind::choice_list: {
      if (!v.is_sequence() || v.size() == 0) {
        throw v.error(fmt::format("expected a non-empty list of {}", spec.name),
                      fmt::format("e.g. [{}]; one or more of: {}", spec.choices.front(),
                                  option_name_list(spec.choices)));
      }
      OptionList out;
      for (const YamlValue& item : v.elements()) out.push_back(option_choice(item, spec.choices));
      return out;
    }
    case OptionKind::planner_options:
      break;
  }
  throw std::logic_error("planner_options are read with their planner's schema");
}

}  // namespace

PlannerOptions read_planner_options(const YamlValue& options, const OptionSchema& schema) {
  const SourceLocation where =
      options.is_null() ? SourceLocation{options.file(), 0, 0} : options.location();
  PlannerOptions out(schema, {}, where, options.path());
  if (options.is_null()) return out;
  options.expect_map();
  check_option_keys(options, schema);
  for (const OptionSpec& spec : schema) {  // the planner names first, then the options of them
    const auto v = options.find(spec.name);
    if (v && spec.kind != OptionKind::planner_options) {
      out.set(spec.name, option_value(*v, spec), v->location(), v->path());
    }
  }
  for (const OptionSpec& spec : schema) {
    const auto v = options.find(spec.name);
    if (!v || spec.kind != OptionKind::planner_options) continue;
    const PlannerInfo& planner =
        find_planner(out.text(spec.planner_key), out.location_of(spec.planner_key),
                     out.path_of(spec.planner_key));
    out.set(spec.name, read_planner_options(*v, planner.options), v->location(), v->path());
  }
  return out;
}

LookupComm read_lookup_comm(const YamlValue& v) {
  return lookup_comm_of(option_choice(v, lookup_comm_names()));
}

ReplicaSync read_replica_sync(const YamlValue& v) {
  return replica_sync_of(option_choice(v, replica_sync_names()));
}

}  // namespace shardsim
