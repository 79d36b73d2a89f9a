#pragma once
// Content hashes of YAML documents, for telling whether two runs had the same inputs
// (core/input_hashes.hpp). Not cryptographic: they detect accidental change, not tampering.
#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

namespace shardsim {

// A canonical one-line text of a YAML document, equal for documents that mean the same:
// - mappings as `{key:value,...}` with keys sorted (by their canonical text), so key order,
//   block or flow style, comments and indentation do not matter;
// - sequences as `[a,b,...]`, in order;
// - scalars that are numbers written as numbers: an integer literal (optional sign, digits) as
//   its digits without leading zeros or '+'; any other finite number as its value, integral
//   values below 2^53 as integers (so `4e7`, `40000000` and `40000000.0` are equal) and others as
//   the shortest text that reads back to the same double;
// - every other scalar as a JSON-quoted string of its text (quoted or not in the YAML);
// - null (`~`, `null`, an empty value, an absent node) as `~`.
std::string canonical_yaml(const YAML::Node& node);

// "fnv1a64:" followed by the 16 lowercase hex digits of the 64-bit FNV-1a hash of `text`.
// The prefix names the algorithm, so a later change of algorithm is recognisable.
std::string content_hash(std::string_view text);

// content_hash(canonical_yaml(node)).
std::string yaml_content_hash(const YAML::Node& node);

}  // namespace shardsim
