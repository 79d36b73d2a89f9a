// `shardsim collective`: nccl-tests' sizes and columns, and its bad input.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cmd_collective.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/io/nccl_log.hpp"
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

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

TEST(CollectiveCli, PrintsBothColumnGroupsAndNcclTestsFooter) {
  const std::string args = "collective allreduce --preset dgx-h100 --nodes 2 -b 1K -e 1M -f 4";
  const auto r = testing::run(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("out-of-place"), std::string::npos);
  EXPECT_NE(r.out.find("in-place"), std::string::npos);
  EXPECT_NE(r.out.find("# Collective test starting: all_reduce_perf\n"), std::string::npos);
  EXPECT_NE(r.out.find("# Out of bounds values : 0 OK\n"), std::string::npos) << r.out;
  const auto rows = data_lines(r.out);
  ASSERT_EQ(rows.size(), 6u) << r.out;  // 1K, 4K, ..., 1M
  double busbw_sum = 0;
  for (const std::string& row : rows) {
    const auto f = fields(row);
    ASSERT_EQ(f.size(), 13u) << row;  // size count type redop root, then 4 and 4
    EXPECT_EQ(f[5], f[9]) << row;     // in place: the same time, algbw and busbw
    EXPECT_EQ(f[7], f[11]) << row;
    EXPECT_EQ(f[8], "0") << row;  // #wrong
    EXPECT_EQ(f[12], "0") << row;
    busbw_sum += std::stod(f[7]) + std::stod(f[11]);
  }
  // nccl-tests' average: every row of both groups (src/common.cu: bw[0] / bw_count[0]).
  const std::string key = "# Avg bus bandwidth    : ";
  const std::size_t at = r.out.find(key);
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_NEAR(std::stod(r.out.substr(at + key.size())), busbw_sum / 12, 0.01);
}

TEST(CollectiveCli, AcceptsNcclTestsFlagsThatChangeNoTime) {
  const std::string base = "collective allreduce --preset dgx-a100 --nodes 2 -b 8 -e 64K";
  const auto plain = testing::run(base);
  const auto flagged = testing::run(base + " -o max -g 8 -n 100 -w 5");
  ASSERT_EQ(flagged.code, 0) << flagged.err;
  EXPECT_NE(flagged.out.find("nGpus 8 "), std::string::npos) << flagged.out;
  EXPECT_NE(flagged.out.find("warmup iters: 5 iters: 100 "), std::string::npos) << flagged.out;
  const auto a = data_lines(plain.out), b = data_lines(flagged.out);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto fa = fields(a[i]), fb = fields(b[i]);
    EXPECT_EQ(fa[3], "sum");
    EXPECT_EQ(fb[3], "max");  // -o names the redop column, and only that
    fa.erase(fa.begin() + 3), fb.erase(fb.begin() + 3);
    EXPECT_EQ(fa, fb);
  }
  // A collective without a reduction prints "none", as nccl-tests does.
  const auto a2a = testing::run("collective alltoall --preset dgx-a100 -b 1K -e 1K --op prod");
  ASSERT_EQ(a2a.code, 0) << a2a.err;
  EXPECT_EQ(fields(data_lines(a2a.out).at(0)).at(3), "none");
}

// What `shardsim collective` prints is read by the parser `shardsim calibrate` uses, and gives
// back its sizes and times (to the digits printed).
TEST(CollectiveCli, OutputRoundTripsThroughTheNcclLogParser) {
  const auto text = testing::run("collective alltoall --preset dgx-h100 --nodes 2 -b 1K -e 1G");
  const auto json =
      testing::run("collective alltoall --preset dgx-h100 --nodes 2 -b 1K -e 1G --format json");
  ASSERT_EQ(text.code, 0) << text.err;
  ASSERT_EQ(json.code, 0) << json.err;
  const NcclLog log = parse_nccl_log(text.out, "shardsim-collective.out");
  EXPECT_EQ(log.op, "alltoall");  // from the "# Collective test starting" line
  EXPECT_EQ(log.ranks, 0);        // no device lines: a model has no devices
  const auto points = nlohmann::json::parse(json.out)["points"];
  ASSERT_EQ(log.rows.size(), points.size());
  ASSERT_EQ(log.rows.size(), 21u);  // 1K ... 1G
  for (std::size_t i = 0; i < log.rows.size(); ++i) {
    const NcclLogRow& row = log.rows[i];
    const double t_us = points[i]["time_s"].get<double>() * 1e6;
    EXPECT_EQ(row.size_bytes, points[i]["size_bytes"].get<double>());
    // nccl-tests' 7 columns: 2 decimals below 10^4 us, then 1, then none (5e-6 relative).
    EXPECT_NEAR(row.time_us, t_us, 0.0051 + 5.1e-6 * t_us) << row.size_bytes;
    EXPECT_EQ(*row.in_place_time_us, row.time_us);
    EXPECT_NEAR(row.busbw_GBps, points[i]["busbw_Bps"].get<double>() / 1e9, 0.0051);
  }
  // And calibrate, given it on the cluster it came from, finds the defaults' own times.
  const std::string path = testing::unique_temp("collective_out") + ".log";
  std::ofstream(path) << text.out;
  const auto fit =
      testing::run("calibrate " + path + " --preset dgx-h100 --nodes 2 --format json --quiet");
  ASSERT_EQ(fit.code, 0) << fit.err;
  EXPECT_LT(nlohmann::json::parse(fit.out)["median_abs_error"]["start"].get<double>(), 1e-3);
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
      {"collective allreduce --preset dgx-h100 -o all", "--op"},
      {"collective allreduce --preset dgx-h100 -g 0", "--ngpus"},
      {"collective allreduce --preset dgx-h100 -n x", "--iters"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = testing::run(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
  }
}

}  // namespace
}  // namespace shardsim
