#pragma once
// Shared by the scenario_*_test.cpp files: a small valid scenario with known line numbers, and
// checks that an InputError names the file, the line and the key.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "io/scenario_yaml.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/io/scenario_loader.hpp"

namespace shardsim::test {

inline std::string source_path(const std::string& rel) {
  return std::string(SHARDSIM_SOURCE_DIR) + "/" + rel;
}

// Line numbers (1-based) matter: the bad-input tests replace single lines.
inline const std::vector<std::string>& tiny_lines() {
  static const std::vector<std::string> lines = {
      "name: tiny",                                                    // 1
      "cluster:",                                                      // 2
      "  preset: dgx-a100",                                            // 3
      "  nodes: 1",                                                    // 4
      "model:",                                                        // 5
      "  tables:",                                                     // 6
      "    - {name: a, rows: 1000, dim: 16, pooling: 2, alpha: 1.0}",  // 7
      "    - name: b",                                                 // 8
      "      rows: 5000",                                              // 9
      "      dim: 32",                                                 // 10
      "      pooling: 4",                                              // 11
      "  bottom_mlp: [64, 16]",                                        // 12
      "  top_mlp: [64, 1]",                                            // 13
      "workload:",                                                     // 14
      "  batch_per_gpu: 512",                                          // 15
      "placement:",                                                    // 16
      "  planner: table_wise",                                         // 17
  };
  return lines;
}

inline std::string join_lines(const std::vector<std::string>& lines) {
  std::ostringstream out;
  for (const auto& l : lines) out << l << '\n';
  return out.str();
}

inline std::string tiny_text() {
  return join_lines(tiny_lines());
}

// The tiny scenario with line `line` (1-based) replaced by `text` (which may hold several lines).
inline std::string tiny_with(int line, const std::string& text) {
  std::vector<std::string> lines = tiny_lines();
  lines.at(static_cast<std::size_t>(line - 1)) = text;
  return join_lines(lines);
}

// The tiny scenario with `text` appended at the end.
inline std::string tiny_plus(const std::string& text) {
  return tiny_text() + text + "\n";
}

// Loads `text` as file "bad.yaml"; expects an InputError whose message holds "bad.yaml:<line>",
// "key '<key>'" and `fragment`. Returns the message.
inline std::string expect_input_error(const std::string& text, int line, const std::string& key,
                                      const std::string& fragment = {}) {
  try {
    (void)load_scenario_text(text, "bad.yaml");
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("bad.yaml:" + std::to_string(line) + ":"), std::string::npos)
        << "expected line " << line << " in: " << msg;
    EXPECT_EQ(e.where().line, line) << msg;
    EXPECT_EQ(e.key(), key) << msg;
    EXPECT_NE(msg.find("key '" + key + "'"), std::string::npos) << msg;
    if (!fragment.empty()) {
      EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
    }
    return msg;
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return {};
}

}  // namespace shardsim::test
