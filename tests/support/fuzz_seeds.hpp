#pragma once
// Fuzz seeds kept current by a test: each seed file under tests/fuzz/<dir>/ must hold the bytes
// the current code writes; SHARDSIM_UPDATE_FUZZ_SEEDS=1 rewrites them instead (docs/robustness.md).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace shardsim::testing {

// `seeds`: (file name, expected bytes). `what`: "a checkpoint of the current format";
// `rewrite`: the command line that rewrites them.
inline void expect_fuzz_seeds(const std::string& dir,
                              const std::vector<std::pair<std::string, std::string>>& seeds,
                              const std::string& what, const std::string& rewrite) {
  const bool update = std::getenv("SHARDSIM_UPDATE_FUZZ_SEEDS") != nullptr;
  for (const auto& [name, bytes] : seeds) {
    const std::string path = std::string(SHARDSIM_SOURCE_DIR) + "/tests/fuzz/" + dir + "/" + name;
    if (update) {
      std::ofstream(path, std::ios::binary) << bytes;
      continue;
    }
    std::ifstream in(path, std::ios::binary);
    const std::string on_disk((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    EXPECT_TRUE(on_disk == bytes) << path << " is not " << what << "; rewrite the seeds with "
                                  << rewrite;
  }
}

}  // namespace shardsim::testing
