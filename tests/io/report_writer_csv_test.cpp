// CSV writers: headers with units, row counts, quoting, and the communication-matrix round trip.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "io/report_writer_test_fixtures.hpp"
#include "shardsim/io/report_format.hpp"
#include "shardsim/io/report_writer.hpp"

namespace shardsim {
namespace {

using Row = std::vector<std::string>;

// A small RFC 4180 reader: quoted fields, doubled quotes; one record per line (the writers
// never put a newline inside a field in these tests).
std::vector<Row> parse_csv(const std::string& text) {
  std::vector<Row> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    Row row;
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted) {
        if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else if (c == '"') {
          quoted = false;
        } else {
          field.push_back(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        row.push_back(field);
        field.clear();
      } else {
        field.push_back(c);
      }
    }
    row.push_back(field);
    rows.push_back(row);
  }
  return rows;
}

std::size_t column(const Row& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

TEST(ReportWriterCsv, SummaryOneRowPerReportWithUnits) {
  Report quoted = test::make_report(2, "row_wise", "cluster.nodes=2,workload.batch_per_gpu=1024");
  quoted.scenario = "say \"hi\"";
  const std::vector<Report> reports{test::make_report(), quoted, test::make_unfit_report()};
  std::ostringstream out;
  write_csv_summary(out, reports);
  const std::vector<Row> rows = parse_csv(out.str());
  ASSERT_EQ(rows.size(), 4u);
  const Row& h = rows[0];
  for (const Row& r : rows) EXPECT_EQ(r.size(), h.size());
  EXPECT_EQ(h[0], "scenario");
  EXPECT_EQ(h[1], "planner");
  EXPECT_EQ(h[2], "sweep_point");
  for (const char* name :
       {"iteration_mean_s", "iteration_p50_s", "iteration_p99_s", "qps", "imbalance_ratio",
        "degree_of_balance", "memory_max_bytes", "memory_capacity_bytes", "fits_in_memory",
        "planning_time_s", "seed", "shardsim_version"}) {
    column(h, name);
  }
  EXPECT_EQ(rows[1][column(h, "planner")], "table_wise");
  EXPECT_EQ(std::strtod(rows[1][column(h, "iteration_mean_s")].c_str(), nullptr), 0.0123456);
  EXPECT_EQ(std::strtod(rows[1][column(h, "qps")].c_str(), nullptr), 1234567.8);
  EXPECT_EQ(rows[1][column(h, "memory_max_bytes")], "40000000000");
  EXPECT_EQ(rows[1][column(h, "fits_in_memory")], "true");
  EXPECT_EQ(rows[1][column(h, "seed")], "42");
  // Quoted fields come back intact.
  EXPECT_EQ(rows[2][column(h, "sweep_point")], "cluster.nodes=2,workload.batch_per_gpu=1024");
  EXPECT_EQ(rows[2][column(h, "scenario")], "say \"hi\"");
  // A plan that did not fit has empty timing fields.
  EXPECT_EQ(rows[3][column(h, "fits_in_memory")], "false");
  EXPECT_EQ(rows[3][column(h, "iteration_mean_s")], "");
  EXPECT_EQ(rows[3][column(h, "qps")], "");
  EXPECT_EQ(rows[3][column(h, "memory_max_bytes")], "90000000000");
  EXPECT_EQ(rows[3][column(h, "fit_error")],
            "the plan does not fit: GPU 2 needs 90.000 GB but has 80.000 GB available");
  EXPECT_EQ(rows[3][column(h, "degree_of_balance")], "0.25");  // from the plan
  EXPECT_EQ(rows[1][column(h, "fit_error")], "");
}

// summary.csv carries the breakdown and the plan statistics the JSON has (issue 18).
TEST(ReportWriterCsv, SummaryHasTheBreakdownAndPlanStatistics) {
  Report r = test::make_report();
  r.critical_gpu = 3;
  r.busy_imbalance_ratio = 1.25;
  r.breakdown = {{"alltoall_fwd", 2e-3, 1.5e-3, 0.5e-3}, {"idle", 1e-4, 1e-4, 0}};
  PlanStats st;
  st.estimated_embedding_s = 4e-3;
  st.alltoall_fwd_s = 1e-3;
  st.estimated_degree_of_balance = 0.5;
  r.plan_stats = st;
  const std::vector<Report> reports{r, test::make_unfit_report()};
  std::ostringstream out;
  write_csv_summary(out, reports);
  const std::vector<Row> rows = parse_csv(out.str());
  ASSERT_EQ(rows.size(), 3u);
  const Row& h = rows[0];
  for (const Row& row : rows) EXPECT_EQ(row.size(), h.size());
  EXPECT_EQ(rows[1][column(h, "critical_gpu")], "3");
  EXPECT_EQ(rows[1][column(h, "busy_imbalance_ratio")], "1.25");
  EXPECT_EQ(rows[1][column(h, "serialized_alltoall_fwd_s")], "0.002");
  EXPECT_EQ(rows[1][column(h, "exposed_alltoall_fwd_s")], "0.0015");
  EXPECT_EQ(rows[1][column(h, "exposed_bottom_mlp_fwd_s")], "");  // did not run
  EXPECT_EQ(rows[1][column(h, "exposed_idle_s")], "0.0001");
  EXPECT_EQ(rows[1][column(h, "estimated_embedding_s")], "0.004");
  EXPECT_EQ(rows[1][column(h, "estimated_degree_of_balance")], "0.5");
  EXPECT_EQ(rows[2][column(h, "critical_gpu")], "");  // not simulated
  EXPECT_EQ(rows[2][column(h, "exposed_idle_s")], "");
}

TEST(ReportWriterCsv, SummaryOfUnplacedReportLeavesPlanFieldsEmpty) {
  const std::vector<Report> reports{test::make_unplaced_report()};
  std::ostringstream out;
  write_csv_summary(out, reports);
  const std::vector<Row> rows = parse_csv(out.str());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][column(rows[0], "degree_of_balance")], "");
  EXPECT_EQ(rows[1][column(rows[0], "memory_mean_bytes")], "");
  EXPECT_EQ(rows[1][column(rows[0], "memory_max_bytes")], "120000000000");
  EXPECT_EQ(rows[1][column(rows[0], "worst_memory_gpu")], "1");
}

