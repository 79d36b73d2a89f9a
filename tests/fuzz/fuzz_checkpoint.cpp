// libFuzzer target: a sweep point's checkpoint (io/point_checkpoint.hpp), what `sweep --resume`
// reads back. The input is the checkpoint's reports part (the report count and the reports); the
// harness frames it as the checkpoint of a fixed point (magic, format version, the point's
// header, the input, the correct checksum) so that the fuzzer explores the report parser rather
// than the checksum, which refuses any damaged file first. Invariant: a checkpoint that decodes
// encodes back to exactly its own bytes (nothing read is dropped, changed or invented).
#include <string>

#include "fuzz_support.hpp"
#include "shardsim/core/content_hash.hpp"
#include "shardsim/io/point_checkpoint.hpp"

namespace shardsim::fuzz {
namespace {

const InputHashes kHashes{"fnv1a64:fuzz", "fnv1a64:fuzz", "fnv1a64:fuzz"};
const std::string kLabel = "fuzz";

// A checkpoint of no reports ends with its count (8 bytes) and checksum (8): the rest is the
// header every checkpoint of this point starts with.
std::string header() {
  const std::string empty = encode_point_checkpoint(kHashes, kLabel, {});
  return empty.substr(0, empty.size() - 16);
}

}  // namespace
}  // namespace shardsim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  fuzz::quiet_once();
  static const std::string head = fuzz::header();
  std::string framed = head;
  framed.append(reinterpret_cast<const char*>(data), size);
  const std::uint64_t sum = fnv1a64(framed);
  framed.append(reinterpret_cast<const char*>(&sum), sizeof sum);
  std::string why;
  const auto reports = decode_point_checkpoint(framed, fuzz::kHashes, fuzz::kLabel, why);
  if (!reports) {
    if (why.empty()) fuzz::invariant_failed("a refusal without a reason");
    return 0;
  }
  if (encode_point_checkpoint(fuzz::kHashes, fuzz::kLabel, *reports) != framed) {
    fuzz::invariant_failed("a decoded checkpoint does not encode back to its bytes");
  }
  return 0;
}
