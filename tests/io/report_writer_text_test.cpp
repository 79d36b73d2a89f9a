// The text report: units in the headers, the numbers given rounded as docs/report.md says,
// aligned columns, the >16-GPU elision and the comparison table.
#include <gtest/gtest.h>

#include <sstream>

#include "io/report_writer_test_fixtures.hpp"
#include "shardsim/io/report_writer.hpp"
#include "support/text.hpp"

namespace shardsim {
namespace {

std::string text_of(const std::vector<Report>& reports) {
  std::ostringstream out;
  write_text(out, reports);
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The lines of the per-GPU table: from its header line to the next blank line.
std::vector<std::string> gpu_table(const std::string& text) {
  std::vector<std::string> table;
  bool in = false;
  for (const std::string& line : lines_of(text)) {
    if (!in && line.find("lookup ms") != std::string::npos) in = true;
    if (in && line.empty()) break;
    if (in) table.push_back(line);
  }
  return table;
}

std::string first_cell(const std::string& line) {
  std::istringstream in(line);
  std::string cell;
  in >> cell;
  return cell;
}

using testing::has;

// The first report's header line (after the brief).
std::string header_of(const std::string& t) {
  for (const std::string& line : lines_of(t)) {
    if (line.rfind("scenario ", 0) == 0 || line.rfind("[#", 0) == 0) return line;
  }
  return {};
}

TEST(ReportWriterText, HeaderLineNamesTheRun) {
  const std::string t = text_of({test::make_report(4, "table_wise", "cluster.nodes=2")});
  const std::string header = header_of(t);
  EXPECT_TRUE(has(header, "scenario example")) << header;
  EXPECT_TRUE(has(header, "planner table_wise")) << header;
  EXPECT_TRUE(has(header, "preset dgx-a100")) << header;
  EXPECT_TRUE(has(header, "4 GPUs on 2 nodes")) << header;
  EXPECT_TRUE(has(header, "training")) << header;
  EXPECT_TRUE(has(header, "sweep cluster.nodes=2")) << header;
  EXPECT_FALSE(has(header_of(text_of({test::make_report()})), "sweep"));
}

TEST(ReportWriterText, ALongSweepValueIsCutInTheHeaderAndTheComparison) {
  // A sweep over whole table lists: the text shows each value's first 40 characters.
  const std::string label = "model.tables=[" + std::string(100, 't') + "],cluster.nodes=2";
  const std::string t =
      text_of({test::make_report(4, "table_wise", label), test::make_report(4, "row_wise", label)});
  const std::string shown = "model.tables=[" + std::string(39, 't') + "...,cluster.nodes=2";
  EXPECT_TRUE(has(header_of(t), "sweep " + shown)) << lines_of(t).at(0);
  EXPECT_FALSE(has(t, std::string(41, 't'))) << t;
  EXPECT_TRUE(has(t.substr(t.find("brief:")), shown)) << t;
}

TEST(ReportWriterText, GpuTableHasUnitsAndRoundedNumbers) {
  const std::vector<std::string> table = gpu_table(text_of({test::make_report()}));
  ASSERT_EQ(table.size(), 5u);  // header + 4 GPUs
  for (const char* h : {"GPU", "node", "lookup ms", "busy ms", "comm ms", "wait ms", "idle ms",
                        "memory GB", "memory %", "lookups", "shards"}) {
    EXPECT_TRUE(has(table[0], h)) << h;
  }
  // GPU 0: lookup 1 ms, comm 2 ms, idle 0, 10 GB of 80 GB = 12.5 %, 1,234,567 lookups, 3 shards.
  std::istringstream row0(table[1]);
  std::vector<std::string> cells;
  for (std::string c; row0 >> c;) cells.push_back(c);
  EXPECT_EQ(cells, (std::vector<std::string>{"0", "0", "1.000", "4.000", "2.000", "0.000", "0.000",
                                             "10.00", "12.5", "1,234,567", "3"}));
  // GPU 3: lookup 4 ms, comm 0.5 ms, idle 0.75 ms, 40 GB = 50.0 %, 4,000,000 lookups, 9 shards.
  std::istringstream row3(table[4]);
  cells.clear();
  for (std::string c; row3 >> c;) cells.push_back(c);
  EXPECT_EQ(cells, (std::vector<std::string>{"3", "1", "4.000", "4.000", "0.500", "0.300", "0.750",
                                             "40.00", "50.0", "4,000,000", "9"}));
}

TEST(ReportWriterText, GpuTableColumnsAreAligned) {
  Report r = test::make_report();
  r.per_gpu[1].lookups = 98765432.0;  // a wider cell must widen its whole column
  const std::vector<std::string> table = gpu_table(text_of({r}));
  ASSERT_EQ(table.size(), 5u);
  // All columns right-aligned: every line ends at the same column, and each header ends where
  // the cells under it end.
  for (const std::string& line : table) EXPECT_EQ(line.size(), table[0].size()) << line;
  const std::size_t lookups_end = table[0].find("lookups") + std::string("lookups").size();
  const std::size_t cell_end = table[2].find("98,765,432") + std::string("98,765,432").size();
  EXPECT_EQ(lookups_end, cell_end);
}

TEST(ReportWriterText, SummaryBlock) {
  const std::string t = text_of({test::make_report()});
  // mean 0.0123456 s = 12.3456 ms -> "12.346"; p50 12.3 ms; p99 13 ms.
  EXPECT_TRUE(has(t, "mean 12.346 ms, p50 12.300 ms, p99 13.000 ms")) << t;
  EXPECT_TRUE(has(t, "1,234,568")) << t;  // QPS 1234567.8 rounded
  EXPECT_TRUE(has(t, "imbalance ratio  1.600")) << t;
  EXPECT_TRUE(has(t, "DoB              0.250")) << t;
  // peak 40 GB of 80 GB on GPU 3; mean 25 GB = 31.25 % -> "31.2" (printf rounds the binary
  // value of 31.25 half to even).
  EXPECT_TRUE(has(t, "peak 40.00 GB (50.0%) on GPU 3, mean 25.00 GB (31.2%), capacity 80.00 GB"))
      << t;
  EXPECT_TRUE(has(t, "fits             yes")) << t;
  EXPECT_TRUE(has(t, "planning time    42.500 ms")) << t;
  // memory max/mean 1.6; comm bytes 12 MB / 7.5 MB = 1.6; lookups 4e6 / 2558641.75 = 1.563.
  EXPECT_TRUE(has(t, "balance          max/mean memory 1.600, lookups 1.563, comm bytes 1.600"))
      << t;
}

TEST(ReportWriterText, BreakdownPerPhase) {
  const std::vector<std::string> lines = lines_of(text_of({test::make_report()}));
  std::size_t header = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (has(lines[i], "serialized ms")) header = i;
  }
  ASSERT_LT(header + 2, lines.size());
  EXPECT_TRUE(has(lines[header], "exposed ms"));
  std::istringstream row(lines[header + 1]);
  std::vector<std::string> cells;
  for (std::string c; row >> c;) cells.push_back(c);
  EXPECT_EQ(cells, (std::vector<std::string>{"embedding_lookup_fwd", "4.000", "3.000", "-"}));
  EXPECT_TRUE(has(lines[header + 2], "alltoall_fwd"));
  EXPECT_TRUE(has(lines[header + 2], "0.500"));
  // The header names the critical GPU; a total row sums the exposed column.
  EXPECT_TRUE(has(lines[header - 1], "critical GPU 0")) << lines[header - 1];
  bool total = false;
  for (std::size_t i = header; i < lines.size(); ++i) total = total || has(lines[i], "total");
  EXPECT_TRUE(total);
}

TEST(ReportWriterText, UnfitReportSaysWhereAndHasNoTiming) {
  const std::string t = text_of({test::make_unfit_report()});
  EXPECT_TRUE(has(t, "NO: needs 90.00 GB on GPU 2 (capacity 80.00 GB)")) << t;
  EXPECT_FALSE(has(t, "1,234,568")) << t;  // the QPS the unfit report still carries
  EXPECT_FALSE(has(t, "12.346")) << t;
  const std::vector<std::string> table = gpu_table(t);
  ASSERT_EQ(table.size(), 5u);
  EXPECT_TRUE(has(table[1], "n/a"));
  EXPECT_TRUE(has(table[3], "90.00"));  // memory is known without simulating
  EXPECT_TRUE(has(table[3], "112.5"));  // 90 / 80 GB
  EXPECT_TRUE(has(t, "fit error        the plan does not fit: GPU 2 needs 90.000 GB")) << t;
  EXPECT_TRUE(has(t, "DoB              0.250")) << t;  // a property of the plan, not the run
}

TEST(ReportWriterText, AShortHostMemoryIsNotReportedAsAnHbmShortfall) {
  Report r = test::make_unfit_report();
  r.per_gpu[2].memory_bytes = 30e9;  // every GPU's HBM holds its part
  r.memory_max_bytes = 40e9;
  r.fit_error =
      "the plan does not fit: it needs 1361.097 GB where 1099.512 GB are available: the tables "
      "in host memory of node 0 need 1361.097 GB";
  const std::string t = text_of({r});
  EXPECT_TRUE(has(t, "NO: host memory (HBM fits; see the fit error)")) << t;
  EXPECT_FALSE(has(t, "NO: needs")) << t;
  EXPECT_TRUE(has(t, "fit error        the plan does not fit: it needs 1361.097 GB")) << t;
}

TEST(ReportWriterText, UnplacedReportHasNoGpuTable) {
  const std::string t = text_of({test::make_unplaced_report()});
  EXPECT_TRUE(has(t, "no per-GPU figures")) << t;
  EXPECT_TRUE(gpu_table(t).empty()) << t;
  EXPECT_TRUE(has(t, "NO: needs 120.00 GB on GPU 1 (capacity 80.00 GB)")) << t;
  EXPECT_TRUE(has(t, "peak 120.00 GB (150.0%) on GPU 1, mean n/a, capacity 80.00 GB")) << t;
  EXPECT_TRUE(has(t, "DoB              n/a")) << t;
}

TEST(ReportWriterText, MoreThanSixteenGpusAreElided) {
  Report r = test::make_report(20);
  r.per_gpu[10].lookup_s = 0.05;         // hidden GPU 10 holds the max lookup time: 50 ms
  r.per_gpu[12].comm_transfer_s = 1e-6;  // hidden GPU 12 holds the min comm time: 0.001 ms
  const std::vector<std::string> table = gpu_table(text_of({r}));
  // header, GPUs 0-7, "...", GPUs 16-19, min, max
  ASSERT_EQ(table.size(), 1u + 8 + 1 + 4 + 2);
  std::vector<std::string> firsts;
  for (std::size_t i = 1; i < table.size(); ++i) firsts.push_back(first_cell(table[i]));
  EXPECT_EQ(firsts, (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "...", "16",
                                              "17", "18", "19", "min", "max"}));
  const std::string& min_row = table[table.size() - 2];
  const std::string& max_row = table.back();
  EXPECT_TRUE(has(max_row, "50.000 @g10")) << max_row;
  EXPECT_TRUE(has(min_row, "0.001 @g12")) << min_row;
  EXPECT_TRUE(has(min_row, "10.00 @g0")) << min_row;    // memory GB
  EXPECT_TRUE(has(max_row, "200.00 @g19")) << max_row;  // 20 x 10 GB
}

TEST(ReportWriterText, SixteenGpusAreAllShown) {
  const std::vector<std::string> table = gpu_table(text_of({test::make_report(16)}));
  EXPECT_EQ(table.size(), 17u);
  for (const std::string& line : table) EXPECT_FALSE(has(line, "...")) << line;
}

TEST(ReportWriterText, ComparisonMarksFastestFittingReport) {
  Report a = test::make_report(4, "table_wise", "cluster.nodes=1");
  a.iteration_time.mean_s = 0.010;
  a.qps = 100;                                        // the best is the most QPS that fits
  Report b = test::make_unfit_report(4, "row_wise");  // fastest number, but does not fit
  b.sweep_point = "cluster.nodes=2";
  b.iteration_time.mean_s = 0.008;
  b.qps = 125;
  Report c = test::make_report(4, "oper", "cluster.nodes=4");
  c.iteration_time.mean_s = 0.009;
  c.qps = 111;
  const std::string t = text_of({a, b, c});
  const std::vector<std::string> lines = lines_of(t);
  std::size_t header = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (has(lines[i], "iteration ms") && has(lines[i], "peak memory GB")) header = i;
  }
  ASSERT_EQ(header, 1u) << t;  // the brief opens the text
  EXPECT_EQ(lines[0], "brief:");
  for (const char* h : {"planner", "sweep point", "QPS", "imbalance", "DoB", "fits"}) {
    EXPECT_TRUE(has(lines[header], h)) << h;
  }
  EXPECT_TRUE(has(lines[header + 1], "table_wise"));
  EXPECT_TRUE(has(lines[header + 1], "10.000"));
  EXPECT_FALSE(has(lines[header + 1], "best"));
  EXPECT_TRUE(has(lines[header + 2], "NO"));
  EXPECT_TRUE(has(lines[header + 2], "n/a"));
  EXPECT_FALSE(has(lines[header + 2], "best"));
  EXPECT_TRUE(has(lines[header + 3], "oper"));
  EXPECT_TRUE(has(lines[header + 3], "cluster.nodes=4"));
  EXPECT_TRUE(has(lines[header + 3], "<- best"));
  // Each report has its own header, numbered as in the JSON array.
  EXPECT_TRUE(has(t, "[#0] scenario example | planner table_wise"));
  EXPECT_TRUE(has(t, "[#2] scenario example | planner oper"));
}

TEST(ReportWriterText, NoComparisonForOneReport) {
  EXPECT_FALSE(has(text_of({test::make_report()}), "best"));
  EXPECT_FALSE(has(text_of({test::make_report()}), "[#0]"));
}

TEST(ReportWriterText, NoBreakdownNoDoubleBlankLine) {
  Report r = test::make_report();
  r.breakdown.clear();
  const std::string t = text_of({r, test::make_report()});
  EXPECT_FALSE(has(t.substr(0, t.find("[#1]")), "breakdown")) << t;
  EXPECT_EQ(t.find("\n\n\n"), std::string::npos) << t;
  EXPECT_EQ(t.back(), '\n');
}

TEST(ReportWriterText, NoLineEndsInSpaces) {
  const std::string t = text_of({test::make_report(20), test::make_unfit_report()});
  for (const std::string& line : lines_of(t)) {
    if (!line.empty()) {
      EXPECT_NE(line.back(), ' ') << "[" << line << "]";
    }
  }
}

}  // namespace
}  // namespace shardsim
