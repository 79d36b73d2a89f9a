// Inputs small as files and huge once expanded (issue 57, item 1), end to end: refused with exit
// 2 before they cost memory. The peak resident memory of the refused run is measured
// (getrusage of the children, this test's only one) and must stay far below what expanding them
// would take.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <string>

#include "io/scenario_test_helpers.hpp"
#include "support/cli_run.hpp"

namespace shardsim::memory_bombs_cli_test {
namespace {

using testing::run;

// The largest resident set of the children this process has waited for, in bytes.
double children_peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_maxrss) * 1024;  // Linux: kilobytes
}

TEST(MemoryBombs, AnAnchoredLongStringAliasedThousandsOfTimesIsRefusedAtOnce) {
  // The repro: a 100 KB name anchored once and aliased 3,000 times as a sweep axis
  // (300 MB of text once expanded, from a 110 KB file).
  const testing::Workspace ws("shardsim_bombs");
  std::string text = test::tiny_with(1, "name: &s \"" + std::string(100000, 'x') + "\"");
  text += "sweep:\n  name: [";
  for (int i = 0; i < 3000; ++i) text += i ? ",*s" : "*s";
  text += "]\n";
  const std::string file = ws.write("sb.yaml", text);
  const auto r = run("validate " + file + " --max-memory 100M");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("aliases expand the document's text from"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sb.yaml:"), std::string::npos) << r.err;
  // At most twice --max-memory, or 200 MB (issue 57's bound).
  EXPECT_LT(children_peak_rss_bytes(), 200e6);
}

}  // namespace
}  // namespace shardsim::memory_bombs_cli_test
