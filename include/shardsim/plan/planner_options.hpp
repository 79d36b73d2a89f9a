#pragma once
// A planner's options: the schema each planner declares (name, kind, range or choices, default,
// one line of doc) and the typed values its factory takes. io/planner_options_reader.hpp reads
// `placement.options` into them, with the errors a user sees; code (a planner that runs another,
// tests) builds them directly. docs/planners.md lists every option (a test checks).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "shardsim/core/error.hpp"
#include "shardsim/plan/plan.hpp"

namespace shardsim {

// Options every planner accepts (planner_schema adds them).
inline constexpr std::string_view kHeadroomOption = "headroom";
// How the plan's lookups reach remote rows (Plan::lookup_comm): `pooled` or `one_sided`.
inline constexpr std::string_view kCommunicationOption = "communication";
// How replicated blocks synchronise gradients (Plan::replica_sync): `dense`, `allgather` or
// `local_aggregated`.
inline constexpr std::string_view kReplicaSyncOption = "replica_sync";

// The values of those two options (and of the plan-file keys of the same names), in order, and
// their meaning; `name` must be one of them.
const std::vector<std::string>& lookup_comm_names();
const std::vector<std::string>& replica_sync_names();
LookupComm lookup_comm_of(std::string_view name);
ReplicaSync replica_sync_of(std::string_view name);

enum class OptionKind {
  number,           // a double in [lo, hi]
  nonnegative_int,  // std::uint64_t
  positive_int,     // std::uint64_t > 0
  boolean,
  choice,           // one of `choices`
  choice_list,      // a non-empty list of `choices`
  planner,          // a registered planner's name
  planner_options,  // the options of the planner named by the option `planner_key`
};

class PlannerOptions;
using OptionList = std::vector<std::string>;

// One value, as code gives it: converted to the option's kind when set (an integer to a
// number; a negative integer is a number).
class OptionValue {
 public:
  using Storage = std::variant<bool, std::uint64_t, double, std::string, OptionList,
                               std::shared_ptr<const PlannerOptions>>;
  OptionValue(bool v) : v_(v) {}
  OptionValue(int v);
  OptionValue(std::int64_t v);
  OptionValue(std::uint64_t v) : v_(v) {}
  OptionValue(double v) : v_(v) {}
  OptionValue(const char* v) : v_(std::string(v)) {}
  OptionValue(std::string v) : v_(std::move(v)) {}
  OptionValue(OptionList v) : v_(std::move(v)) {}
  OptionValue(PlannerOptions v);
  const Storage& storage() const { return v_; }

 private:
  Storage v_;
};

struct OptionSpec {
  std::string name;
  OptionKind kind = OptionKind::number;
  std::string doc;                           // one line, for readers of the schema
  std::optional<OptionValue> default_value;  // none: the planner decides when it is not given
  double lo = 0, hi = 0;                     // number: the range
  std::vector<std::string> choices;          // choice, choice_list
  std::string planner_key;                   // planner_options: the option naming the planner

  static OptionSpec number(std::string name, double lo, double hi,
                           std::optional<double> default_value, std::string doc);
  static OptionSpec integer(std::string name, OptionKind kind,
                            std::optional<std::uint64_t> default_value, std::string doc);
  static OptionSpec boolean(std::string name, bool default_value, std::string doc);
  static OptionSpec choice(std::string name, std::vector<std::string> choices,
                           std::optional<std::string> default_value, std::string doc);
  // Defaults to all the choices.
  static OptionSpec choice_list(std::string name, std::vector<std::string> choices,
                                std::string doc);
  static OptionSpec planner(std::string name, std::string default_value, std::string doc);
  static OptionSpec planner_options(std::string name, std::string planner_key, std::string doc);
};

// A planner's options: its own, then the common ones (kHeadroomOption with the planner's default,
// or none; communication and replica_sync, without defaults).
using OptionSchema = std::vector<OptionSpec>;
OptionSchema planner_schema(std::vector<OptionSpec> own, std::optional<double> headroom_default);
const OptionSpec* find_option(const OptionSchema& schema, std::string_view name);

using OptionValues = std::vector<std::pair<std::string, OptionValue>>;

// The options a planner is made with: those given, checked against its schema, and the schema's
// defaults. A getter of a key the schema does not declare, of another kind, or not given and
// without a default is a std::logic_error (a bug, never bad input).
class PlannerOptions {
 public:
  PlannerOptions() = default;  // no schema: nothing can be read
  // `schema` must outlive these options (the registry's do). `where` and `path`: the options'
  // own location and dotted key (`placement.options`), for errors at keys not given.
  explicit PlannerOptions(const OptionSchema& schema, OptionValues values = {},
                          SourceLocation where = {}, std::string path = "placement.options");

  // Sets `key`, given at `where` / `path` (defaults: not in a file, path.key). A key the schema
  // does not declare or a value not of its kind or range is a std::invalid_argument: the reader
  // (io/planner_options_reader.hpp) checks input first, with errors for the user.
  void set(std::string_view key, const OptionValue& value, SourceLocation where = {},
           std::string path = {});

  const OptionSchema* schema() const { return schema_; }
  bool has(std::string_view key) const;  // given
  double number(std::string_view key) const;
  std::uint64_t integer(std::string_view key) const;
  bool boolean(std::string_view key) const;
  const std::string& text(std::string_view key) const;  // a choice or a planner's name
  const OptionList& list(std::string_view key) const;
  const PlannerOptions& nested(std::string_view key) const;  // given only
  // `communication` and `replica_sync`, when given.
  std::optional<LookupComm> lookup_comm() const;
  std::optional<ReplicaSync> replica_sync() const;

  // Where the options, or `key` (the options' file when it is not given), are; and an
  // InputError there.
  const SourceLocation& location() const { return where_; }
  const std::string& path() const { return path_; }
  SourceLocation location_of(std::string_view key) const;
  std::string path_of(std::string_view key) const;
  [[nodiscard]] InputError error(std::string_view key, std::string problem,
                                 std::string hint = {}) const;

 private:
  struct Given {
    OptionValue::Storage value;
    SourceLocation where;
    std::string path;
  };
  const OptionValue::Storage& value(std::string_view key, OptionKind kind) const;
  const OptionSpec& spec(std::string_view key) const;

  const OptionSchema* schema_ = nullptr;
  std::map<std::string, Given, std::less<>> given_;
  SourceLocation where_;
  std::string path_ = "placement.options";
};

}  // namespace shardsim
