// A planner's option schema and typed values (plan/planner_options.hpp).
#include "shardsim/plan/planner_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace shardsim {

namespace {

bool integer_kind(OptionKind k) {
  return k == OptionKind::nonnegative_int || k == OptionKind::positive_int;
}

bool text_kind(OptionKind k) {
  return k == OptionKind::choice || k == OptionKind::planner;
}

bool option_choices_contain(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// `v` as a value of `spec`'s kind; std::invalid_argument when it is not one.
OptionValue::Storage converted_option(const OptionSpec& spec, const OptionValue::Storage& v) {
  const auto bad = [&](const std::string& what) {
    return std::invalid_argument(fmt::format("planner option '{}': {}", spec.name, what));
  };
  if (spec.kind == OptionKind::number) {
    double x = 0;
    if (const auto* d = std::get_if<double>(&v)) {
      x = *d;
    } else if (const auto* u = std::get_if<std::uint64_t>(&v)) {
      x = static_cast<double>(*u);
    } else {
      throw bad("expected a number");
    }
    if (!(x >= spec.lo && x <= spec.hi)) {
      throw bad(fmt::format("{} is outside [{}, {}]", x, spec.lo, spec.hi));
    }
    return x;
  }
  if (integer_kind(spec.kind)) {
    const auto* u = std::get_if<std::uint64_t>(&v);
    if (!u) throw bad("expected a non-negative integer");
    if (spec.kind == OptionKind::positive_int && *u == 0) throw bad("expected a positive integer");
    return *u;
  }
  if (spec.kind == OptionKind::boolean) {
    if (!std::holds_alternative<bool>(v)) throw bad("expected a boolean");
    return v;
  }
  if (text_kind(spec.kind)) {
    const auto* s = std::get_if<std::string>(&v);
    if (!s) throw bad("expected a string");
    if (spec.kind == OptionKind::choice && !option_choices_contain(spec.choices, *s)) {
      throw bad(fmt::format("'{}' is not one of its choices", *s));
    }
    return v;
  }
  if (spec.kind == OptionKind::choice_list) {
    const auto* l = std::get_if<OptionList>(&v);
    if (!l || l->empty()) throw bad("expected a non-empty list");
    for (const std::string& s : *l) {
      if (!option_choices_contain(spec.choices, s))
        throw bad(fmt::format("'{}' is not one of its choices", s));
    }
    return v;
  }
  if (!std::holds_alternative<std::shared_ptr<const PlannerOptions>>(v)) {
    throw bad("expected a planner's options");
  }
  return v;
}

OptionSpec option_spec_of(std::string name, OptionKind kind, std::string doc) {
  OptionSpec s;
  s.name = std::move(name);
  s.kind = kind;
  s.doc = std::move(doc);
  return s;
}

}  // namespace

const std::vector<std::string>& lookup_comm_names() {
  static const std::vector<std::string> names = {"pooled", "one_sided"};
  return names;
}

const std::vector<std::string>& replica_sync_names() {
  static const std::vector<std::string> names = {"dense", "allgather", "local_aggregated"};
  return names;
}

LookupComm lookup_comm_of(std::string_view name) {
  return name == "one_sided" ? LookupComm::one_sided : LookupComm::pooled;
}

ReplicaSync replica_sync_of(std::string_view name) {
  if (name == "allgather") return ReplicaSync::allgather;
  if (name == "local_aggregated") return ReplicaSync::local_aggregated;
  return ReplicaSync::dense;
}

OptionValue::OptionValue(int v) : OptionValue(static_cast<std::int64_t>(v)) {}

OptionValue::OptionValue(std::int64_t v) {
  if (v >= 0) {
    v_ = static_cast<std::uint64_t>(v);
  } else {
    v_ = static_cast<double>(v);
  }
}

OptionValue::OptionValue(PlannerOptions v)
    : v_(std::make_shared<const PlannerOptions>(std::move(v))) {}

OptionSpec OptionSpec::number(std::string name, double lo, double hi,
                              std::optional<double> default_value, std::string doc) {
  OptionSpec s = option_spec_of(std::move(name), OptionKind::number, std::move(doc));
  if (default_value) s.default_value = *default_value;
  s.lo = lo;
  s.hi = hi;
  return s;
}

OptionSpec OptionSpec::integer(std::string name, OptionKind kind,
                               std::optional<std::uint64_t> default_value, std::string doc) {
  OptionSpec s = option_spec_of(std::move(name), kind, std::move(doc));
  if (default_value) s.default_value = *default_value;
  return s;
}

OptionSpec OptionSpec::boolean(std::string name, bool default_value, std::string doc) {
  OptionSpec s = option_spec_of(std::move(name), OptionKind::boolean, std::move(doc));
  s.default_value = default_value;
  return s;
}

OptionSpec OptionSpec::choice(std::string name, std::vector<std::string> choices,
                              std::optional<std::string> default_value, std::string doc) {
  OptionSpec s = option_spec_of(std::move(name), OptionKind::choice, std::move(doc));
  if (default_value) s.default_value = *default_value;
  s.choices = std::move(choices);
  return s;
}

OptionSpec OptionSpec::choice_list(std::string name, std::vector<std::string> choices,
                                   std::string doc) {
  OptionSpec s = option_spec_of(std::move(name), OptionKind::choice_list, std::move(doc));
  s.default_value = OptionList(choices);
  s.choices = std::move(choices);
  return s;
}

OptionSpec OptionSpec::planner(std::string name, std::string default_value, std::string doc) {
  OptionSpec s = option_spec_of(std::move(name), OptionKind::planner, std::move(doc));
  s.default_value = std::move(default_value);
  return s;
}

OptionSpec OptionSpec::planner_options(std::string name, std::string planner_key, std::string doc) {
  OptionSpec s = option_spec_of(std::move(name), OptionKind::planner_options, std::move(doc));
  s.planner_key = std::move(planner_key);
  return s;
}

OptionSchema planner_schema(std::vector<OptionSpec> own, std::optional<double> headroom_default) {
  OptionSchema s = std::move(own);
  s.push_back(OptionSpec::number(std::string(kHeadroomOption), 0.0, 0.9, headroom_default,
                                 "fraction of each GPU's HBM the planner leaves free"));
  s.push_back(OptionSpec::choice(std::string(kCommunicationOption), lookup_comm_names(),
                                 std::nullopt, "how the plan's lookups reach remote rows"));
  s.push_back(OptionSpec::choice(std::string(kReplicaSyncOption), replica_sync_names(),
                                 std::nullopt, "how replicated blocks synchronise gradients"));
  return s;
}

const OptionSpec* find_option(const OptionSchema& schema, std::string_view name) {
  const auto it = std::find_if(schema.begin(), schema.end(),
                               [&](const OptionSpec& s) { return s.name == name; });
  return it == schema.end() ? nullptr : &*it;
}

PlannerOptions::PlannerOptions(const OptionSchema& schema, OptionValues values,
                               SourceLocation where, std::string path)
    : schema_(&schema), where_(std::move(where)), path_(std::move(path)) {
  for (const auto& [key, value] : values) set(key, value);
}

void PlannerOptions::set(std::string_view key, const OptionValue& value, SourceLocation where,
                         std::string path) {
  const OptionSpec* s = schema_ ? find_option(*schema_, key) : nullptr;
  if (!s) throw std::invalid_argument(fmt::format("no planner option '{}'", key));
  if (path.empty()) path = path_of(key);
  if (where.file.empty()) where.file = where_.file;
  given_.insert_or_assign(std::string(key), Given{converted_option(*s, value.storage()),
                                                  std::move(where), std::move(path)});
}

const OptionSpec& PlannerOptions::spec(std::string_view key) const {
  const OptionSpec* s = schema_ ? find_option(*schema_, key) : nullptr;
  if (!s) throw std::logic_error(fmt::format("no planner option '{}' in this schema", key));
  return *s;
}

bool PlannerOptions::has(std::string_view key) const {
  (void)spec(key);
  return given_.find(key) != given_.end();
}

const OptionValue::Storage& PlannerOptions::value(std::string_view key, OptionKind kind) const {
  const OptionSpec& s = spec(key);
  const bool same = s.kind == kind || (integer_kind(s.kind) && integer_kind(kind)) ||
                    (text_kind(s.kind) && text_kind(kind));
  if (!same) throw std::logic_error(fmt::format("planner option '{}' read as another kind", key));
  if (const auto it = given_.find(key); it != given_.end()) return it->second.value;
  if (!s.default_value) {
    throw std::logic_error(fmt::format("planner option '{}' has no default: check has()", key));
  }
  return s.default_value->storage();
}

double PlannerOptions::number(std::string_view key) const {
  const auto& v = value(key, OptionKind::number);
  if (const auto* u = std::get_if<std::uint64_t>(&v)) return static_cast<double>(*u);
  return std::get<double>(v);
}

std::uint64_t PlannerOptions::integer(std::string_view key) const {
  return std::get<std::uint64_t>(value(key, OptionKind::nonnegative_int));
}

bool PlannerOptions::boolean(std::string_view key) const {
  return std::get<bool>(value(key, OptionKind::boolean));
}

const std::string& PlannerOptions::text(std::string_view key) const {
  return std::get<std::string>(value(key, OptionKind::choice));
}

const OptionList& PlannerOptions::list(std::string_view key) const {
  return std::get<OptionList>(value(key, OptionKind::choice_list));
}

const PlannerOptions& PlannerOptions::nested(std::string_view key) const {
  return *std::get<std::shared_ptr<const PlannerOptions>>(value(key, OptionKind::planner_options));
}

std::optional<LookupComm> PlannerOptions::lookup_comm() const {
  if (!has(kCommunicationOption)) return std::nullopt;
  return lookup_comm_of(text(kCommunicationOption));
}

std::optional<ReplicaSync> PlannerOptions::replica_sync() const {
  if (!has(kReplicaSyncOption)) return std::nullopt;
  return replica_sync_of(text(kReplicaSyncOption));
}

SourceLocation PlannerOptions::location_of(std::string_view key) const {
  if (const auto it = given_.find(key); it != given_.end()) return it->second.where;
  return SourceLocation{where_.file, 0, 0};
}

std::string PlannerOptions::path_of(std::string_view key) const {
  if (const auto it = given_.find(key); it != given_.end()) return it->second.path;
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

InputError PlannerOptions::error(std::string_view key, std::string problem,
                                 std::string hint) const {
  return InputError(location_of(key), path_of(key), std::move(problem), std::move(hint));
}

}  // namespace shardsim
