#pragma once
// Plan files: a plan as YAML or JSON that a person can read and edit (docs/planners.md, "Plan
// files"). Tables are keyed by name; each lists its shards as {rows|ranks, cols, gpu|gpus}:
//
//   format: shardsim-plan-1
//   planner: table_wise
//   num_gpus: 4
//   tables:
//     user_id:
//       - {gpu: 3}                          # the whole table on GPU 3
//     ads:
//       - {rows: [0, 500000], gpu: 0}       # row ids [0, 500000)
//       - {rows: [500000, 1000000], cols: [0, 32], gpu: 1}
//       - {rows: [500000, 1000000], cols: [32, 64], gpu: 2}
//     small:
//       - {gpus: [0, 1, 2, 3]}              # a replica on each GPU
//   groups: [[0, 1], [2, 3]]                # optional 2D groups
//   fetch:                                  # optional: who serves whom, when not the nearest
//     - {table: small, requester: 3, server: 1}
//
// Reading validates everything (validate_plan); errors name the file, the line, the table and the
// rows at fault. JSON files have the same structure (JSON is read by the same YAML parser, so
// its errors have lines too). Writing builds one tree of the plan (src/io/plan_tree.hpp) and
// emits it as YAML or as JSON.
#include <iosfwd>
#include <string>
#include <string_view>

#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/plan/plan.hpp"

namespace shardsim {

inline constexpr const char* kPlanFormatTag = "shardsim-plan-1";

enum class PlanFormat { yaml, json };
// JSON for a path ending in .json (any case), YAML otherwise.
PlanFormat plan_format_for_path(const std::string& path);

struct PlanFileInfo {
  std::string scenario;  // written as a comment-like field: which scenario the plan was made for
};

// Writes `plan` (validated or not) for `model` on `cluster`. Replicas of one block are written
// as one entry with `gpus`, in replica order; shards of a table keep the plan's order; tables in
// model order. Deterministic: the same plan gives the same bytes.
void write_plan(std::ostream& out, const Plan& plan, const DlrmModel& model, const Cluster& cluster,
                PlanFormat format, const PlanFileInfo& info = {});

// Parses and validates a plan document (its file names it in messages). Shards come out table
// by table in file order; replicas of a block are numbered in the order they are listed.
Plan read_plan(const YamlValue& root, const DlrmModel& model, const Cluster& cluster);
// Parses (parse_yaml) and reads a plan document's text; `file` names it in messages.
Plan read_plan_text(std::string_view text, const std::string& file, const DlrmModel& model,
                    const Cluster& cluster);
// Reads a plan file (YAML or JSON by content; the YAML parser reads both).
Plan read_plan_file(const std::string& path, const DlrmModel& model, const Cluster& cluster);

}  // namespace shardsim
