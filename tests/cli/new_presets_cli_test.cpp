// The DGX H200, DGX B200 and GB200 NVL72 presets run the default scenario (issue 60), and every
// override key `hw show` prints beside a value is one `--set` takes, with that value.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "support/cli_run.hpp"

namespace shardsim {
namespace new_presets_cli_test {

const std::string kDefault = SHARDSIM_SOURCE_DIR "/scenarios/default.yaml";

struct NewPreset {
  const char* name;
  int gpus;  // the default scenario's 2 nodes
};
const std::vector<NewPreset> kNewPresets = {
    {"dgx-h200", 16}, {"dgx-b200", 16}, {"gb200-nvl72", 144}};

TEST(NewPresetsCli, EachValidatesAndRunsTheDefaultScenario) {
  for (const NewPreset& p : kNewPresets) {
    SCOPED_TRACE(p.name);
    const std::string preset = std::string(" --set cluster.preset=") + p.name;
    std::string err;
    const auto v = testing::run("validate " + kDefault + preset + " --format json", &err);
    ASSERT_EQ(v.code, 0) << err;
    const nlohmann::json j = nlohmann::json::parse(v.out);
    EXPECT_EQ(j["preset"], p.name);
    EXPECT_EQ(j["gpus"].get<int>(), p.gpus);
    const auto r = testing::run("run " + kDefault + preset +
                                    " --set workload.iterations=1 --set workload.warmup=0"
                                    " --format json --quiet",
                                &err);
    ASSERT_EQ(r.code, 0) << err;
    const nlohmann::json reports = nlohmann::json::parse(r.out)["reports"];
    ASSERT_EQ(reports.size(), 3u);  // table_wise, row_wise, data_parallel
    for (const auto& rep : reports) {
      EXPECT_EQ(rep["per_gpu"].size(), static_cast<std::size_t>(p.gpus)) << rep["planner"];
      EXPECT_TRUE(rep["fits_in_memory"].get<bool>()) << rep["planner"];
    }
  }
}

// Table-row-wise shards each table over all 72 GPUs of a rack's NVLink domain: Σ min(rows, 72)
// over the default scenario's 26 tables = 19 x 72 + (24 + 3 + 27 + 10 + 4 + 18 + 15) = 1469
// row-wise shards (a DGX's 8-GPU node would give at most 26 x 8 = 208). A 2D plan of 2 groups
// puts 72 GPUs in each, half of each rack (peers in one host: GPU 0's peer is GPU 36).
const std::string kNvl72Run = "run " + kDefault +
                              " --set cluster.preset=gb200-nvl72 --set workload.iterations=1"
                              " --set workload.warmup=0 --format json --quiet";

TEST(NewPresetsCli, Nvl72PlansUseTheWholeNvlinkDomain) {
  std::string err;
  const auto trw = testing::run(kNvl72Run + " --set placement.planner=table_row_wise", &err);
  ASSERT_EQ(trw.code, 0) << err;
  const nlohmann::json t = nlohmann::json::parse(trw.out);
  EXPECT_EQ(t["plan_stats"]["shards_by_kind"]["row_wise"].get<int>(), 1469);
  for (const auto& g : t["per_gpu"]) EXPECT_GT(g["shards"].get<int>(), 0) << g["gpu"];
  const auto two_d = testing::run(kNvl72Run +
                                      " --set placement.planner=two_d"
                                      " --set 'placement.options={groups: 2, inner: table_wise}'",
                                  &err);
  ASSERT_EQ(two_d.code, 0) << err;
  const nlohmann::json groups = nlohmann::json::parse(two_d.out)["groups"];
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0]["num_gpus"].get<int>(), 72);
  EXPECT_EQ(groups[1]["num_gpus"].get<int>(), 72);
  EXPECT_EQ(groups[1]["first_gpu"].get<int>(), 36);
}

// `hw show`'s `cluster.overrides.KEY=VALUE` column, every line of it, for every built-in
// preset, passed back through `validate --set`: each key is one the override loader takes.
std::vector<std::string> printed_sets(const std::string& show) {
  std::vector<std::string> sets;
  std::istringstream in(show);
  std::string line;
  while (std::getline(in, line)) {
    const auto at = line.find("cluster.overrides.");
    if (at != std::string::npos) sets.push_back(line.substr(at));
  }
  return sets;
}

TEST(NewPresetsCli, EveryKeyHwShowPrintsIsAcceptedByValidate) {
  const auto list = testing::run("hw list");
  ASSERT_EQ(list.code, 0);
  std::istringstream names(list.out);
  std::string line;
  int presets = 0;
  while (std::getline(names, line)) {
    const std::string name = line.substr(0, line.find('\t'));
    SCOPED_TRACE(name);
    const auto show = testing::run("hw show " + name);
    ASSERT_EQ(show.code, 0);
    const std::vector<std::string> sets = printed_sets(show.out);
    EXPECT_GE(sets.size(), 20u);
    std::string args = " --set cluster.preset=" + name;
    for (const std::string& s : sets) args += " --set '" + s + "'";
    std::string err;
    EXPECT_EQ(testing::run("validate " + kDefault + args, &err).code, 0) << err << args;
    ++presets;
  }
  EXPECT_GE(presets, 11);  // the eight earlier presets and the three new ones
  // The check can fail: a key the loader does not know is refused, naming it.
  std::string err;
  EXPECT_EQ(testing::run("validate " + kDefault +
                             " --set cluster.preset=dgx-b200 --set "
                             "cluster.overrides.nic.bandwidth_Gbps=400",
                         &err)
                .code,
            2);
  EXPECT_NE(err.find("bandwidth_Gbps"), std::string::npos) << err;
}

}  // namespace new_presets_cli_test
}  // namespace shardsim
