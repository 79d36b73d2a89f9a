// The messages of a distributed run (run/work_messages.hpp): every kind survives the trip, and a
// peer's message that is truncated, damaged, of another version or kind, forged, or for another
// run is refused, never trusted (issue 22's MPI line). Needs no MPI.
#include "shardsim/run/work_messages.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "shardsim/core/content_hash.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/io/point_checkpoint.hpp"
#include "support/fuzz_seeds.hpp"

namespace shardsim {
namespace {

const InputHashes kHashes{"fnv1a64:0000000000000001", "fnv1a64:0000000000000002",
                          "fnv1a64:0000000000000003"};

std::vector<Report> two_reports() {
  Report a;
  a.planner = "table_wise";
  a.sweep_point = "cluster.nodes=2";
  a.qps = 1234.5;
  a.input_hashes = kHashes;
  Report b = a;
  b.planner = "row_wise";
  b.iteration_times_s = {0.25, 0.5};
  return {a, b};
}

ResultMessage result_message() {
  const auto reports = two_reports();
  return ResultMessage{7, encode_point_checkpoint(kHashes, "cluster.nodes=2", reports)};
}

// A message whose checksum is right but whose bytes after the magic are `after_magic`.
std::string with_valid_checksum(const std::string& after_magic) {
  std::string bytes = "SHARDSIM-MSG\n" + after_magic;
  const std::uint64_t sum = fnv1a64(bytes);
  bytes.append(reinterpret_cast<const char*>(&sum), sizeof(sum));
  return bytes;
}

template <class T>
std::string raw(T v) {
  return std::string(reinterpret_cast<const char*>(&v), sizeof(v));
}

TEST(WorkMessages, EveryKindSurvivesTheTrip) {
  const auto hello = std::get<HelloMessage>(
      decode_message(encode_message(HelloMessage{SHARDSIM_VERSION, 4, "node-17"})));
  EXPECT_EQ(hello.shardsim_version, SHARDSIM_VERSION);
  EXPECT_EQ(hello.slots, 4u);
  EXPECT_EQ(hello.host, "node-17");

  const auto task = std::get<TaskMessage>(
      decode_message(encode_message(TaskMessage{42, "cluster.nodes=4", kHashes, true})));
  EXPECT_EQ(task.run, 42u);
  EXPECT_EQ(task.label, "cluster.nodes=4");
  EXPECT_EQ(task.hashes, kHashes);
  EXPECT_TRUE(task.record_timings);

  const ResultMessage sent = result_message();
  const auto got = std::get<ResultMessage>(decode_message(encode_message(sent)));
  EXPECT_EQ(got.run, 7u);
  EXPECT_EQ(got.checkpoint, sent.checkpoint);
  const std::vector<Report> reports = reports_of(got, kHashes, "cluster.nodes=2", 2);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[1].planner, "row_wise");
  EXPECT_EQ(reports[1].iteration_times_s, (std::vector<double>{0.25, 0.5}));

  EXPECT_TRUE(std::holds_alternative<StopMessage>(decode_message(encode_message(StopMessage{}))));
  EXPECT_TRUE(std::holds_alternative<ByeMessage>(decode_message(encode_message(ByeMessage{}))));
}

TEST(WorkMessages, EveryTruncationAndEveryFlippedByteIsRefused) {
  const std::string bytes = encode_message(result_message());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_THROW(decode_message(std::string_view(bytes).substr(0, n)), MessageError) << n;
  }
  for (std::size_t i = 0; i < bytes.size(); i += 7) {
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x20);
    EXPECT_THROW(decode_message(damaged), MessageError) << i;
  }
  EXPECT_THROW(decode_message(bytes + "x"), MessageError);
}

TEST(WorkMessages, AnotherVersionAKindUnknownAndAForgedLengthAreRefused) {
  auto why = [](const std::string& bytes) {
    try {
      decode_message(bytes);
    } catch (const MessageError& e) {
      return std::string(e.what());
    }
    return std::string("taken");
  };
  EXPECT_NE(
      why(with_valid_checksum(raw<std::uint32_t>(kWorkProtocolVersion + 1) + raw<std::uint8_t>(5)))
          .find("protocol"),
      std::string::npos);
  EXPECT_NE(
      why(with_valid_checksum(raw<std::uint32_t>(kWorkProtocolVersion) + raw<std::uint8_t>(99)))
          .find("unknown message kind 99"),
      std::string::npos);
  // A result claiming a checkpoint of 2^60 bytes: refused before anything is allocated.
  EXPECT_NE(
      why(with_valid_checksum(raw<std::uint32_t>(kWorkProtocolVersion) + raw<std::uint8_t>(3) +
                              raw<std::uint64_t>(7) + raw<std::uint64_t>(1ull << 60)))
          .find("ends inside a text"),
      std::string::npos);
  // A hello with no slots, and a flag that is neither 0 nor 1.
  EXPECT_NE(why(with_valid_checksum(raw<std::uint32_t>(kWorkProtocolVersion) +
                                    raw<std::uint8_t>(1) + raw<std::uint64_t>(0) +
                                    raw<std::uint32_t>(0) + raw<std::uint64_t>(0)))
                .find("no slots"),
            std::string::npos);
  EXPECT_EQ(
      why(with_valid_checksum(raw<std::uint32_t>(kWorkProtocolVersion) + raw<std::uint8_t>(2) +
                              raw<std::uint64_t>(1) + raw<std::uint64_t>(0) +
                              std::string(24, '\0') + raw<std::uint8_t>(2))),
      "a flag that is neither 0 nor 1");
}

