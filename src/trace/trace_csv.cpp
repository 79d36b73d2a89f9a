// Small hand-made traces in CSV (trace_file.hpp), held in memory.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string_view>

#include "shardsim/core/error.hpp"
#include "shardsim/trace/trace_file.hpp"

namespace shardsim {

namespace {

class MemoryTrace final : public RecordedTrace {
 public:
  struct Table {
    TraceTableInfo info;
    std::vector<std::uint32_t> lengths;
    std::vector<std::uint64_t> rows;
  };
  MemoryTrace(std::vector<Table> tables, std::uint64_t samples)
      : tables_(std::move(tables)), samples_(samples) {}

  std::uint64_t num_tables() const override { return tables_.size(); }
  std::uint64_t num_samples() const override { return samples_; }
  const TraceTableInfo& table(std::size_t t) const override { return at(t).info; }
  void stream_table(
      std::size_t t, const std::function<void(std::span<const std::uint32_t>)>& on_lengths,
      const std::function<void(std::span<const std::uint64_t>)>& on_rows) const override {
    const Table& tab = at(t);
    for (std::size_t i = 0; i < tab.lengths.size(); i += 2 * kTraceChunkEntries)
      on_lengths(
          std::span(tab.lengths)
              .subspan(i, std::min<std::size_t>(2 * kTraceChunkEntries, tab.lengths.size() - i)));
    for (std::size_t i = 0; i < tab.rows.size(); i += kTraceChunkEntries)
      on_rows(std::span(tab.rows).subspan(
          i, std::min<std::size_t>(kTraceChunkEntries, tab.rows.size() - i)));
  }
  void read_lengths(std::size_t t, std::uint64_t first,
                    std::span<std::uint32_t> out) const override {
    const Table& tab = at(t);
    if (first > tab.lengths.size() || out.size() > tab.lengths.size() - first)
      throw std::out_of_range("CSV trace: lengths past the end of the table");
    std::copy_n(tab.lengths.begin() + static_cast<std::ptrdiff_t>(first), out.size(), out.begin());
  }
  void read_rows(std::size_t t, std::uint64_t first, std::span<std::uint64_t> out) const override {
    const Table& tab = at(t);
    if (first > tab.rows.size() || out.size() > tab.rows.size() - first)
      throw std::out_of_range("CSV trace: rows past the end of the table");
    std::copy_n(tab.rows.begin() + static_cast<std::ptrdiff_t>(first), out.size(), out.begin());
  }

