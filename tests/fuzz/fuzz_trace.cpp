// libFuzzer target: trace files. The first input byte picks the reader (bit 0: CSV, else
// binary) and, for binary input, whether the header checksum is recomputed first (bit 1), so
// the fuzzer gets past the header into the table directory and the data. Every table is
// streamed (which checks lengths, row ids and checksums); a valid binary file must be written
// back byte for byte; a valid trace is replayed for two iterations on 3 GPUs.
#include <cstring>
#include <fstream>
#include <vector>

#include "fuzz_support.hpp"
#include "shardsim/trace/recorded_trace_source.hpp"
#include "shardsim/trace/trace_file.hpp"
#include "shardsim/trace/xxhash64.hpp"

namespace shardsim::fuzz {
namespace {

void write_file(const std::string& path, const char* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data, static_cast<std::streamsize>(size));
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void replay(std::unique_ptr<RecordedTrace> trace, const std::string& path) {
  if (trace->num_tables() > 16) return;
  DlrmModel model;
  for (std::size_t t = 0; t < trace->num_tables(); ++t) {
    EmbeddingTable table;
    table.name = trace->table(t).name.empty() ? "t" + std::to_string(t) : trace->table(t).name;
    table.rows = trace->table(t).rows;
    table.dim = 16;
    model.tables.push_back(table);
  }
  const RecordedTraceSource source(std::move(trace), model, path);
  for (std::size_t t = 0; t < model.tables.size(); ++t) {
    const std::uint64_t rows = model.tables[t].rows;
    std::vector<RowBlock> blocks{RowBlock{{0, rows}, RowSpace::row_id}};
    if (rows > 1) {
      blocks = {RowBlock{{0, rows / 2}, RowSpace::row_id},
                RowBlock{{rows / 2, rows}, RowSpace::row_id}};
    }
    for (int it = 0; it < 2; ++it) (void)source.draw(t, it, 3, 5, blocks);
    (void)source.profile(t).mass(RowRange{0, rows}, RowSpace::rank);
  }
}

}  // namespace
}  // namespace shardsim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  fuzz::quiet_once();
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  std::vector<char> bytes(reinterpret_cast<const char*>(data) + 1,
                          reinterpret_cast<const char*>(data) + size);
  const bool csv = (mode & 1) != 0;
  if (!csv && (mode & 2) != 0 && bytes.size() >= kTraceHeaderBytes) {
    const std::uint64_t sum = xxh64(std::as_bytes(std::span<const char>(bytes.data(), 40)));
    std::memcpy(bytes.data() + 40, &sum, 8);
  }
  static const fuzz::ScratchFile in_csv("shardsim_fuzz_trace", ".csv");
  static const fuzz::ScratchFile in_bin("shardsim_fuzz_trace", ".bin");
  static const fuzz::ScratchFile out_bin("shardsim_fuzz_trace", ".out.bin");
  const std::string& path = csv ? in_csv.path : in_bin.path;
  fuzz::write_file(path, bytes.data(), bytes.size());
  fuzz::expect_clean([&] {
    auto trace = csv ? read_trace_csv(path, "fuzz") : open_recorded_trace(path, "fuzz");
    for (std::size_t t = 0; t < trace->num_tables(); ++t) {
      trace->stream_table(
          t, [](std::span<const std::uint32_t>) {}, [](std::span<const std::uint64_t>) {});
    }
    write_trace_file(out_bin.path, *trace);
    if (!csv && fuzz::read_file(out_bin.path) != std::string(bytes.begin(), bytes.end()))
      fuzz::invariant_failed("a valid trace file was not written back byte for byte");
    fuzz::replay(std::move(trace), path);
  });
  return 0;
}
