#pragma once
// Which inputs produced a report: hashes of the scenario document, the hardware preset and the
// cost parameters (docs/report.md, `input_hashes`). Two reports with equal hashes were produced
// from the same inputs; `shardsim compare` calls a baseline whose hashes differ from the
// candidate's *stale* (docs/regression.md). The shardsim version is deliberately not hashed.
#include <string>

namespace shardsim {

struct InputHashes {
  // The fully resolved scenario document: after `--set` overrides, for a sweep point its own
  // document (sweep block removed, the point's values set), canonicalised (core/content_hash.hpp).
  std::string scenario;
  // The hardware preset file the cluster starts from (a built-in configs/hardware/<name>.yaml or
  // the scenario's preset_file), canonicalised; `cluster.overrides` are part of `scenario`.
  std::string hardware;
  // configs/cost/default.yaml (compiled in), canonicalised, and with it the content of a cost
  // file the scenario loads (`cost: {file: ...}`); a scenario's inline `cost:` keys are part of
  // `scenario`.
  std::string cost;

  bool empty() const { return scenario.empty() && hardware.empty() && cost.empty(); }
  bool operator==(const InputHashes&) const = default;
};

}  // namespace shardsim
