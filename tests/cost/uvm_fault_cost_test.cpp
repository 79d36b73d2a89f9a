// UVM page faults (cost/host_link_cost.hpp; docs/notes/model-memory.md "UVM page faults"):
// pages touched and the service time, by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "shardsim/cost/cost_params.hpp"
#include "shardsim/cost/host_link_cost.hpp"

namespace shardsim {
namespace {

TEST(UvmFaultCost, RowsOfAPageOrMoreTouchTheirOwnPages) {
  // 8 KiB rows on 4 KiB pages: 2 pages a row, 10 rows = 20 faults.
  EXPECT_DOUBLE_EQ(uvm_pages_touched(10, 1000, 8192, 4096), 20);
  // 5 KiB rows: ceil(5/4) = 2 pages a row.
  EXPECT_DOUBLE_EQ(uvm_pages_touched(10, 1000, 5120, 4096), 20);
  // No more rows than the shard has.
  EXPECT_DOUBLE_EQ(uvm_pages_touched(5000, 1000, 4096, 4096), 1000);
}

TEST(UvmFaultCost, SmallRowsShareTheirPages) {
  // 512 B rows: 8 a page, 800 rows = 100 pages; 50 distinct rows touch
  // 100 (1 - 0.99^50) = 39.499 pages.
  const double expected = 100 * (1 - std::pow(0.99, 50));
  EXPECT_NEAR(uvm_pages_touched(50, 800, 512, 4096), expected, 1e-9);
  EXPECT_NEAR(expected, 39.499, 1e-3);
  // Every row touched: every page.
  EXPECT_NEAR(uvm_pages_touched(800, 800, 512, 4096), 100 * (1 - std::pow(0.99, 800)), 1e-9);
  // A shard within one page faults once.
  EXPECT_DOUBLE_EQ(uvm_pages_touched(3, 4, 512, 4096), 1);
  EXPECT_DOUBLE_EQ(uvm_pages_touched(0, 800, 512, 4096), 0);
}

TEST(UvmFaultCost, ServiceTimeIsBatchesTimesTheBatchCost) {
  CostParams p = default_cost_params();
  EXPECT_EQ(p.uvm_fault_batch_s, 0.0);  // off by default
  EXPECT_EQ(uvm_fault_s(1e6, p), 0.0);
  EXPECT_EQ(p.uvm_fault_batch_count, 256);
  EXPECT_EQ(p.uvm_page_bytes, 4096);
  p.uvm_fault_batch_s = 40e-6;
  // 5120 faults = 20 batches of 256 at 40 us = 0.8 ms.
  EXPECT_NEAR(uvm_fault_s(5120, p), 0.8e-3, 1e-15);
  p.uvm_fault_batch_count = 1;
  EXPECT_NEAR(uvm_fault_s(3, p), 120e-6, 1e-15);
}

TEST(UvmFaultCost, BadParametersAreRejected) {
  const auto bad = [](const char* yaml) {
    try {
      (void)apply_cost_overrides(default_cost_params(),
                                 YamlValue(parse_yaml(yaml, "s.yaml"), "s.yaml", "cost"));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(bad("uvm_fault_batch_s: -1").find("uvm_fault_batch_s"), std::string::npos);
  EXPECT_NE(bad("uvm_fault_batch_count: 0.5").find("uvm_fault_batch_count"), std::string::npos);
  EXPECT_NE(bad("uvm_page_bytes: 0").find("uvm_page_bytes"), std::string::npos);
}

}  // namespace
}  // namespace shardsim
