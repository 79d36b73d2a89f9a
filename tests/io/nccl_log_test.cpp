// Reading nccl-tests output (io/nccl_log.hpp): both layouts, the shapes real logs come in
// (launcher tags, no rank lines, the old `error` column), which test a log is, and every
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

// One fixture per shape of real output (tests/data/nccl_logs/README.md has each one's source).
TEST(NcclLog, ReadsTheOldErrorColumnAsARelativeErrorNotACount) {
  const NcclLog log = read_nccl_log(kDir + "all_reduce_perf_k80_error_column.log");
  EXPECT_EQ(log.op, "allreduce");
  EXPECT_EQ(log.ranks, 4);
  EXPECT_EQ(log.hosts, 1);
  ASSERT_EQ(log.rows.size(), 7u);  // every `error` is 2e-07: not 2e-07 wrong results
  EXPECT_DOUBLE_EQ(log.rows[0].size_bytes, 33554432);
  EXPECT_DOUBLE_EQ(log.rows[0].time_us, 19902);
  EXPECT_DOUBLE_EQ(*log.rows[6].in_place_time_us, 1258876);
}

TEST(NcclLog, ReadsOpenMpiTaggedLinesAndRepeatedRoundedSizes) {
  const NcclLog log = read_nccl_log(kDir + "all_reduce_perf_t4_2x1_openmpi_tags.log");
  EXPECT_EQ(log.op, "allreduce");
  EXPECT_EQ(log.ranks, 2);
  EXPECT_EQ(log.host_names,
            (std::vector<std::string>{"test-nccl-efa-worker-0", "test-nccl-efa-worker-1"}));
  // -b 1 on floats: 1 B and 2 B round down to 0 B, then 4, 8, ... 1 GiB.
  ASSERT_EQ(log.rows.size(), 31u);
  EXPECT_DOUBLE_EQ(log.rows[0].size_bytes, 0);
  EXPECT_DOUBLE_EQ(log.rows[1].size_bytes, 0);
  EXPECT_DOUBLE_EQ(log.rows[2].size_bytes, 4);
  EXPECT_DOUBLE_EQ(log.rows.back().size_bytes, 1073741824);
  EXPECT_DOUBLE_EQ(log.rows.back().time_us, 344981);
}

TEST(NcclLog, ReadsATableWithoutRankLines) {
  // srun --label's "0: " on every line, and no rank lines: the rank count is left to the caller.
  const NcclLog log = read_nccl_log(kDir + "all_reduce_perf_p4de_2x8_srun_labels.log");
  EXPECT_EQ(log.op, "allreduce");
  EXPECT_EQ(log.ranks, 0);
  EXPECT_EQ(log.hosts, 0);
  ASSERT_EQ(log.rows.size(), 29u);
  // tests/data/collectives/points.csv #13-15 are these rows.
  EXPECT_DOUBLE_EQ(log.rows[0].time_us, 164.3);
  EXPECT_DOUBLE_EQ(log.rows[13].size_bytes, 65536);
  EXPECT_DOUBLE_EQ(log.rows[13].time_us, 227.4);
  EXPECT_DOUBLE_EQ(log.rows[28].time_us, 51406);
}

TEST(NcclLog, DropsEachLaunchersTag) {
  const std::string row = "  1024  256  float  sum  -1  10.0  0.1  0.1  0  10.0  0.1  0.1  0\n";
  const std::string plain = log_text(row);
  auto tag_every_line = [&](const std::string& tag) {
    std::string tagged;
    std::size_t start = 0;
    for (std::size_t end; (end = plain.find('\n', start)) != std::string::npos; start = end + 1) {
      tagged += tag + plain.substr(start, end - start + 1);
    }
    return tagged;
  };
  for (const std::string tag : {"[0] ", "[1,0]<stdout>:", "[12,3]<stderr>:", "0: ", "  3: "}) {
    const NcclLog log = parse_nccl_log(tag_every_line(tag), "run.log");
    EXPECT_EQ(log.ranks, 2) << tag;
    ASSERT_EQ(log.rows.size(), 1u) << tag;
    EXPECT_DOUBLE_EQ(log.rows[0].size_bytes, 1024) << tag;
  }
  // Not tags (a bracket without a rank, a number without ": "): the lines are not nccl-tests'.
  for (const std::string other : {"[x] ", "[0]", "7 "}) {
    EXPECT_THROW(parse_nccl_log(tag_every_line(other), "run.log"), InputError) << other;
  }
}

TEST(NcclLog, TakesTheTestFromTheCallerWhenTheLogDoesNotNameIt) {
  const std::string ag = "  1024  128  float  none  -1  10.0  0.1  0.1  0  10.0  0.1  0.1  0\n";
  EXPECT_EQ(parse_nccl_log(log_text(ag), "run.log", "allgather").op, "allgather");
  EXPECT_EQ(parse_nccl_log(log_text(ag), "run.log", "alltoall").op, "alltoall");
  // The caller's name wins over the file's; the log's own line wins over both (or refuses).
  EXPECT_EQ(parse_nccl_log(log_text(ag), "all_gather_perf.log", "alltoall").op, "alltoall");
  EXPECT_EQ(nccl_test_op("all_gather_perf"), "allgather");
  EXPECT_EQ(nccl_test_op("Reduce-Scatter"), "reduce_scatter");
  EXPECT_EQ(nccl_test_op("alltoall"), "alltoall");
  EXPECT_EQ(nccl_test_op("broadcast_perf"), std::nullopt);
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
      {"truncated row", log_text(ok + "  16  4  float  sum  -1  10.0\n"), 7, "truncated"},
      {"not a number", log_text("  16  4  float  sum  -1  10.x  0.0  0.0  0  1  1  1  0\n"), 6,
       "not a number"},
      {"wrong", log_text("  8  2  float  sum  -1  10.0  0.0  0.0  3  10.0  0.0  0.0  0\n"), 6,
       "wrong results"},
      {"out of bounds", log_text(ok + "# Out of bounds values : 2 FAILED\n"), 7, "FAILED"},
      {"sizes restart",
       log_text("  16  4  float  sum  -1  10.0  0.0  0.0  0  10.0  0.0  0.0  0\n" + ok), 7,
       "mixed runs"},
      {"not a relative error",
       "#  Rank  0 Pid 1 on h0 device 0 [0x1] GPU\n"
       "#       size         count      type   redop     time   algbw   busbw  error     time"
       "   algbw   busbw  error\n"
       "  8  2  float  sum  10.0  0.0  0.0  x  10.0  0.0  0.0  0e+00\n",
       3, "not a relative error"},
      {"another test than told", log_text(ag, "# Collective test starting: alltoall_perf\n"), 2,
       "--collective"},
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
      parse_nccl_log(c.text, "run.log",
                     std::string(c.name) == "another test than told"
                         ? std::optional<std::string>("allgather")
                         : std::nullopt);
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
