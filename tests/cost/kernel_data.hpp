// The GPU measurements under tests/data/kernels/ (see its README.md), read by the validation
// tests of the cost model.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace shardsim::test {

// One CSV line's fields; a field in double quotes may hold commas.
inline std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

inline nlohmann::json kernel_data(const std::string& file) {
  std::ifstream in(std::string(SHARDSIM_SOURCE_DIR) + "/tests/data/kernels/" + file);
  EXPECT_TRUE(in) << "tests/data/kernels/" << file;
  return nlohmann::json::parse(in);
}

}  // namespace shardsim::test
