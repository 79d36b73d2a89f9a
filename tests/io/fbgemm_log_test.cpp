// Reading FBGEMM's table-batched embedding benchmark output (io/fbgemm_log.hpp): a published
// log, the device benchmark's lines, the settings a log records, and every refusal with its line.
#include "shardsim/io/fbgemm_log.hpp"

#include <gtest/gtest.h>

#include <string>

#include "shardsim/core/error.hpp"

namespace shardsim {
namespace {

const std::string kKernelDataDir = SHARDSIM_SOURCE_DIR "/tests/data/kernels/";

// The message of the InputError parsing `text` throws ("" when it throws none).
std::string fbgemm_error_of(const std::string& text) {
  try {
    parse_fbgemm_log(text, "bench.log");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(FbgemmLog, ReadsAPublishedNbitDeviceLog) {
  // pytorch/FBGEMM#1244 (tests/data/kernels/README.md): five iteration lines, then their average.
  const FbgemmLog log = read_fbgemm_log(kKernelDataDir + "fbgemm_pr1244_nbit_device_amd.log");
  EXPECT_EQ(log.command, "nbit-device");
  EXPECT_EQ(log.settings.at("alpha"), "1.0");
  EXPECT_EQ(log.settings.at("weights-precision"), "fp32");
  EXPECT_EQ(log.settings.at("output-dtype"), "int8");
  EXPECT_EQ(log.settings.at("row-wise"), "true");
  EXPECT_EQ(log.setting_lines.at("alpha"), 1);
  ASSERT_EQ(log.rows.size(), 1u);  // the average; the iterations are not rows
  const FbgemmLogRow& r = log.rows[0];
  EXPECT_EQ(r.line, 9);
  EXPECT_EQ(r.pass, "Forward");
  EXPECT_DOUBLE_EQ(r.batch, 65536);
  EXPECT_DOUBLE_EQ(r.rows, 10000000);
  EXPECT_DOUBLE_EQ(r.tables, 2);
  EXPECT_DOUBLE_EQ(r.dim, 192);
  EXPECT_DOUBLE_EQ(r.bag, 32);
  EXPECT_FALSE(r.weighted);
  ASSERT_TRUE(r.precision.has_value());
  EXPECT_EQ(*r.precision, "fp32");
  ASSERT_TRUE(r.bandwidth_GBps.has_value());
  EXPECT_DOUBLE_EQ(*r.bandwidth_GBps, 621.27);
  EXPECT_DOUBLE_EQ(r.time_us, 5225);
  EXPECT_FALSE(r.alpha.has_value());
}

TEST(FbgemmLog, ReadsTheDeviceBenchmarksLines) {
  // The layout of the `device` benchmark's logging.info lines (split_table_batched_embeddings_
  // benchmark.py); the numbers are made up. The second `T:` is the time.
  const FbgemmLog log = parse_fbgemm_log(
      "# alpha: 1.15\n"
      "INFO:root:Embedding parameters:  0.41 GParam,  1.64 GB\n"
      "INFO:root:Forward, B: 512, E: 100000, T: 32, D: 128, L: 20, W: False, BW:  590.26 GB/s, "
      "T: 1136us\n"
      "INFO:root:ForwardBackward, B: 512, E: 100000, T: 32, D: 128, L: 20, BW: 871.20GB/s, T: "
      "2312us\r\n"
      "INFO:root:Backward, B: 512, E: 100000, T: 32, D: 128, L: 20, a: 1.2, BW:  1.00 GB/s, T: "
      "1170us\n",
      "bench.log");
  EXPECT_EQ(log.settings.at("alpha"), "1.15");
  EXPECT_EQ(log.setting_lines.at("alpha"), 1);
  ASSERT_EQ(log.rows.size(), 3u);
  EXPECT_EQ(log.rows[0].pass, "Forward");
  EXPECT_DOUBLE_EQ(log.rows[0].tables, 32);
  EXPECT_DOUBLE_EQ(log.rows[0].time_us, 1136);
  EXPECT_DOUBLE_EQ(*log.rows[0].bandwidth_GBps, 590.26);
  EXPECT_EQ(log.rows[1].pass, "ForwardBackward");
  EXPECT_DOUBLE_EQ(log.rows[1].time_us, 2312);
  EXPECT_DOUBLE_EQ(*log.rows[1].bandwidth_GBps, 871.20);
  EXPECT_EQ(log.rows[2].pass, "Backward");
  EXPECT_EQ(log.rows[2].line, 5);
  ASSERT_TRUE(log.rows[2].alpha.has_value());
  EXPECT_DOUBLE_EQ(*log.rows[2].alpha, 1.2);
}

TEST(FbgemmLog, ReadsTheCommandLinesOptions) {
  const FbgemmLog log = parse_fbgemm_log(
      "$ python bench/split_table_batched_embeddings_benchmark.py device --alpha 1.05 --mixed "
      "--weights-precision=fp16 --no-row-wise --bag-size 8\n"
      "INFO:root:Forward, B: 512, E: 1000, T: 4, D: 64.5, L: 8, W: True, BW: 1.0 GB/s, T: 10us\n",
      "bench.log");
  EXPECT_EQ(log.command, "device");
  EXPECT_EQ(log.settings.at("alpha"), "1.05");
  EXPECT_EQ(log.settings.at("mixed"), "true");
  EXPECT_EQ(log.settings.at("weights-precision"), "fp16");
  EXPECT_EQ(log.settings.at("no-row-wise"), "true");
  EXPECT_EQ(log.settings.at("bag-size"), "8");
  ASSERT_EQ(log.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(log.rows[0].dim, 64.5);
  EXPECT_TRUE(log.rows[0].weighted);
}

TEST(FbgemmLog, RefusesBadLogsWithTheirLine) {
  const std::string ok =
      "INFO:root:Forward, B: 512, E: 100000, T: 32, D: 128, L: 20, W: False, BW: 1 GB/s, T: 9us\n";
  EXPECT_NE(fbgemm_error_of("").find("bench.log: key 'log': the file is empty"), std::string::npos);
  EXPECT_NE(fbgemm_error_of("hello\nworld\n").find("no result lines"), std::string::npos);
  // Truncated: the time is missing.
  EXPECT_NE(fbgemm_error_of(ok + "INFO:root:Forward, B: 512, E: 100000, T: 32, D: 128, L: 20, W: "
                                 "False, BW:  590.26 GB/s\n")
                .find("bench.log:2: key 'T': a Forward line without its time"),
            std::string::npos);
  // A field missing, a non-numeric and a non-integral count.
  EXPECT_NE(fbgemm_error_of("INFO:root:Forward, B: 512, T: 32, D: 128, L: 20, T: 9us\n")
                .find("bench.log:1: key 'E'"),
            std::string::npos);
  EXPECT_NE(fbgemm_error_of(ok + ok + "INFO:root:Forward, B: abc, E: 1, T: 1, D: 4, L: 1, T: 9us\n")
                .find("bench.log:3: key 'B': 'abc' is not a number"),
            std::string::npos);
  EXPECT_NE(fbgemm_error_of("INFO:root:Forward, B: 2.5, E: 1, T: 1, D: 4, L: 1, T: 9us\n")
                .find("not a positive whole count"),
            std::string::npos);
  EXPECT_NE(fbgemm_error_of("INFO:root:Forward, B: 2, E: 1, T: 1, D: 4, L: 1, T: 9 ms\n")
                .find("key 'T': '9 ms' is not a number of us"),
            std::string::npos);
  EXPECT_NE(fbgemm_error_of("INFO:root:Forward, B: 2, E: 1, T: 1, D: 0, L: 1, T: 9us\n")
                .find("key 'D': D = 0 is not an embedding dim"),
            std::string::npos);
  EXPECT_NE(fbgemm_error_of("INFO:root:Forward, B: 2, E: 1, T: 1, D: 4, L: 1, T: 0us\n")
                .find("must be positive"),
            std::string::npos);
  // Iteration lines with no average after them.
  EXPECT_NE(fbgemm_error_of(
                ok + "INFO:root:Iteration 0: fp32 Forward, B: 2, E: 1, T: 1, D: 4, L: 1, Time: "
                     "9us\nINFO:root:Iteration 1: fp32 Forward, B: 2, E: 1, T: 1, D: 4, L: 1, "
                     "Time: 9us\n")
                .find("bench.log:2: key 'Iteration': 2 'Iteration N:' lines"),
            std::string::npos);
}

TEST(FbgemmLog, AMissingFileIsBadInput) {
  EXPECT_THROW(read_fbgemm_log(kKernelDataDir + "no_such_file.log"), InputError);
}

}  // namespace
}  // namespace shardsim