TEST(ReportWriterCsv, PerGpuOneRowPerGpuPerReport) {
  const std::vector<Report> reports{test::make_report(4, "table_wise"),
                                    test::make_report(2, "row_wise", "cluster.nodes=1"),
                                    test::make_unfit_report(3, "oper")};
  std::ostringstream out;
  write_per_gpu_csv(out, reports);
  const std::vector<Row> rows = parse_csv(out.str());
  ASSERT_EQ(rows.size(), 1u + 4 + 2 + 3);
  EXPECT_EQ(rows[0], (Row{"planner",
                          "sweep_point",
                          "gpu",
                          "node",
                          "lookup_s",
                          "busy_s",
                          "compute_s",
                          "comm_transfer_s",
                          "comm_wait_s",
                          "idle_s",
                          "embedding_share_s",
                          "dense_compute_share_s",
                          "comm_share_s",
                          "comm_wait_share_s",
                          "host_share_s",
                          "idle_share_s",
                          "memory_bytes",
                          "memory_capacity_bytes",
                          "weights_bytes",
                          "optimizer_bytes",
                          "cache_bytes",
                          "activation_bytes",
                          "reserved_bytes",
                          "host_memory_bytes",
                          "host_link_bytes",
                          "lookups",
                          "shards",
                          "comm_sent_bytes",
                          "comm_received_bytes"}));
  for (const Row& r : rows) EXPECT_EQ(r.size(), rows[0].size());
  // Row 3 is table_wise GPU 2: lookup 3 ms, memory 30 GB, 7 shards.
  EXPECT_EQ(rows[3][0], "table_wise");
  EXPECT_EQ(rows[3][2], "2");
  EXPECT_EQ(std::strtod(rows[3][4].c_str(), nullptr), 3e-3);
  EXPECT_EQ(rows[3][16], "30000000000");
  EXPECT_EQ(rows[3][23], "200000000000");  // host_memory_bytes
  EXPECT_EQ(rows[3][24], "200000000");     // host_link_bytes
  EXPECT_EQ(rows[3][26], "7");
  EXPECT_EQ(rows[5][0], "row_wise");
  EXPECT_EQ(rows[5][1], "cluster.nodes=1");
  EXPECT_EQ(rows[7][0], "oper");
  EXPECT_EQ(rows[7][4], "");  // not simulated
  EXPECT_EQ(rows[7][16], "10000000000");
}

// Property: writing a matrix and parsing it back gives exactly the same doubles.
TEST(ReportWriterCsv, CommMatrixRoundTrip) {
  ByteMatrix m(5);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) m.at(i, j) = i == j ? 0.0 : (i + 1) * 1e9 / 3.0 + j * 0.1;
  }
  m.at(4, 0) = 1e20;
  m.at(3, 1) = 123456789.0;
  std::ostringstream out;
  write_comm_matrix_csv(out, m);
  const std::vector<Row> rows = parse_csv(out.str());
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0], (Row{"src\\dst", "0", "1", "2", "3", "4"}));
  EXPECT_EQ(rows[4][2], "123456789");  // whole byte counts print without a fraction
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(rows[i + 1].size(), 6u);
    EXPECT_EQ(rows[i + 1][0], std::to_string(i));
    for (int j = 0; j < 5; ++j) {
      EXPECT_EQ(std::strtod(rows[i + 1][j + 1].c_str(), nullptr), m.at(i, j)) << i << "," << j;
    }
  }
}

