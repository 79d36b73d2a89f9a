#pragma once
// The JSON half of the rule every input follows (YAML's is in parse_yaml): a key written twice in
// one object is refused, not silently collapsed to one of its values (nlohmann keeps the last).
#include <nlohmann/json.hpp>

#include <string>

namespace shardsim {

// A parser callback for nlohmann::json::parse that throws an InputError naming `file` and the
// key's path (e.g. `reports[2].planner`) at the second writing of a key in one object, and
// otherwise answers as `inner` does (keep everything when `inner` is empty).
nlohmann::json::parser_callback_t refusing_duplicate_keys(
    std::string file, nlohmann::json::parser_callback_t inner = nullptr);

}  // namespace shardsim
