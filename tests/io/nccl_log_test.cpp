// Reading nccl-tests output (io/nccl_log.hpp): both layouts, which test a log is, and every
// refusal with its line.
#include "shardsim/io/nccl_log.hpp"

#include <gtest/gtest.h>

#include <string>

#include "shardsim/core/error.hpp"

namespace shardsim {
namespace {

const std::string kDir = SHARDSIM_SOURCE_DIR "/tests/data/nccl_logs/";

TEST(NcclLog, ReadsTheCurrentLayout) {
  const NcclLog log = read_nccl_log(kDir + "all_reduce_perf_2x4.log");
  EXPECT_EQ(log.op, "allreduce");  // from the file name
  EXPECT_EQ(log.ranks, 8);
  EXPECT_EQ(log.hosts, 2);
  EXPECT_EQ(log.host_names, (std::vector<std::string>{"node-a", "node-b"}));
  ASSERT_EQ(log.rows.size(), 3u);
  const NcclLogRow& r = log.rows[2];
  EXPECT_EQ(r.line, 19);
  EXPECT_DOUBLE_EQ(r.size_bytes, 8388608);
  EXPECT_DOUBLE_EQ(r.count, 2097152);
  EXPECT_EQ(r.type, "float");
  EXPECT_EQ(r.redop, "sum");
  EXPECT_EQ(r.root, -1);
  EXPECT_DOUBLE_EQ(r.time_us, 401.7);
  EXPECT_DOUBLE_EQ(r.algbw_GBps, 20.88);
  EXPECT_DOUBLE_EQ(r.busbw_GBps, 36.54);
  ASSERT_TRUE(r.in_place_time_us.has_value());
  EXPECT_DOUBLE_EQ(*r.in_place_time_us, 400.2);
}

TEST(NcclLog, ReadsTheOldLayout) {
  const NcclLog log = read_nccl_log(kDir + "alltoall_old_format.log");
  EXPECT_EQ(log.op, "alltoall");
  EXPECT_EQ(log.ranks, 2);
  EXPECT_EQ(log.hosts, 1);
  ASSERT_EQ(log.rows.size(), 2u);
  EXPECT_EQ(log.rows[0].root, -1);
  EXPECT_DOUBLE_EQ(log.rows[1].time_us, 40.10);
  EXPECT_DOUBLE_EQ(*log.rows[1].in_place_busbw_GBps, 13.10);
}

// A minimal log around `rows`, with `extra` header lines.
std::string log_text(const std::string& rows, const std::string& extra = "") {
  return "# nThread 1 nGpus 1 minBytes 8 maxBytes 8\n" + extra +
         "#  Rank  0 Group  0 Pid 1 on h0 device  0 [0x1] GPU\n"
         "#  Rank  1 Group  0 Pid 2 on h1 device  0 [0x1] GPU\n"
         "#       size         count      type   redop    root     time   algbw   busbw #wrong"
         "     time   algbw   busbw #wrong\n"
         "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"
         "            (us)  (GB/s)  (GB/s)\n" +
         rows;
}

TEST(NcclLog, TellsTheTestByNameOrByItsRows) {
  const std::string ar = "  1024  256  float  sum  -1  10.0  0.1  0.1  0  10.0  0.1  0.1  0\n";
  const std::string rs = "  1024  128  float  sum  -1  10.0  0.1  0.1  0  10.0  0.1  0.1  0\n";
  const std::string sr = "  1024  256  float  none  -1  10.0  0.1  0.1  N/A  10.0  0.1  0.1  N/A\n";
  EXPECT_EQ(parse_nccl_log(log_text(ar), "run.log").op, "allreduce");
  EXPECT_EQ(parse_nccl_log(log_text(rs), "run.log").op, "reduce_scatter");
  EXPECT_EQ(parse_nccl_log(log_text(sr), "run.log").op, "sendrecv");
  EXPECT_EQ(
      parse_nccl_log(log_text(ar, "# Collective test starting: all_reduce_perf\n"), "x.log").op,
      "allreduce");
  EXPECT_EQ(parse_nccl_log(log_text(rs), "reduce_scatter_perf.out").op, "reduce_scatter");
}

struct Bad {
  const char* name;
  std::string text;
  int line;
  const char* says;
};

TEST(NcclLog, RefusesBadLogsAtTheirLine) {
  const std::string ok = "  8  2  float  sum  -1  10.0  0.0  0.0  0  10.0  0.0  0.0  0\n";
  const std::string ag = "  1024  128  float  none  -1  10.0  0.1  0.1  0  10.0  0.1  0.1  0\n";
  const Bad cases[] = {
      {"empty", "\n\n", 0, "empty"},
      {"no ranks",
       "#       size         count      type   redop    root     time   algbw   busbw #wrong\n" +
           std::string("  8  2  float  sum  -1  10.0  0.0  0.0  0\n"),
       0, "rank count"},
      {"truncated row", log_text(ok + "  16  4  float  sum  -1  10.0\n"), 7, "truncated"},
      {"not a number", log_text("  16  4  float  sum  -1  10.x  0.0  0.0  0  1  1  1  0\n"), 6,
       "not a number"},
      {"wrong", log_text("  8  2  float  sum  -1  10.0  0.0  0.0  3  10.0  0.0  0.0  0\n"), 6,
       "wrong results"},
      {"out of bounds", log_text(ok + "# Out of bounds values : 2 FAILED\n"), 7, "FAILED"},
      {"sizes restart", log_text(ok + ok), 7, "mixed runs"},
      {"two headers", log_text(ok) + "# nThread 1 nGpus 1 minBytes 8 maxBytes 8\n", 7,
       "mixed runs"},
      {"two tests",
       log_text(ok, "# Collective test starting: all_reduce_perf\n") +
           "# Collective test starting: alltoall_perf\n",
       8, "mixed runs"},
      {"no rows", log_text(""), 0, "no result rows"},
      {"row before header", "#  Rank  0 Pid 1 on h0 device 0 [0x1] GPU\n" + ok, 2, "before"},
      {"allgather or alltoall", log_text(ag), 6, "allgather from alltoall"},
      {"rank out of range",
       "# nThread 1 nGpus 1 minBytes 8 maxBytes 8\n#  Rank  5555555555555555555 Pid 1 on h0\n", 2,
       "not a rank number"},
      {"a rank on two hosts",
       log_text(ok) + "#  Rank  1 Group  0 Pid 2 on h7 device  0 [0x1] GPU\n", 7, "mixed runs"},
      {"root out of range",
       log_text("  8  2  float  sum  1e30  10.0  0.0  0.0  0  10.0  0.0  0.0  0\n"), 6,
       "root rank"},
  };
  for (const Bad& c : cases) {
    try {
      parse_nccl_log(c.text, "run.log");
      ADD_FAILURE() << c.name << ": accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where().line, c.line) << c.name << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos)
          << c.name << ": " << e.what();
      EXPECT_EQ(e.where().file, "run.log");
    }
  }
  EXPECT_THROW(read_nccl_log(kDir + "no-such.log"), InputError);
}

}  // namespace
}  // namespace shardsim
