// `shardsim collective`: nccl-tests' sizes and columns, and its bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "shardsim/cli/cmd_collective.hpp"
#include "shardsim/core/error.hpp"
#include "support/cli_run.hpp"

namespace shardsim {
namespace {

std::vector<std::string> data_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

TEST(CollectiveCli, SizesAreReadAsNcclTestsReadsThem) {
  EXPECT_EQ(parse_nccl_size("8", "-b"), 8u);
  EXPECT_EQ(parse_nccl_size("64K", "-b"), 65536u);
  EXPECT_EQ(parse_nccl_size("128M", "-e"), 128u << 20);
  EXPECT_EQ(parse_nccl_size("1G", "-e"), 1u << 30);
  EXPECT_THROW(parse_nccl_size("", "-b"), InputError);
  EXPECT_THROW(parse_nccl_size("G", "-b"), InputError);
  EXPECT_THROW(parse_nccl_size("1T", "-b"), InputError);
  EXPECT_THROW(parse_nccl_size("99999999999999999", "-b"), InputError);
  EXPECT_EQ(nccl_sizes(8, 1024, 2, 0),
            (std::vector<std::uint64_t>{8, 16, 32, 64, 128, 256, 512, 1024}));
  EXPECT_EQ(nccl_sizes(100, 350, 2, 100), (std::vector<std::uint64_t>{100, 200, 300}));
  EXPECT_EQ(nccl_sizes(0, 10, 2, 0), (std::vector<std::uint64_t>{0}));
}

TEST(CollectiveCli, PrintsNcclTestsColumnsOneRowPerSize) {
  const auto r = testing::run("collective allreduce --preset dgx-h100 --nodes 2 -b 8 -e 1K -f 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("algbw"), std::string::npos);
  EXPECT_NE(r.out.find("busbw"), std::string::npos);
  const auto rows = data_lines(r.out);
  ASSERT_EQ(rows.size(), 8u) << r.out;
  std::istringstream first(rows.front());
  std::string size, count, type, redop, root;
  first >> size >> count >> type >> redop >> root;
  EXPECT_EQ(size, "8");
  EXPECT_EQ(count, "2");
  EXPECT_EQ(type, "float");
  EXPECT_EQ(redop, "sum");
  EXPECT_EQ(root, "-1");
}

TEST(CollectiveCli, JsonHasEveryPointAndTimesGrowWithSize) {
  const auto r =
      testing::run("collective alltoall --scenario " SHARDSIM_SOURCE_DIR
                   "/scenarios/example.yaml --set cluster.nodes=2 --bytes 1K,1M,1G --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["op"], "alltoall");
  EXPECT_EQ(j["num_nodes"], 2);
  ASSERT_EQ(j["points"].size(), 3u);
  EXPECT_LT(j["points"][0]["time_s"].get<double>(), j["points"][2]["time_s"].get<double>());
  EXPECT_GT(j["points"][2]["busbw_Bps"].get<double>(), 0.0);
}

TEST(CollectiveCli, BadInputExitsTwoAndSaysWhy) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"collective allreduce", "no cluster given"},
      {"collective allreduce --preset dgx-h100 --scenario x.yaml", "both a scenario and a preset"},
      {"collective allreduce --preset dgx-h100 -b 1X", "unknown unit 'X'"},
      {"collective allreduce --preset dgx-h100 -b 1G -e 1M", "below --minbytes"},
      {"collective allreduce --preset dgx-h100 -i 0", "never ends"},
      {"collective allreduce --preset dgx-h100 --set a=1", "--set overrides a scenario"},
      {"collective allreduce --preset nope", "unknown hardware preset"},
      {"collective all_reduce --preset dgx-h100", "all_reduce"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = testing::run(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
  }
}

}  // namespace
}  // namespace shardsim
