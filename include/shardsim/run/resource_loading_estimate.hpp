#pragma once
// The resource guard before a YAML document is loaded (docs/robustness.md "Resource guards"):
// what loading it will cost, from what parse_yaml counted on its events before building any node
// (core/yaml_reader.hpp), so that a scenario of millions of listed tables is refused at
// `model.tables` with a few megabytes resident instead of after gigabytes of YAML nodes.
#include <string>

#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/run/resource_estimate.hpp"

namespace shardsim {

// The list of a scenario whose elements loading turns into tables.
inline constexpr const char* kListedTablesPath = "model.tables";

// What loading the document of `count` takes: its text, its YAML nodes, the canonical text of its
// input hash (aliases expanded), and the tables it lists at kListedTablesPath as loaded. Every
// constant is in resource_loading_estimate.cpp with how it was measured.
ResourceEstimate loading_estimate(const YamlDocumentCount& count);

// Throws InputError (exit code 2) when loading_estimate(count) exceeds `limit`: at the listed
// tables (key `model.tables`) when the document lists any, else at the file (`--max-memory`).
void check_loading(const YamlDocumentCount& count, const MemoryLimit& limit,
                   const std::string& file);

// From now on, every YAML document this process reads is checked against `limit` before its
// nodes are built (set_yaml_load_check); a file larger than the limit is refused before it is
// read. No limit (0): no check.
void guard_yaml_loading(const MemoryLimit& limit);

}  // namespace shardsim
