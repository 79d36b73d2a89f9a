// The GPU measurements under tests/data/kernels/ (see its README.md), read by the validation
// tests of the cost model.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace shardsim::test {

inline nlohmann::json kernel_data(const std::string& file) {
  std::ifstream in(std::string(SHARDSIM_SOURCE_DIR) + "/tests/data/kernels/" + file);
  EXPECT_TRUE(in) << "tests/data/kernels/" << file;
  return nlohmann::json::parse(in);
}

}  // namespace shardsim::test
