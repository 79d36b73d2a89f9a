// Issue 18's property over every golden scenario (tests/golden/golden.list): the exposed
// breakdown adds up to the iteration time within 0.1%, the report names its critical GPU, and
// every GPU's time shares add up too. The goldens are fresh outputs of this shardsim (the
// golden.* ctests compare them with new runs), so this checks what users read.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace shardsim {
namespace {

const std::string kGolden = std::string(SHARDSIM_SOURCE_DIR) + "/tests/golden/";

std::vector<std::string> golden_files() {
  std::ifstream list(kGolden + "golden.list");
  std::vector<std::string> files;
  for (std::string line; std::getline(list, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::string scenario = line.substr(0, line.find(' '));
    scenario = scenario.substr(std::string("scenarios/").size());
    files.push_back(kGolden + scenario.substr(0, scenario.rfind('.')) + ".json");
  }
  return files;
}

TEST(GoldenBreakdown, ExposedAddsUpToTheIterationTimeOnEveryGoldenScenario) {
  const std::vector<std::string> files = golden_files();
  ASSERT_GE(files.size(), 10u);
  int checked = 0;
  for (const std::string& path : files) {
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    const nlohmann::json doc = nlohmann::json::parse(in);
    for (const nlohmann::json& r : doc.at("reports")) {
      const std::string what = path + " / " + r.at("planner").get<std::string>();
      if (r.at("iteration_time_s").is_null()) continue;  // did not fit: not simulated
      const double it = r.at("iteration_time_s").at("mean").get<double>();
      double exposed = 0;
      for (const auto& [phase, t] : r.at("breakdown_s").items()) {
        exposed += t.at("exposed").get<double>();
        EXPECT_GE(t.at("waiting").get<double>(), 0) << what << " " << phase;
      }
      EXPECT_NEAR(exposed, it, 1e-3 * it) << what;
      const int critical = r.at("critical_gpu").get<int>();
      ASSERT_GE(critical, 0) << what;
      ASSERT_LT(critical, r.at("num_gpus").get<int>()) << what;
      for (const nlohmann::json& g : r.at("per_gpu")) {
        double shares = 0;
        for (const auto& [kind, t] : g.at("time_shares_s").items()) shares += t.get<double>();
        EXPECT_NEAR(shares, it, 1e-3 * it) << what << " GPU " << g.at("gpu");
        EXPECT_LE(g.at("comm_transfer_s").get<double>(), it * (1 + 1e-9)) << what;
        EXPECT_LE(g.at("busy_s").get<double>(),
                  r.at("per_gpu").at(critical).at("busy_s").get<double>())
            << what;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
}

}  // namespace
}  // namespace shardsim
