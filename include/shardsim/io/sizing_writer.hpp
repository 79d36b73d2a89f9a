#pragma once
// Writers of a sizing search's result (io/sizing_report.hpp; `shardsim size`): text, JSON and
// CSV, each deterministic for a result. Fields and rounding: docs/report.md, "Sizing".
#include <optional>
#include <ostream>
#include <string>

#include "shardsim/io/sizing_report.hpp"

namespace shardsim {

// The header line, one table row per probe and planner, the node counts skipped and the answer
// line (its bound, what decided the node count, the runner-up and the headroom).
void write_sizing_text(std::ostream& out, const ScenarioSizing& s);
// One JSON object: the target, every probe, the skipped counts, `answer`, `bound`, `runner_up`
// and `headroom` (null without an answer).
void write_sizing_json(std::ostream& out, const ScenarioSizing& s);
// One CSV row per probe and planner.
void write_sizing_csv(std::ostream& out, const ScenarioSizing& s);

// The answer line of the text ("answer: 16 x dgx-h100 (128 GPUs) with hybrid: ..." or
// "answer: none: ..."), without its newline.
std::string sizing_answer_line(const ScenarioSizing& s);

// How far the answer is past the target as asked (without the margin), in percent: its QPS over
// --target-qps (100 x (qps / target - 1)), and how much shorter its iteration is than
// --max-iteration-ms (100 x (1 - iteration / limit)). None without an answer or that target.
struct SizingHeadroom {
  std::optional<double> qps_pct;
  std::optional<double> iteration_time_pct;
};
SizingHeadroom sizing_headroom(const ScenarioSizing& s);

}  // namespace shardsim
