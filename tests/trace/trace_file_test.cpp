#include "shardsim/trace/trace_file.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "shardsim/core/error.hpp"
#include "shardsim/trace/xxhash64.hpp"
#include "support/scratch.hpp"

namespace shardsim::trace_file_test {
namespace {

namespace fs = std::filesystem;

// A scratch folder per test process (ctest runs tests in parallel).
fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("shardsim_trace_file_test_" + std::to_string(::getpid()));
  if (fs::create_directories(dir)) testing::ScratchPaths::instance().add(dir);
  return dir / name;
}

std::vector<std::byte> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(c.size());
  std::memcpy(out.data(), c.data(), c.size());
  return out;
}

void write_bytes(const fs::path& p, const std::vector<std::byte>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

std::uint64_t get64(const std::vector<std::byte>& b, std::size_t at) {
  std::uint64_t v;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}
void put64(std::vector<std::byte>& b, std::size_t at, std::uint64_t v) {
  std::memcpy(b.data() + at, &v, 8);
}
void put32(std::vector<std::byte>& b, std::size_t at, std::uint32_t v) {
  std::memcpy(b.data() + at, &v, 4);
}

struct Table {
  std::string name;
  std::uint64_t rows;
  std::vector<std::uint32_t> lengths;
  std::vector<std::uint64_t> ids;
};

// Three tables of 5 samples (odd, so the lengths need padding): one empty, one with a long name.
std::vector<Table> sample_tables() {
  return {{"user_id", 1000, {2, 0, 3, 1, 1}, {5, 7, 999, 0, 5, 42, 7}},
          {"empty", 10, {0, 0, 0, 0, 0}, {}},
          {std::string(100, 'x'),
           1ULL << 40,
           {1, 1, 1, 1, 4},
           {1ULL << 39, 3, (1ULL << 40) - 1, 0, 1, 2, 3, 4}}};
}

void write_tables(const fs::path& p, const std::vector<Table>& tables, int jobs = 1) {
  std::vector<TraceTableInfo> infos;
  for (const Table& t : tables) infos.push_back({t.name, t.rows, t.ids.size()});
  write_trace_file(p.string(), tables.front().lengths.size(), infos, jobs,
                   [&](std::size_t t, TraceSectionWriter& w) {
                     // In two pieces each, to exercise the streaming writer.
                     const auto& l = tables[t].lengths;
                     const auto& r = tables[t].ids;
                     w.write_lengths(std::span(l).first(l.size() / 2));
                     w.write_lengths(std::span(l).subspan(l.size() / 2));
                     w.write_rows(std::span(r).first(r.size() / 2));
                     w.write_rows(std::span(r).subspan(r.size() / 2));
                   });
}

struct Read {
  std::vector<std::uint32_t> lengths;
  std::vector<std::uint64_t> ids;
};
Read stream(const RecordedTrace& trace, std::size_t t) {
  Read r;
  trace.stream_table(
      t,
      [&](std::span<const std::uint32_t> l) {
        r.lengths.insert(r.lengths.end(), l.begin(), l.end());
      },
      [&](std::span<const std::uint64_t> x) { r.ids.insert(r.ids.end(), x.begin(), x.end()); });
  return r;
}

// Section offsets of a file written from sample_tables(): header 48; table 0: 24 + 8 (name) +
// 24 (5 lengths + 4 padding) + 7·8 + 8 = 120 bytes; table 1: 24 + 8 + 24 + 0 + 8 = 64.
constexpr std::size_t kTable0 = 48;
constexpr std::size_t kTable1 = 48 + 120;
constexpr std::size_t kTable2 = 48 + 120 + 64;

// Recomputes table 0's checksum after a deliberate edit, so only the edit's own check fires.
void reseal_table0(std::vector<std::byte>& b) {
  const std::size_t end = kTable1 - 8;
  put64(b, end, xxh64(std::span<const std::byte>(b.data() + kTable0, end - kTable0)));
}
void reseal_header(std::vector<std::byte>& b) {
  put64(b, 40, xxh64(std::span<const std::byte>(b.data(), 40)));
}

// Opens and streams every table; returns the InputError's message ("" when it all reads).
std::string read_error(const fs::path& p) {
  try {
    const auto trace = open_recorded_trace(p.string(), "workload.trace.file");
    for (std::size_t t = 0; t < trace->num_tables(); ++t) stream(*trace, t);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Xxh64, MatchesTheReferenceVectors) {
  const auto h = [](std::string_view s) {
    return xxh64(std::as_bytes(std::span(s.data(), s.size())));
  };
  EXPECT_EQ(h(""), 0xEF46DB3751D8E999ULL);
  EXPECT_EQ(h("a"), 0xD24EC4F1A98C6E5BULL);
  EXPECT_EQ(h("abc"), 0x44BC2CF5AD770999ULL);
  EXPECT_EQ(h("asdf"), 0x415872F599CEA71EULL);
  EXPECT_EQ(h("Nobody inspects the spammish repetition"), 0xFBCEA83C8A378BF1ULL);
  // Incremental updates in odd pieces give the one-shot value.
  const std::string text(1000, 'q');
  Xxh64 inc;
  for (std::size_t i = 0; i < text.size(); i += 37)
    inc.update(text.data() + i, std::min<std::size_t>(37, text.size() - i));
  EXPECT_EQ(inc.digest(), h(text));
}

TEST(TraceFile, RoundTripThroughStreamingAndRandomAccess) {
  const auto tables = sample_tables();
  const fs::path p = scratch("round_trip.bin");
  write_tables(p, tables);
  EXPECT_EQ(fs::file_size(p), kTable2 + 24 + 104 + 24 + 8 * 8 + 8);
  EXPECT_TRUE(is_trace_file(p.string()));
  const auto trace = open_recorded_trace(p.string());
  ASSERT_EQ(trace->num_tables(), 3u);
  EXPECT_EQ(trace->num_samples(), 5u);
  for (std::size_t t = 0; t < 3; ++t) {
    EXPECT_EQ(trace->table(t).name, tables[t].name);
    EXPECT_EQ(trace->table(t).rows, tables[t].rows);
    EXPECT_EQ(trace->table(t).lookups, tables[t].ids.size());
    const Read r = stream(*trace, t);
    EXPECT_EQ(r.lengths, tables[t].lengths);
    EXPECT_EQ(r.ids, tables[t].ids);
  }
  std::vector<std::uint32_t> l(3);
  trace->read_lengths(0, 2, l);
  EXPECT_EQ(l, (std::vector<std::uint32_t>{3, 1, 1}));
  std::vector<std::uint64_t> ids(2);
  trace->read_rows(2, 1, ids);
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{3, (1ULL << 40) - 1}));
  EXPECT_THROW(trace->read_rows(0, 6, ids), std::out_of_range);
  EXPECT_THROW(trace->read_lengths(0, 4, l), std::out_of_range);
}

