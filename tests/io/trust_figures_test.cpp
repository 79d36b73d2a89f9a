// The validation figures the brief quotes (io/trust_figures.hpp).
#include "shardsim/io/trust_figures.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "io/report_writer_test_fixtures.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/io/report_writer.hpp"

namespace shardsim {
namespace {

const std::string kFigures =
    "kind: whole training iterations\npoints: 26\nmedian_abs_error: 0.152\nworst_ratio: 1.87\n"
    "doc: docs/validation/training.md\n";

TEST(TrustFigures, ReadsTheFiguresFile) {
  const TrustFigures t = parse_trust_figures(kFigures, "t.yaml");
  EXPECT_EQ(t.points, 26);
  EXPECT_DOUBLE_EQ(t.median_abs_error, 0.152);
  EXPECT_DOUBLE_EQ(t.worst_ratio, 1.87);
  EXPECT_EQ(trust_text(t),
            "whole training iterations: median error 15.2% over 26 published points, worst "
            "1.87x (docs/validation/training.md)");
}

TEST(TrustFigures, TheBuildHoldsItsOwn) {
  const TrustFigures& t = builtin_trust_figures();
  EXPECT_GT(t.points, 0);
  EXPECT_GE(t.worst_ratio, 1);
}

TEST(TrustFigures, BadFiguresAreInputErrors) {
  EXPECT_THROW(parse_trust_figures("kind: x\npoints: 0\n", "t.yaml"), InputError);
  EXPECT_THROW(parse_trust_figures(kFigures + "extra: 1\n", "t.yaml"), InputError);
  std::string low = kFigures;
  low.replace(low.find("1.87"), 4, "0.50");
  EXPECT_THROW(parse_trust_figures(low, "t.yaml"), InputError);
}

TEST(TrustFigures, TheBriefFollowsAChangedFigure) {
  const std::vector<Report> reports = {test::make_report()};
  std::string changed = kFigures;
  changed.replace(changed.find("0.152"), 5, "0.301");
  std::ostringstream a, b;
  write_text(a, reports, BriefOptions{std::nullopt, parse_trust_figures(kFigures, "t.yaml")});
  write_text(b, reports, BriefOptions{std::nullopt, parse_trust_figures(changed, "t.yaml")});
  EXPECT_NE(a.str().find("trust: whole training iterations: median error 15.2% over 26"),
            std::string::npos)
      << a.str();
  EXPECT_NE(b.str().find("median error 30.1% over 26"), std::string::npos) << b.str();
  // The build's own figures by default.
  std::ostringstream c;
  write_text(c, reports);
  EXPECT_NE(c.str().find("trust: " + trust_text(builtin_trust_figures())), std::string::npos);
}

}  // namespace
}  // namespace shardsim
