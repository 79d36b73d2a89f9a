#pragma once
// `--set dotted.key=value`: one override of a scenario value from the command line.
#include <string>

namespace shardsim {

struct Override {
  std::string key;  // e.g. "cluster.nodes", "model.tables[0].rows", "workload.trace.mode"
  std::string value;
};

// Parses "key=value" (the value is parsed as YAML later, so `[1,2]` and `{a: 1}` work); a
// malformed string or key path is an InputError naming the flag.
Override parse_override(const std::string& text);

}  // namespace shardsim