TEST(TraceFile, BytesDoNotDependOnTheWriterThreads) {
  const auto tables = sample_tables();
  write_tables(scratch("jobs1.bin"), tables, 1);
  write_tables(scratch("jobs3.bin"), tables, 3);
  EXPECT_EQ(read_bytes(scratch("jobs1.bin")), read_bytes(scratch("jobs3.bin")));
}

TEST(TraceFile, TheLayoutIsTheDocumentedOne) {
  // docs/traces.md §9, byte by byte, for the first table.
  write_tables(scratch("layout.bin"), sample_tables());
  const auto b = read_bytes(scratch("layout.bin"));
  EXPECT_EQ(std::memcmp(b.data(), "SHRDTRC\0", 8), 0);
  EXPECT_EQ(std::to_integer<int>(b[8]), 1);      // version 1, little-endian
  EXPECT_EQ(std::to_integer<int>(b[12]), 0x04);  // byte-order mark 0x01020304 stored LE
  EXPECT_EQ(std::to_integer<int>(b[15]), 0x01);
  EXPECT_EQ(get64(b, 16), 3u);  // tables
  EXPECT_EQ(get64(b, 24), 5u);  // samples
  EXPECT_EQ(get64(b, 32), 0u);  // reserved
  EXPECT_EQ(get64(b, 40), xxh64(std::span<const std::byte>(b.data(), 40)));
  EXPECT_EQ(get64(b, kTable0), 1000u);                  // rows
  EXPECT_EQ(get64(b, kTable0 + 8), 7u);                 // lookups
  EXPECT_EQ(std::to_integer<int>(b[kTable0 + 16]), 7);  // name bytes ("user_id")
  EXPECT_EQ(std::memcmp(b.data() + kTable0 + 24, "user_id\0", 8), 0);
  std::uint32_t len2;
  std::memcpy(&len2, b.data() + kTable0 + 32 + 8, 4);
  EXPECT_EQ(len2, 3u);                    // third length
  EXPECT_EQ(get64(b, kTable0 + 56), 5u);  // first row id, after 5 lengths + 4 bytes of padding
  EXPECT_EQ(get64(b, kTable1 - 8),
            xxh64(std::span<const std::byte>(b.data() + kTable0, kTable1 - 8 - kTable0)));
}

