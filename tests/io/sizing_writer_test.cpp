// The sizing writers (io/sizing_writer.hpp) on a hand-made result: the answer line names the
// bound, what decided the node count, the runner-up and the headroom; JSON and CSV carry the
// same figures (docs/report.md, "Sizing").
#include "shardsim/io/sizing_writer.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>

namespace shardsim {
namespace {

namespace sizing_writer_test {

PlannerOutcome unfit(const std::string& planner, double memory_bytes) {
  PlannerOutcome o;
  o.planner = planner;
  o.memory_max_bytes = memory_bytes;
  o.memory_capacity_bytes = 80e9;
  return o;
}

PlannerOutcome fit(const std::string& planner, double qps, bool meets) {
  PlannerOutcome o;
  o.planner = planner;
  o.fits = true;
  o.qps = qps;
  o.iteration_s = 65536 / qps;
  o.memory_max_bytes = 60e9;
  o.memory_capacity_bytes = 80e9;
  o.bottleneck_kind = "alltoall";
  o.bottleneck = "AlltoAll fwd+bwd 66%";
  o.bottleneck_share = 0.66;
  o.meets = meets;
  return o;
}

SizingProbe probe(std::size_t preset, int nodes, std::vector<PlannerOutcome> planners) {
  SizingProbe p;
  p.preset = preset;
  p.nodes = nodes;
  p.gpus = nodes * 8;
  p.batch_per_gpu = static_cast<std::uint32_t>(65536 / p.gpus);
  p.planners = std::move(planners);
  for (const PlannerOutcome& o : p.planners) p.passes = p.passes || o.meets;
  return p;
}

// dgx-a100: nothing fits at 1 node (row_wise needs the least, 85 GB of 80); at 2 nodes both
// planners reach 1.1M QPS (1M + 10%). dgx-h100 at 2 nodes: table_wise 1.3M. The answer is
// dgx-a100's table_wise (16 GPUs, 1.5M QPS); the runner-up dgx-h100's table_wise (16 GPUs,
// 1.3M QPS beats dgx-a100's row_wise at 1.2M).
ScenarioSizing sizing() {
  ScenarioSizing s;
  s.scenario = "hand";
  s.source = "hand.yaml";
  s.presets = {"dgx-a100", "dgx-h100"};
  s.global_batch = 65536;
  s.target.min_qps = 1e6;
  s.margin_pct = 10;
  s.sized = with_margin(s.target, s.margin_pct);
  s.max_nodes = 4;
  SizingResult& r = s.result;
  r.probes.push_back(probe(0, 1, {unfit("table_wise", 90e9), unfit("row_wise", 85e9)}));
  r.probes.push_back(probe(0, 2, {fit("table_wise", 1.5e6, true), fit("row_wise", 1.2e6, true)}));
  r.probes.push_back(probe(1, 2, {fit("table_wise", 1.3e6, true), unfit("row_wise", 81e9)}));
  r.skipped = {SkippedNodes{{3}, "their GPUs (8 per node) do not divide the global batch 65536"},
               SkippedNodes{}};
  r.answer = SizingAnswer{1, 0};
  r.bound = SizingBound{SizingDecider::memory, 0, 1};
  r.runner_up = SizingAnswer{2, 0};
  return s;
}

TEST(SizingWriter, MarginScalesTheTarget) {
  const SizingTarget sized = with_margin(SizingTarget{1e6, 0.010}, 25);
  EXPECT_DOUBLE_EQ(*sized.min_qps, 1.25e6);
  EXPECT_DOUBLE_EQ(*sized.max_iteration_s, 0.008);  // 10 ms / 1.25
  EXPECT_FALSE(with_margin(SizingTarget{}, 25).min_qps);
}

TEST(SizingWriter, AnswerLineNamesBoundDeciderRunnerUpAndHeadroom) {
  const ScenarioSizing s = sizing();
  EXPECT_EQ(sizing_answer_line(s),
            "answer: 2 x dgx-a100 (16 GPUs) with table_wise: 1,500,000 QPS, iteration 43.691 ms, "
            "peak memory 60.00 GB; headroom +50.0% over the target 1,000,000 QPS (sized with a "
            "10% margin); bound: AlltoAll fwd+bwd 66%; memory decided: at 1 node the largest GPU "
            "needs 85.00 GB of 80.00 GB (row_wise); runner-up: 2 x dgx-h100 (16 GPUs) with "
            "table_wise, 1,300,000 QPS");
  std::ostringstream text;
  write_sizing_text(text, s);
  const std::string t = text.str();
  EXPECT_EQ(t.rfind("size: hand (hand.yaml): target fits in memory, QPS >= 1,100,000 (1,000,000 "
                    "+ 10% margin); global batch 65,536; up to 4 nodes; galloping + bisection\n",
                    0),
            0u)
      << t;
  EXPECT_NE(t.find("skipped dgx-a100 nodes 3: their GPUs"), std::string::npos) << t;
  EXPECT_NE(t.find("\n" + sizing_answer_line(s) + "\n"), std::string::npos) << t;
}

TEST(SizingWriter, DeciderByQpsIterationTimeAndSmallest) {
  ScenarioSizing s = sizing();
  s.result.probes[0].planners[1] = fit("row_wise", 0.9e6, false);
  s.result.bound = SizingBound{SizingDecider::qps, 0, 1};
  EXPECT_NE(sizing_answer_line(s).find("; QPS decided: at 1 node, 900,000 QPS < 1,100,000 "
                                       "(row_wise);"),
            std::string::npos)
      << sizing_answer_line(s);
  s.target = SizingTarget{std::nullopt, 0.050};
  s.margin_pct = 0;
  s.sized = s.target;
  s.result.bound = SizingBound{SizingDecider::iteration_time, 0, 1};
  // 65536 / 0.9M = 72.818 ms; the answer's 43.691 ms is 12.6% under 50 ms.
  const std::string line = sizing_answer_line(s);
  EXPECT_NE(line.find("iteration time decided: at 1 node, 72.818 ms > 50.000 ms (row_wise)"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("headroom 12.6% under the 50.000 ms iteration limit; "), std::string::npos)
      << line;
  s.result.bound = SizingBound{};
  s.result.runner_up.reset();
  EXPECT_NE(sizing_answer_line(s).find(
                "decided: 2 nodes is the fewest of dgx-a100 that can be probed; runner-up: none"),
            std::string::npos)
      << sizing_answer_line(s);
}

TEST(SizingWriter, JsonCarriesBoundRunnerUpAndHeadroom) {
  std::ostringstream out;
  write_sizing_json(out, sizing());
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_DOUBLE_EQ(j["target"]["qps"].get<double>(), 1e6);
  EXPECT_DOUBLE_EQ(j["target"]["margin_pct"].get<double>(), 10);
  EXPECT_DOUBLE_EQ(j["target"]["sized_qps"].get<double>(), 1.1e6);
  EXPECT_TRUE(j["target"]["sized_max_iteration_time_s"].is_null());
  EXPECT_EQ(j["answer"]["preset"], "dgx-a100");
  EXPECT_EQ(j["answer"]["num_gpus"], 16);
  EXPECT_EQ(j["bound"]["bottleneck"]["kind"], "alltoall");
  EXPECT_DOUBLE_EQ(j["bound"]["bottleneck"]["share"].get<double>(), 0.66);
  EXPECT_EQ(j["bound"]["decided_by"], "memory");
  EXPECT_EQ(j["bound"]["below"]["num_nodes"], 1);
  EXPECT_EQ(j["bound"]["below"]["planner"], "row_wise");
  EXPECT_DOUBLE_EQ(j["bound"]["below"]["memory_max_bytes"].get<double>(), 85e9);
  EXPECT_DOUBLE_EQ(j["bound"]["below"]["memory_capacity_bytes"].get<double>(), 80e9);
  EXPECT_EQ(j["runner_up"]["preset"], "dgx-h100");
  EXPECT_DOUBLE_EQ(j["runner_up"]["qps"].get<double>(), 1.3e6);
  EXPECT_NEAR(j["headroom"]["qps_pct"].get<double>(), 50.0, 1e-9);
  EXPECT_TRUE(j["headroom"]["iteration_time_pct"].is_null());
  EXPECT_EQ(j["probes"].size(), 6u);
  EXPECT_EQ(j["skipped"][0]["num_nodes"][0], 3);
}

TEST(SizingWriter, NoAnswerIsNullEverywhere) {
  ScenarioSizing s = sizing();
  for (SizingProbe& p : s.result.probes) {
    for (PlannerOutcome& o : p.planners) o.meets = false;
  }
  s.result.answer.reset();
  s.result.bound.reset();
  s.result.runner_up.reset();
  EXPECT_EQ(sizing_answer_line(s), "answer: none: no node count up to 4 reaches the target");
  std::ostringstream out;
  write_sizing_json(out, s);
  const auto j = nlohmann::json::parse(out.str());
  for (const char* key : {"answer", "bound", "runner_up", "headroom"}) {
    EXPECT_TRUE(j[key].is_null()) << key;
  }
  EXPECT_FALSE(sizing_headroom(s).qps_pct);
}

TEST(SizingWriter, CsvRowPerProbeAndPlanner) {
  std::ostringstream out;
  write_sizing_csv(out, sizing());
  std::istringstream in(out.str());
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 7u);  // header + 3 probes x 2 planners
  EXPECT_EQ(lines[0].rfind("preset,num_nodes,num_gpus,batch_per_gpu,planner,qps,", 0), 0u);
  EXPECT_EQ(lines[1], "dgx-a100,1,8,8192,table_wise,,,90000000000,false,false,,false");
  EXPECT_EQ(lines[3].rfind("dgx-a100,2,16,4096,table_wise,1500000,", 0), 0u) << lines[3];
  EXPECT_EQ(lines[3].substr(lines[3].size() - 16), ",true,true,,true") << lines[3];
}

}  // namespace sizing_writer_test

}  // namespace
}  // namespace shardsim
