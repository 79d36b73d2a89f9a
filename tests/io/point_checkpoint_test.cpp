#include "shardsim/io/point_checkpoint.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>

#include "report_writer_test_fixtures.hpp"
#include "shardsim/core/content_hash.hpp"
#include "shardsim/io/report_writer.hpp"
#include "support/fuzz_seeds.hpp"

namespace shardsim {
namespace {

namespace checkpoint_test {

// Every writer's rendering of `reports`: what a resumed sweep must reproduce byte for byte.
std::string rendered(std::span<const Report> reports) {
  std::ostringstream out;
  write_json(out, reports);
  write_csv_summary(out, reports);
  write_per_gpu_csv(out, reports);
  write_text(out, reports);
  return out.str();
}

// With a NaN where the writers print null.
Report full_report() {
  Report r = test::make_full_report();
  r.scaling_factor = std::nan("");
  return r;
}

const InputHashes kHashes{"fnv1a64:aaaa", "fnv1a64:bbbb", "fnv1a64:cccc"};

}  // namespace checkpoint_test

using checkpoint_test::full_report;
using checkpoint_test::kHashes;
using checkpoint_test::rendered;

TEST(PointCheckpoint, ReportsReadBackToTheSameBytesInEveryWriter) {
  const std::vector<Report> reports = {full_report(), test::make_unfit_report(),
                                       test::make_unplaced_report()};
  const std::string bytes = encode_point_checkpoint(kHashes, "cluster.nodes=2", reports);
  std::string why;
  const auto back = decode_point_checkpoint(bytes, kHashes, "cluster.nodes=2", why);
  ASSERT_TRUE(back) << why;
  ASSERT_EQ(back->size(), 3u);
  EXPECT_EQ(rendered(*back), rendered(reports));
  // Bit for bit, NaN included, and the parts the writers do not print.
  EXPECT_EQ(std::memcmp(&(*back)[0].qps, &reports[0].qps, sizeof(double)), 0);
  EXPECT_TRUE(std::isnan((*back)[0].scaling_factor));
  EXPECT_EQ((*back)[0].input_hashes, reports[0].input_hashes);
  EXPECT_EQ((*back)[0].plan_stats->gpus[0].shards_by_kind,
            reports[0].plan_stats->gpus[0].shards_by_kind);
  EXPECT_FALSE((*back)[2].plan_stats.has_value());
  ASSERT_TRUE((*back)[0].pruning.has_value());
  EXPECT_EQ((*back)[0].pruning->pruned_rows, 1350000u);
  EXPECT_FALSE((*back)[1].pruning.has_value());
  EXPECT_EQ((*back)[0].bottom_mlp_gpu, 1);
  EXPECT_EQ((*back)[1].bottom_mlp_gpu, -1);
  // Encoding is deterministic: the same reports give the same file.
  EXPECT_EQ(encode_point_checkpoint(kHashes, "cluster.nodes=2", *back), bytes);
}

TEST(PointCheckpoint, EveryTruncationIsRefused) {
  const std::vector<Report> reports = {test::make_report(2)};
  const std::string bytes = encode_point_checkpoint(kHashes, "p", reports);
  for (std::size_t n = 0; n < bytes.size(); n += (n < 256 ? 1 : 61)) {
    std::string why;
    EXPECT_FALSE(decode_point_checkpoint(bytes.substr(0, n), kHashes, "p", why)) << n;
    EXPECT_FALSE(why.empty());
  }
}

TEST(PointCheckpoint, AFlippedByteFailsTheChecksum) {
  const std::string bytes =
      encode_point_checkpoint(kHashes, "p", std::vector{test::make_report(2)});
  for (std::size_t at : {std::size_t{20}, bytes.size() / 2, bytes.size() - 1}) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x10);
    std::string why;
    EXPECT_FALSE(decode_point_checkpoint(damaged, kHashes, "p", why)) << at;
    EXPECT_NE(why.find("checksum"), std::string::npos) << why;
  }
}

TEST(PointCheckpoint, OtherInputsOrAnotherPointAreNotTaken) {
  const std::string bytes =
      encode_point_checkpoint(kHashes, "p", std::vector{test::make_report(2)});
  InputHashes other = kHashes;
  other.cost = "fnv1a64:dddd";
  std::string why;
  EXPECT_FALSE(decode_point_checkpoint(bytes, other, "p", why));
  EXPECT_EQ(why, "made from other inputs");
  EXPECT_FALSE(decode_point_checkpoint(bytes, kHashes, "q", why));
  EXPECT_FALSE(decode_point_checkpoint("not a checkpoint at all, just text", kHashes, "p", why));
  EXPECT_EQ(why, "not a shardsim point checkpoint");
  // The file name follows the inputs and the label.
  EXPECT_NE(point_checkpoint_name(kHashes, "p"), point_checkpoint_name(other, "p"));
  EXPECT_NE(point_checkpoint_name(kHashes, "p"), point_checkpoint_name(kHashes, "q"));
  EXPECT_EQ(point_checkpoint_name(kHashes, "p"), point_checkpoint_name(kHashes, "p"));
}

TEST(PointCheckpoint, AHugeCountWithAValidChecksumIsRefusedWithoutAllocating) {
  // A forged file: a valid header, then a report count of 2^60, then a correct checksum. The
  // reader must refuse the count against the bytes left, not try to allocate it.
  std::string bytes = encode_point_checkpoint(kHashes, "p", std::vector<Report>{});
  bytes.resize(bytes.size() - 16);  // drop the zero count and the checksum
  const std::uint64_t count = 1ull << 60;
  bytes.append(reinterpret_cast<const char*>(&count), sizeof count);
  const std::uint64_t h = fnv1a64(bytes);  // the file format's checksum
  bytes.append(reinterpret_cast<const char*>(&h), sizeof h);
  std::string why;
  EXPECT_FALSE(decode_point_checkpoint(bytes, kHashes, "p", why));
  EXPECT_NE(why.find("ends inside"), std::string::npos) << why;
}

// The seeds of the fuzz target fuzz_checkpoint (tests/fuzz/checkpoint/): a checkpoint's part
// after its header and before its checksum, for the harness's fixed point. They must follow the
// current format (a stale seed only reaches the refusal path); SHARDSIM_UPDATE_FUZZ_SEEDS=1
// rewrites them.
TEST(PointCheckpoint, FuzzSeedsFollowTheCurrentFormat) {
  const InputHashes fuzz_hashes{"fnv1a64:fuzz", "fnv1a64:fuzz", "fnv1a64:fuzz"};
  const std::string empty = encode_point_checkpoint(fuzz_hashes, "fuzz", {});
  const std::size_t head = empty.size() - 16;  // count (8) and checksum (8) follow the header
  const auto seed = [&](const std::vector<Report>& reports) {
    const std::string full = encode_point_checkpoint(fuzz_hashes, "fuzz", reports);
    return full.substr(head, full.size() - head - 8);
  };
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"one_report", seed({test::make_report(2)})},
      {"three_reports", seed({checkpoint_test::full_report(), test::make_unfit_report(),
                              test::make_unplaced_report()})}};
  testing::expect_fuzz_seeds(
      "checkpoint", seeds, "a checkpoint of the current format",
      "SHARDSIM_UPDATE_FUZZ_SEEDS=1 build/tests/test_io --gtest_filter='*FuzzSeeds*'");
}

}  // namespace
}  // namespace shardsim
