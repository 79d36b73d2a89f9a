// `shardsim calibrate`: fitting to measurements, the cost file it writes and a scenario that
// loads it, leave-one-out, and its bad input (nothing written on error).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "shardsim/cost/calibration.hpp"
#include "support/cli_run.hpp"

namespace shardsim {
namespace {

using testing::run;
using testing::unique_temp;

std::string write_temp(const std::string& stem, const std::string& text) {
  const std::string path = unique_temp(stem);
  std::ofstream(path) << text;
  return path;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Measurements the default model under-predicts by 30% everywhere: 2 x dgx-a100 AllReduce,
// AlltoAll and AllGather, as the defaults predict them (json), times 1.3. Several sizes per
// regime, so that a left-out point's parameters are seen in the others (the tree's latencies
// are parameters of their own: only AllReduces of a few sizes inform them).
std::string slow_points() {
  std::string csv = "collective,size_bytes,time_us,preset,nodes,sets,label\n";
  for (const char* op : {"allreduce", "alltoall", "allgather"}) {
    const auto r =
        run(std::string("collective ") + op +
            " --preset dgx-a100 --nodes 2 --bytes 1K,4K,64K,256K,1M,4M,16M,64M,1G --format "
            "json --quiet");
    const auto j = nlohmann::json::parse(r.out);
    for (const auto& p : j["points"]) {
      csv += std::string(op) + "," + std::to_string(p["size_bytes"].get<std::uint64_t>()) + "," +
             std::to_string(p["time_s"].get<double>() * 1.3e6) + ",dgx-a100,2,,p\n";
    }
  }
  return csv;
}

TEST(CalibrateCli, FitsWritesACostFileAndAScenarioLoadsIt) {
  const std::string points = write_temp("points", slow_points());
  const std::string dir = unique_temp("calib_dir");
  std::filesystem::create_directories(dir);
  const std::string cost = dir + "/cost.yaml";
  const auto r = run("calibrate --points " + points + " --out " + cost + " --format json --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["median_abs_error"]["start"].get<double>(), 1 - 1 / 1.3, 1e-6);
  EXPECT_LT(j["median_abs_error"]["fitted"].get<double>(), 0.05);
  const std::string text = slurp(cost);
  EXPECT_NE(text.find("collective_bandwidth_efficiency:"), std::string::npos) << text;
  // A scenario that loads it predicts the slower times; inline keys still override the file.
  std::ofstream(dir + "/s.yaml") << slurp(SHARDSIM_SOURCE_DIR "/scenarios/default.yaml")
                                 << "cost: {file: cost.yaml}\n";
  const auto fitted = run("collective allreduce --scenario " + dir +
                          "/s.yaml --set cluster.nodes=2 --bytes 1G --format json --quiet");
  ASSERT_EQ(fitted.code, 0) << fitted.err;
  const auto dflt =
      run("collective allreduce --preset dgx-a100 --nodes 2 --bytes 1G --format json --quiet");
  const double t_fit = nlohmann::json::parse(fitted.out)["points"][0]["time_s"].get<double>();
  const double t_def = nlohmann::json::parse(dflt.out)["points"][0]["time_s"].get<double>();
  EXPECT_NEAR(t_fit / t_def, 1.3, 0.05);
  // Refuses to overwrite without --force, and writes nothing new.
  const auto again = run("calibrate --points " + points + " --out " + cost + " --quiet");
  EXPECT_EQ(again.code, 2);
  EXPECT_EQ(slurp(cost), text);
}

TEST(CalibrateCli, LeaveOneOutPredictsEachPointFromTheOthers) {
  const std::string points = write_temp("points", slow_points());
  // Every calibratable parameter, the tree's own latencies too (not fitted by default), so that
  // the model can express a uniform slowdown of every collective.
  std::string params;
  for (const std::string& n : calibratable_cost_params(CollectiveModelKind::nccl)) {
    params += (params.empty() ? "" : ",") + n;
  }
  const auto r = run("calibrate --points " + points + " --params " + params +
                     " --leave-one-out --format json --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["points"].size(), 27u);
  for (const auto& p : j["points"]) {
    EXPECT_NEAR(p["left_out_s"].get<double>() / p["measured_s"].get<double>(), 1, 0.1) << p;
  }
}

TEST(CalibrateCli, ReadsNcclTestsLogsOfTheClusterThatRanThem) {
  const std::string log = SHARDSIM_SOURCE_DIR "/tests/data/nccl_logs/all_reduce_perf_2x4.log";
  const std::string out = unique_temp("from_log") + ".yaml";
  // 8 ranks on 2 hosts: hpc-a100x4 (4 GPUs a node) on the log's 2 hosts.
  const auto r = run("calibrate " + log + " --preset hpc-a100x4 --out " + out + " --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("3 points"), std::string::npos) << r.out;
  EXPECT_NE(slurp(out).find("nccl_ll_base_latency_s:"), std::string::npos);
  // The wrong machine: 16 GPUs for 8 ranks.
  std::string err;
  const std::string never = unique_temp("never") + ".yaml";
  EXPECT_EQ(run("calibrate " + log + " --preset dgx-a100 --out " + never, &err).code, 2);
  EXPECT_NE(err.find("8 ranks on 2 hosts"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(never));
  // A log with a wrong result is refused at its line.
  std::string text = slurp(log);
  text.replace(text.find("36.54      0"), 12, "36.54      7");
  EXPECT_EQ(run("calibrate " + write_temp("wrong", text) + " --preset hpc-a100x4", &err).code, 2);
  EXPECT_NE(err.find(":19"), std::string::npos) << err;
  EXPECT_NE(err.find("wrong results"), std::string::npos) << err;
}

const std::string kLogs = SHARDSIM_SOURCE_DIR "/tests/data/nccl_logs/";

TEST(CalibrateCli, ReadsEveryShapeOfRealLog) {
  // No rank lines (srun --label's tags): the rank count is the cluster's, so --nodes is needed.
  const std::string p4de = kLogs + "all_reduce_perf_p4de_2x8_srun_labels.log";
  auto r = run("calibrate " + p4de + " --preset aws-p4de --nodes 2 --format json --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["points"].size(), 29u);
  std::string err;
  EXPECT_EQ(run("calibrate " + p4de + " --preset aws-p4de", &err).code, 2);
  EXPECT_NE(err.find("no rank lines"), std::string::npos) << err;
  // Open MPI's tags, and the two 0 B rows nccl-tests prints for -b 1 (left out: no bytes moved);
  // one T4 a node, which --set makes of the preset's node.
  r = run("calibrate " + kLogs + "all_reduce_perf_t4_2x1_openmpi_tags.log --preset aws-p4de " +
          "--set cluster.overrides.gpus_per_node=1 --set cluster.overrides.nics_per_node=1 " +
          "--format json --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["points"].size(), 29u);
  // The old `error` column (2e-07 everywhere) is no wrong result: 4 ranks on one host.
  r = run("calibrate " + kLogs + "all_reduce_perf_k80_error_column.log --preset hpc-a100x4 " +
          "--format json --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["points"].size(), 7u);
}

TEST(CalibrateCli, CollectiveNamesTheTestOfALogThatDoesNot) {
  // An AllGather/AlltoAll-shaped table (redop none, a share of the size a rank) on 2 x 4 GPUs.
  std::string text = "#  Rank  0 Group  0 Pid 1 on h0 device  0 [0x1] GPU\n";
  for (int k = 1; k < 8; ++k) {
    text += "#  Rank  " + std::to_string(k) + " Group  0 Pid 1 on h" + std::to_string(k / 4) +
            " device  0 [0x1] GPU\n";
  }
  text +=
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n"
      "     1048576         32768     float    none      -1    60.00   17.48   15.29      0    "
      "60.00   17.48   15.29      0\n";
  const std::string log = write_temp("run", text);
  std::string err;
  EXPECT_EQ(run("calibrate " + log + " --preset hpc-a100x4", &err).code, 2);
  EXPECT_NE(err.find("--collective"), std::string::npos) << err;
  auto as = [&](const std::string& op) {
    const auto r = run("calibrate " + log + " --preset hpc-a100x4 --collective " + op +
                       " --format json --quiet");
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out)["points"][0];
  };
  EXPECT_EQ(as("allgather")["collective"], "allgather");
  EXPECT_EQ(as("alltoall_perf")["collective"], "alltoall");
  EXPECT_NE(as("allgather")["start_s"], as("alltoall")["start_s"]);
  // A log that names its test refuses another.
  const std::string named =
      write_temp("named", "# Collective test starting: alltoall_perf\n" + text);
  EXPECT_EQ(run("calibrate " + named + " --preset hpc-a100x4 --collective allgather", &err).code,
            2);
  EXPECT_NE(err.find("names its test alltoall"), std::string::npos) << err;
  EXPECT_EQ(run("calibrate " + log + " --preset hpc-a100x4 --collective broadcast", &err).code, 2);
  EXPECT_NE(err.find("'broadcast' is not a collective"), std::string::npos) << err;
}

TEST(CalibrateCli, SetAppliesNextToPreset) {
  const std::string log = kLogs + "all_reduce_perf_2x4.log";
  auto start_s = [&](const std::string& extra) {
    const auto r = run("calibrate " + log + " --preset hpc-a100x4 --format json --quiet" + extra);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out)["points"][2]["start_s"].get<double>();  // 8 MiB
  };
  const double plain = start_s("");
  // A cost key: half the bandwidth efficiency, a slower start at 8 MiB.
  EXPECT_GT(start_s(" --set cost.collective_bandwidth_efficiency=0.4"), 1.5 * plain);
  // A cluster key: a tenth of the NIC rate between the two nodes.
  EXPECT_GT(start_s(" --set cluster.overrides.nic.bandwidth_Gbitps=20"), 2 * plain);
  // --points name each point's cluster: a cluster key there is refused, not ignored.
  std::string err;
  EXPECT_EQ(
      run("calibrate --points " + write_temp("points", slow_points()) + " --set cluster.nodes=4",
          &err)
          .code,
      2);
  EXPECT_NE(err.find("--points name each point's cluster"), std::string::npos) << err;
}

// The repository's own points are in the format --points reads: matched points fitted, the
// unmatched listed, times from busbw where a source gives no time.
TEST(CalibrateCli, ReadsTheRepositorysPointsFile) {
  const auto r = run("calibrate --points " SHARDSIM_SOURCE_DIR
                     "/tests/data/collectives/points.csv --format json --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["points"].size(), 63u);
  EXPECT_EQ(j["unmatched"].size(), 12u);
  // #1: 32 MiB AlltoAll on 16 ranks at busbw 44.79 GB/s: 33554432 / (44.79e9 * 16 / 15) s.
  EXPECT_EQ(j["points"][0]["label"], "#1");
  EXPECT_NEAR(j["points"][0]["measured_s"].get<double>(), 33554432 / (44.79e9 * 16 / 15), 1e-12);
  EXPECT_EQ(j["points"][12]["label"], "#13");  // a published time, as published
  EXPECT_DOUBLE_EQ(j["points"][12]["measured_s"].get<double>(), 164.3e-6);
  EXPECT_EQ(j["unmatched"][0]["label"], "#26");
  EXPECT_EQ(j["unmatched"][0]["reason"], "no preset for this hardware");
}

TEST(CalibrateCli, BadInputNamesTheLineAndWritesNothing) {
  const std::string out = unique_temp("never") + ".yaml";
  struct Case {
    std::string csv, expect;
  };
  const Case cases[] = {
      {"", "empty"},
      {"collective,size_bytes,time_us,preset\nallreduce,8,10,dgx-a100\n", "nodes"},
      {"collective,size_bytes,time_us,preset,nodes\nallsum,8,10,dgx-a100,2\n", ":2"},
      {"collective,size_bytes,time_us,preset,nodes\nallreduce,8,-1,dgx-a100,2\n", "time_us"},
      {"collective,size_bytes,time_us,preset,nodes\nallreduce,8,10,dgx-a1000,2\n", ":2"},
      {"collective,size_bytes,time_us,preset,nodes\nallreduce,8,10\n", "fields"},
      // A malformed override in `sets` is this file's error, at its line, not the command line's.
      {"collective,size_bytes,time_us,preset,nodes,sets\nallreduce,8,10,dgx-a100,2,"
       "cluster..nics_per_node=4\n",
       ":2"},
      // No preset needs its reason; a preset may not have one; quotes close.
      {"collective,size_bytes,time_us,preset,nodes\nallreduce,8,10,,2\n", "unmatched"},
      {"collective,size_bytes,time_us,preset,nodes,unmatched\nallreduce,8,10,dgx-a100,2,why\n",
       "a preset"},
      {"collective,size_bytes,time_us,preset,nodes,label\nallreduce,8,10,dgx-a100,2,\"a,b\n",
       "quote"},
      // An empty time needs busbw_gbps and whole ranks.
      {"collective,size_bytes,time_us,preset,nodes,busbw_gbps,ranks\nallreduce,8,,dgx-a100,2,"
       "10,1.5\n",
       "ranks"},
      {"collective,size_bytes,time_us,preset,nodes\nallreduce,8,,dgx-a100,2\n", "time_us"},
  };
  for (const Case& c : cases) {
    std::string err;
    const auto r = run("calibrate --points " + write_temp("bad", c.csv) + " --out " + out, &err);
    EXPECT_EQ(r.code, 2) << c.csv;
    EXPECT_NE(err.find(c.expect), std::string::npos) << c.csv << "\n" << err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
  std::string err;
  EXPECT_EQ(run("calibrate --quiet", &err).code, 2);
  EXPECT_NE(err.find("no measurements"), std::string::npos) << err;
  const std::string good = write_temp("points", slow_points());
  EXPECT_EQ(run("calibrate --points " + good + " --params repeat_lookup_hbm_fraction", &err).code,
            2);
  EXPECT_NE(err.find("repeat_lookup_hbm_fraction"), std::string::npos) << err;
}

}  // namespace
}  // namespace shardsim