TEST(TraceFile, BadFilesAreInputErrorsThatSayWhy) {
  write_tables(scratch("good.bin"), sample_tables());
  const auto good = read_bytes(scratch("good.bin"));
  ASSERT_EQ(read_error(scratch("good.bin")), "");
  const fs::path bad = scratch("bad.bin");
  const auto expect_error = [&](std::vector<std::byte> bytes, const std::string& what) {
    write_bytes(bad, bytes);
    const std::string msg = read_error(bad);
    EXPECT_NE(msg.find(what), std::string::npos) << "wanted '" << what << "', got: " << msg;
    EXPECT_NE(msg.find("bad.bin"), std::string::npos) << msg;
  };

  EXPECT_NE(read_error(scratch("missing.bin")).find("cannot open"), std::string::npos);
  expect_error({}, "fewer than the 48-byte header");
  expect_error(std::vector<std::byte>(good.begin(), good.begin() + 30), "fewer than the 48-byte");
  auto b = good;
  b[0] = std::byte{'X'};
  expect_error(b, "not a shardsim trace file");
  b = good;
  put32(b, 8, 2);
  reseal_header(b);
  expect_error(b, "format version 2");
  b = good;
  put32(b, 12, 0x04030201);
  reseal_header(b);
  expect_error(b, "big-endian");
  b = good;
  b[20] = std::byte{1};  // tables, without resealing
  expect_error(b, "header's checksum");
  b = good;
  put64(b, 16, 0);
  reseal_header(b);
  expect_error(b, "0 tables");
  // Lying counts: 10^12 tables, samples or lookups in a file of a few hundred bytes.
  b = good;
  put64(b, 16, 1'000'000'000'000ULL);
  reseal_header(b);
  expect_error(b, "tables");
  b = good;
  put64(b, 24, 1'000'000'000'000ULL);
  reseal_header(b);
  expect_error(b, "1000000000000 samples");
  b = good;
  put64(b, kTable0 + 8, 1'000'000'000'000ULL);
  expect_error(b, "claims 1000000000000 lookups");
  b = good;
  put64(b, kTable1, 0);  // rows of table 1
  expect_error(b, "0 rows");
  b = good;
  put32(b, kTable0 + 16, 100000);  // name bytes
  expect_error(b, "100000 bytes long");
  // Truncated: cut inside the last table, and right after the header.
  expect_error(std::vector<std::byte>(good.begin(), good.end() - 20), "claims");
  expect_error(std::vector<std::byte>(good.begin(), good.begin() + 60),
               "the 60 bytes the file has");
  expect_error(std::vector<std::byte>(good.begin(), good.begin() + kTable2 + 10),
               "ends before table 2");
  // Trailing garbage.
  b = good;
  b.resize(b.size() + 8);
  expect_error(b, "8 unexpected bytes after the last table");
  // Data errors found while streaming: a flipped row id byte (checksum), a row id past the
  // table (resealed so the range check is what fires), lengths that do not sum to the lookups,
  // non-zero padding.
  b = good;
  b[kTable0 + 56] ^= std::byte{0x10};
  expect_error(b, "checksum does not match");
  b = good;
  put64(b, kTable0 + 56, 1000);
  reseal_table0(b);
  expect_error(b, "row id 1000 in a table of 1000 rows");
  b = good;
  put32(b, kTable0 + 32, 3);  // first length 2 -> 3
  reseal_table0(b);
  expect_error(b, "sum to 8, but its header says 7");
  b = good;
  b[kTable0 + 32 + 20] = std::byte{1};  // the padding after 5 lengths
  reseal_table0(b);
  expect_error(b, "non-zero padding");
  // The key is named.
  b = good;
  b[0] = std::byte{'X'};
  write_bytes(bad, b);
  EXPECT_NE(read_error(bad).find("workload.trace.file"), std::string::npos);
}