TEST(ReportWriterCsv, EmptyCommMatrixIsJustTheHeader) {
  std::ostringstream out;
  write_comm_matrix_csv(out, ByteMatrix());
  EXPECT_EQ(out.str(), "src\\dst\n");
}

TEST(ReportWriterFormat, Thousands) {
  namespace rf = report_format;
  EXPECT_EQ(rf::thousands(0), "0");
  EXPECT_EQ(rf::thousands(999), "999");
  EXPECT_EQ(rf::thousands(1000), "1,000");
  EXPECT_EQ(rf::thousands(1234567.4), "1,234,567");
  EXPECT_EQ(rf::thousands(1234567.6), "1,234,568");
  EXPECT_EQ(rf::thousands(-1234), "-1,234");
  EXPECT_EQ(rf::thousands(-0.4), "0");
  EXPECT_EQ(rf::thousands(123456789012.0), "123,456,789,012");
  EXPECT_EQ(rf::thousands(std::numeric_limits<double>::quiet_NaN()), "n/a");
}

TEST(ReportWriterFormat, FixedDurationAndCsv) {
  namespace rf = report_format;
  EXPECT_EQ(rf::fixed(12.3456, 3), "12.346");
  EXPECT_EQ(rf::fixed(std::numeric_limits<double>::infinity(), 3), "n/a");
  EXPECT_EQ(rf::duration(0.0425), "42.500 ms");
  EXPECT_EQ(rf::duration(1.5), "1.500 s");
  EXPECT_EQ(rf::duration(125.0), "125.000 s");
  EXPECT_EQ(rf::csv_number(0.1), "0.1");
  EXPECT_EQ(rf::csv_number(40e9), "40000000000");
  EXPECT_EQ(rf::csv_number(std::numeric_limits<double>::quiet_NaN()), "");
  EXPECT_EQ(rf::csv_field("plain"), "plain");
  EXPECT_EQ(rf::csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(rf::csv_field("say \"x\""), "\"say \"\"x\"\"\"");
  EXPECT_EQ(rf::csv_field("two\nlines"), "\"two\nlines\"");
}

TEST(ReportWriterFormat, ShownSweepPointCutsLongValuesKeyByKey) {
  namespace rf = report_format;
  // Short labels as written, commas inside values and list indices in keys included.
  EXPECT_EQ(rf::shown_sweep_point("cluster.nodes=2"), "cluster.nodes=2");
  EXPECT_EQ(
      rf::shown_sweep_point("placement.planner=[table_wise, row_wise],model.tables[1].rows=10"),
      "placement.planner=[table_wise, row_wise],model.tables[1].rows=10");
  // A 65-character value: its first 40 and "..."; the next key keeps its own value.
  const std::string list = "[" + std::string(63, 'a') + "]";
  EXPECT_EQ(rf::shown_sweep_point("model.tables=" + list + ",cluster.nodes=4"),
            "model.tables=[" + std::string(39, 'a') + "...,cluster.nodes=4");
  // 64 characters are shown whole.
  const std::string edge = "[" + std::string(62, 'b') + "]";
  EXPECT_EQ(rf::shown_sweep_point("k=" + edge), "k=" + edge);
  // A ',' followed by 'key=' inside brackets or quotes does not split the label.
  const std::string quoted = "{name: \"x,y=1\", rows: [1,a=2]," + std::string(60, 'c') + "}";
  EXPECT_EQ(rf::shown_sweep_point("m=" + quoted + ",n=1"), "m=" + quoted.substr(0, 40) + "...,n=1");
  // An escaped quote inside double quotes does not end them: `"a\",b=xx...x"` is one value.
  const std::string escaped = "\"a\\\",b=" + std::string(70, 'x') + "\"";
  EXPECT_EQ(rf::shown_sweep_point("m=" + escaped + ",n=2"),
            "m=" + escaped.substr(0, 40) + "...,n=2");
  // The cut does not split a UTF-8 character: "x" and two-byte characters, the 20th at bytes
  // 39-40, so 39 bytes are kept.
  std::string accented = "x";
  for (int i = 0; i < 40; ++i) accented += "\u00e9";
  EXPECT_EQ(rf::shown_sweep_point("name=" + accented), "name=" + accented.substr(0, 39) + "...");
}

TEST(ReportWriterFormat, TextTableRejectsTooManyCells) {
  report_format::TextTable t({{"a", report_format::TextTable::Align::left}});
  EXPECT_THROW(t.add_row({"1", "2"}), std::logic_error);
}

}  // namespace
}  // namespace shardsim