TEST(WorkMessages, AResultForOtherInputsAnotherPointOrAnotherCountIsRefused) {
  const ResultMessage r = result_message();
  InputHashes other = kHashes;
  other.hardware = "fnv1a64:00000000000000ff";
  EXPECT_THROW(reports_of(r, other, "cluster.nodes=2", 2), MessageError);
  EXPECT_THROW(reports_of(r, kHashes, "cluster.nodes=4", 2), MessageError);
  EXPECT_THROW(reports_of(r, kHashes, "cluster.nodes=2", 3), MessageError);
  EXPECT_THROW(reports_of(ResultMessage{7, "not a checkpoint"}, kHashes, "cluster.nodes=2", 2),
               MessageError);
}

// A failure raised again on rank 0 is the error the run raised, message and kind.
TEST(WorkMessages, AFailureIsRaisedAgainAsTheSameError) {
  auto round_trip = [](auto thrower) {
    FailureMessage f;
    try {
      thrower();
    } catch (...) {
      f = failure_of_current_exception(3);
    }
    return std::get<FailureMessage>(decode_message(encode_message(f)));
  };
  const InputError input(SourceLocation{"s.yaml", 12, 3}, "placement.options.groups",
                         "at sweep point cluster.nodes=3: must divide 24", "try 2, 3 or 4");
  const FailureMessage fi = round_trip([&] { throw input; });
  try {
    rethrow_failure(fi);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), input.what());
    EXPECT_EQ(e.key(), "placement.options.groups");
  }
  const DoesNotFitError fit(2, 90e9, 80e9, "table user_id");
  try {
    rethrow_failure(round_trip([&] { throw fit; }));
    FAIL();
  } catch (const DoesNotFitError& e) {
    EXPECT_STREQ(e.what(), fit.what());
  }
  try {
    rethrow_failure(round_trip([] { throw std::out_of_range("vector::at"); }));
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "vector::at");
  }
}

}  // namespace
}  // namespace shardsim

namespace shardsim {
namespace {

// fuzz_messages' seeds (tests/fuzz/messages/) are messages of the current protocol, less the
// magic and the checksum the harness adds: one of each kind; the result's checkpoint is for the
// harness's fixed run. A protocol change without new seeds fails here;
// `SHARDSIM_UPDATE_FUZZ_SEEDS=1 build/tests/test_run --gtest_filter='*FuzzSeeds*'` rewrites them.
TEST(WorkMessages, FuzzSeedsFollowTheCurrentProtocol) {
  const InputHashes fuzz_hashes{"fnv1a64:fuzz", "fnv1a64:fuzz", "fnv1a64:fuzz"};
  std::vector<Report> reports{two_reports()[1]};
  reports[0].input_hashes = fuzz_hashes;
  FailureMessage failure;
  try {
    throw InputError(SourceLocation{"s.yaml", 12, 3}, "placement.options.groups", "must divide 24",
                     "try 2, 3 or 4");
  } catch (...) {
    failure = failure_of_current_exception(3);
  }
  const std::vector<std::pair<std::string, WorkMessage>> seeds = {
      {"hello", HelloMessage{SHARDSIM_VERSION, 2, "node-1"}},
      {"task", TaskMessage{5, "cluster.nodes=4", fuzz_hashes, false}},
      {"result", ResultMessage{5, encode_point_checkpoint(fuzz_hashes, "fuzz", reports)}},
      {"failure", failure},
      {"stop", StopMessage{}},
      {"bye", ByeMessage{}}};
  constexpr std::size_t kMagic = 13, kSum = 8;  // "SHARDSIM-MSG\n", FNV-1a 64
  std::vector<std::pair<std::string, std::string>> bodies;
  for (const auto& [name, message] : seeds) {
    const std::string full = encode_message(message);
    bodies.emplace_back(name, full.substr(kMagic, full.size() - kMagic - kSum));
  }
  testing::expect_fuzz_seeds(
      "messages", bodies, "a message of the current protocol",
      "SHARDSIM_UPDATE_FUZZ_SEEDS=1 build/tests/test_run --gtest_filter='*FuzzSeeds*'");
}

}  // namespace
}  // namespace shardsim