TEST(TraceCsv, ReadsHandMadeTraces) {
  const fs::path p = scratch("small.csv");
  {
    std::ofstream out(p);
    out << "# a hand-made trace\n# rows: 100 50\n\ntable,sample,row\n0,0,17\n0,0,3\n1,2,42\n"
           "0,1,17\n 0 , 2 , 99 \n";
  }
  const auto trace = open_recorded_trace(p.string());
  ASSERT_EQ(trace->num_tables(), 2u);
  EXPECT_EQ(trace->num_samples(), 3u);
  EXPECT_EQ(trace->table(0).rows, 100u);
  EXPECT_EQ(trace->table(1).rows, 50u);
  EXPECT_EQ(trace->table(1).name, "t1");
  const Read t0 = stream(*trace, 0);
  EXPECT_EQ(t0.lengths, (std::vector<std::uint32_t>{2, 1, 1}));
  EXPECT_EQ(t0.ids, (std::vector<std::uint64_t>{17, 3, 17, 99}));
  const Read t1 = stream(*trace, 1);
  EXPECT_EQ(t1.lengths, (std::vector<std::uint32_t>{0, 0, 1}));

  // To binary and back.
  write_trace_file(scratch("from_csv.bin").string(), *trace);
  const auto bin = open_recorded_trace(scratch("from_csv.bin").string());
  EXPECT_EQ(stream(*bin, 0).ids, t0.ids);
  EXPECT_EQ(stream(*bin, 1).lengths, t1.lengths);
  EXPECT_EQ(bin->table(0).rows, 100u);

  // Without `# rows:`, a table has its largest row id + 1 rows.
  {
    std::ofstream out(p);
    out << "table,sample,row\n0,0,9\n0,3,4\n";
  }
  EXPECT_EQ(open_recorded_trace(p.string())->table(0).rows, 10u);
}

TEST(TraceCsv, BadLinesNameTheirLine) {
  const fs::path p = scratch("bad.csv");
  const auto error_of = [&](const std::string& text) {
    {
      std::ofstream out(p);
      out << text;
    }
    try {
      open_recorded_trace(p.string());
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("table,sample,row\n0,0,1\n0,x,2\n").find("bad.csv:3"), std::string::npos);
  EXPECT_NE(error_of("table,sample,row\n0,0\n").find("three whole numbers"), std::string::npos);
  EXPECT_NE(error_of("table,sample,row\n0,0,1,2\n").find("three whole numbers"), std::string::npos);
  EXPECT_NE(error_of("row,table,sample\n").find("expected the header"), std::string::npos);
  EXPECT_NE(error_of("# only comments\n").find("no lookups"), std::string::npos);
  EXPECT_NE(error_of("# rows: 10\ntable,sample,row\n0,0,10\n").find("bad.csv:3"),
            std::string::npos);
  EXPECT_NE(error_of("# rows: 10 20\ntable,sample,row\n0,0,1\n").find("2 row counts"),
            std::string::npos);
  EXPECT_NE(error_of("# rows: ten\ntable,sample,row\n0,0,1\n").find("bad row count"),
            std::string::npos);
  EXPECT_NE(error_of("table,sample,row\n0,-1,1\n").find("three whole numbers"), std::string::npos);
  // Sparse ids: 877515 tables x 6062 samples for two lookups (a fuzzer's input took minutes).
  EXPECT_NE(error_of("table,sample,row\n0,0,1\n877514,6061,3\n").find("large gaps"),
            std::string::npos);
  // At the bound: 2^20 + 64·2 bags is accepted; one sample more is not (1 table).
  EXPECT_EQ(error_of("table,sample,row\n0,0,1\n0,1048703,3\n"), "");
  EXPECT_NE(error_of("table,sample,row\n0,0,1\n0,1048704,3\n").find("large gaps"),
            std::string::npos);
}

}  // namespace
}  // namespace shardsim::trace_file_test
