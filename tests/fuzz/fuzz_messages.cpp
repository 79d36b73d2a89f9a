// libFuzzer target: the messages between MPI ranks (run/work_messages.hpp), which rank 0 takes
// from its peers without trusting them. The input is a message's body after its magic (protocol
// version, kind, fields); the harness frames it with the magic and the correct checksum, so that
// the fuzzer explores the field parser rather than the checksum, which refuses any damaged
// message first. Invariants: a body is either refused with a MessageError or decodes to a
// message that encodes back to exactly its bytes; a result's checkpoint is taken for a fixed run
// or refused with a MessageError; a failure rethrows as InputError, DoesNotFitError or
// std::runtime_error, nothing else.
#include <string>

#include "fuzz_support.hpp"
#include "shardsim/core/content_hash.hpp"
#include "shardsim/run/work_messages.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  fuzz::quiet_once();
  static const std::string magic = [] {
    const std::string stop = encode_message(StopMessage{});
    return stop.substr(0, stop.find('\n') + 1);  // "SHARDSIM-MSG\n"
  }();
  std::string framed = magic;
  framed.append(reinterpret_cast<const char*>(data), size);
  const std::uint64_t sum = fnv1a64(framed);
  framed.append(reinterpret_cast<const char*>(&sum), sizeof sum);
  WorkMessage message;
  try {
    message = decode_message(framed);
  } catch (const MessageError&) {
    return 0;
  }
  if (encode_message(message) != framed) {
    fuzz::invariant_failed("a decoded message does not encode back to its bytes");
  }
  if (const auto* r = std::get_if<ResultMessage>(&message)) {
    const InputHashes hashes{"fnv1a64:fuzz", "fnv1a64:fuzz", "fnv1a64:fuzz"};
    try {
      (void)reports_of(*r, hashes, "fuzz", 1);
    } catch (const MessageError&) {
    }
  }
  if (const auto* f = std::get_if<FailureMessage>(&message)) {
    try {
      rethrow_failure(*f);
    } catch (const InputError&) {
    } catch (const DoesNotFitError&) {
    } catch (const std::runtime_error&) {
    }
  }
  return 0;
}