 private:
  const Table& at(std::size_t t) const {
    if (t >= tables_.size()) throw std::out_of_range("CSV trace: no such table");
    return tables_[t];
  }
  std::vector<Table> tables_;
  std::uint64_t samples_;
};

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool parse_u64(std::string_view s, std::uint64_t& out) {
  s = trim(s);
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

struct Lookup {
  std::uint64_t table;
  std::uint64_t sample;
  std::uint64_t row;
  std::uint64_t line;  // for messages
};

// Throws the InputError of one line of the CSV file.
struct CsvFail {
  const std::string& path;
  const std::string& key;
  [[noreturn]] void operator()(std::uint64_t line, const std::string& problem,
                               const std::string& hint) const {
    throw InputError(
        SourceLocation{path, static_cast<int>(std::min<std::uint64_t>(line, 1u << 30))}, key,
        problem, hint);
  }
};

// Reads the row counts of a `# rows: R0 R1 ...` comment into declared_rows.
void read_csv_rows_comment(std::string_view body, std::uint64_t line, bool header,
                           std::vector<std::uint64_t>& declared_rows, const CsvFail& fail) {
  if (!declared_rows.empty() || header)
    fail(line, "a `# rows:` line must come once, before the header",
         "put it at the top of the file");
  std::string_view rest = trim(body.substr(5));
  while (!rest.empty()) {
    const auto sp = rest.find_first_of(" \t,");
    std::uint64_t r = 0;
    if (!parse_u64(rest.substr(0, sp), r) || r == 0 || r > kTraceMaxRows)
      fail(line, fmt::format("bad row count '{}' in `# rows:`", rest.substr(0, sp)),
           "write `# rows: R0 R1 ...`, one positive whole number per table");
    declared_rows.push_back(r);
    rest = sp == std::string_view::npos ? std::string_view{} : trim(rest.substr(sp + 1));
  }
  if (declared_rows.empty()) fail(line, "`# rows:` lists no row counts", "");
}

// Checks the header line 'table,sample,row' (blanks ignored).
void check_csv_header(std::string_view l, std::uint64_t line, const CsvFail& fail) {
  std::string compact;
  for (char c : l)
    if (c != ' ' && c != '\t') compact += c;
  if (compact != "table,sample,row")
    fail(line, fmt::format("expected the header 'table,sample,row', found '{}'", l),
         "the first line that is not a comment names the columns: table,sample,row");
}

// Parses one 'table,sample,row' line and checks its ids against the limits.
Lookup parse_csv_lookup(std::string_view l, std::uint64_t line, const CsvFail& fail) {
  Lookup x{0, 0, 0, line};
  const auto c1 = l.find(',');
  const auto c2 = c1 == std::string_view::npos ? c1 : l.find(',', c1 + 1);
  if (c2 == std::string_view::npos || l.find(',', c2 + 1) != std::string_view::npos ||
      !parse_u64(l.substr(0, c1), x.table) || !parse_u64(l.substr(c1 + 1, c2 - c1 - 1), x.sample) ||
      !parse_u64(l.substr(c2 + 1), x.row))
    fail(line, fmt::format("expected three whole numbers 'table,sample,row', found '{}'", l),
         "e.g. 0,12,4711: table 0, sample 12, row 4711");
  if (x.table >= kTraceMaxTables)
    fail(line, fmt::format("table {} (at most {} tables)", x.table, kTraceMaxTables), "");
  if (x.sample >= kTraceCsvMaxLines)
    fail(line,
         fmt::format("sample {} is past the limit of {} samples", x.sample, kTraceCsvMaxLines),
         "number samples from 0");
  if (x.row >= kTraceMaxRows)
    fail(line, fmt::format("row {} is past the limit of 10^13 rows", x.row), "");
  return x;
}

// The lookups and `# rows:` counts of a CSV file, line by line.
struct CsvLines {
  std::vector<Lookup> lookups;
  std::vector<std::uint64_t> declared_rows;
};

// Reads every line of the file: comments, the header, then one lookup a line.
CsvLines read_csv_lines(std::ifstream& in, const CsvFail& fail) {
  CsvLines out;
  bool header = false;
  std::string text;
  std::uint64_t line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (line > kTraceCsvMaxLines)
      fail(line, fmt::format("more than {} lines", kTraceCsvMaxLines),
           "CSV is for small hand-made traces; write large ones in the binary format "
           "(`shardsim trace gen`)");
    const std::string_view l = trim(text);
    if (l.empty()) continue;
    if (l.front() == '#') {
      const std::string_view body = trim(l.substr(1));
      if (body.rfind("rows:", 0) == 0)
        read_csv_rows_comment(body, line, header, out.declared_rows, fail);
      continue;
    }
    if (!header) {
      check_csv_header(l, line, fail);
      header = true;
      continue;
    }
    out.lookups.push_back(parse_csv_lookup(l, line, fail));
  }
  if (!header || out.lookups.empty())
    fail(line, "the CSV trace has no lookups",
         "write 'table,sample,row' and then one lookup a line");
  return out;
}

// Checks that the ids leave no large gaps and match the `# rows:` line's table count.
void check_csv_counts(const CsvLines& in, std::uint64_t tables, std::uint64_t samples,
                      const CsvFail& fail) {
  // Every (table, sample) bag gets a length, lookups or not: ids with large gaps would make a
  // few lines cost gigabytes (a 13-line file naming table 877514 and sample 6061 asked for 5.3 G
  // bags). The bags may outnumber the lookups by kTraceCsvMaxBagsPerLookup, plus 2^20.
  const std::uint64_t lines = in.lookups.size();
  if (tables * samples > kTraceCsvMaxBagsPerLookup * lines + (std::uint64_t{1} << 20)) {
    fail(1,
         fmt::format("{} tables x {} samples = {} bags for {} lookups: table or sample ids leave "
                     "large gaps",
                     tables, samples, tables * samples, lines),
         "number tables and samples from 0 without gaps; the largest ids set the counts");
  }
  if (!in.declared_rows.empty() && in.declared_rows.size() != tables)
    fail(1,
         fmt::format("`# rows:` gives {} row counts but the trace has {} tables",
                     in.declared_rows.size(), tables),
         "give one row count per table, table 0 first");
}

// Groups the lookups into bags by (table, sample), keeping line order inside a bag.
std::vector<MemoryTrace::Table> group_csv_lookups(CsvLines& in, std::uint64_t tables,
                                                  std::uint64_t samples, const CsvFail& fail) {
  std::vector<Lookup>& lookups = in.lookups;
  const std::vector<std::uint64_t>& declared_rows = in.declared_rows;
  std::stable_sort(lookups.begin(), lookups.end(), [](const Lookup& a, const Lookup& b) {
    return a.table != b.table ? a.table < b.table : a.sample < b.sample;
  });
  std::vector<MemoryTrace::Table> out(tables);
  for (std::uint64_t t = 0; t < tables; ++t) {
    out[t].info.name = fmt::format("t{}", t);
    out[t].lengths.assign(samples, 0);
  }
  for (const Lookup& x : lookups) {
    MemoryTrace::Table& tab = out[x.table];
    if (!declared_rows.empty() && x.row >= declared_rows[x.table])
      fail(x.line,
           fmt::format("row {} of table {}, which has {} rows (`# rows:`)", x.row, x.table,
                       declared_rows[x.table]),
           "row ids run from 0 to rows - 1");
    if (tab.lengths[x.sample] == std::numeric_limits<std::uint32_t>::max())
      fail(x.line, "a bag of more than 2^32 - 1 lookups", "");
    ++tab.lengths[x.sample];
    tab.rows.push_back(x.row);
    tab.info.rows = std::max(tab.info.rows, x.row + 1);
  }
  for (std::uint64_t t = 0; t < tables; ++t) {
    out[t].info.lookups = out[t].rows.size();
    if (!declared_rows.empty()) out[t].info.rows = declared_rows[t];
    if (out[t].info.rows == 0) out[t].info.rows = 1;  // a table without lookups
  }
  return out;
}

}  // namespace

std::unique_ptr<RecordedTrace> read_trace_csv(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  if (!in)
    throw InputError(SourceLocation{path}, key, "cannot open the CSV trace",
                     "check the path (relative paths in a scenario are relative to its folder)");
  const CsvFail fail{path, key};
  CsvLines lines = read_csv_lines(in, fail);
  std::uint64_t tables = 0, samples = 0;
  for (const Lookup& x : lines.lookups) {
    tables = std::max(tables, x.table + 1);
    samples = std::max(samples, x.sample + 1);
  }
  check_csv_counts(lines, tables, samples, fail);
  return std::make_unique<MemoryTrace>(group_csv_lookups(lines, tables, samples, fail), samples);
}

}  // namespace shardsim
