#pragma once
// Number formatting and aligned text tables for the report writers. Every rounding rule the
// text report uses lives here, so docs/report.md and the tests can point at one place.
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardsim::report_format {

// The text written for a value that does not exist (a plan that did not fit was never timed)
// or that is not finite.
inline constexpr std::string_view kNotAvailable = "n/a";

// `value` rounded to `decimals` places as printf("%.*f") does; "n/a" when not finite.
std::string fixed(double value, int decimals);

// `value` rounded to an integer (printf "%.0f") with a comma every three digits:
// 1234567.4 -> "1,234,567", -1234 -> "-1,234"; "n/a" when not finite.
std::string thousands(double value);

// A duration for people: below one second in milliseconds with 3 decimals ("12.346 ms"), from
// one second on in seconds with 3 decimals ("1.500 s"); "n/a" when not finite.
std::string duration(double seconds);

// A number for CSV: the shortest text that reads back to the same double (fmt "{}"), so a CSV
// round-trips exactly; an empty field when not finite.
std::string csv_number(double value);

// One CSV field (RFC 4180): quoted when it holds a comma, a double quote, CR or LF, with
// embedded double quotes doubled.
std::string csv_field(std::string_view text);

// A sweep point's label as the text writers show it: each `key=value` of the label as written,
// except a value longer than kShownSweepValueChars, shown as its first kShownSweepValueStart
// bytes and "..." (cut back to the start of a UTF-8 character). A label splits into its keys at
// each ',' outside brackets, braces and quotes that a key and '=' follow. The reports'
// `sweep_point` (JSON, CSV) keeps the whole label, which compare and the point checkpoints key on.
inline constexpr std::size_t kShownSweepValueChars = 64;
inline constexpr std::size_t kShownSweepValueStart = 40;
std::string shown_sweep_point(std::string_view label);

// A sweep point's label as its (key, value) pairs, in the label's order, split as above; a part
// without '=' is a value with an empty key.
std::vector<std::pair<std::string, std::string>> sweep_point_parts(std::string_view label);

// A table of text cells with aligned columns: left-aligned columns for names, right-aligned for
// numbers. Columns are separated by two spaces; each line is prefixed by `indent` spaces; no
// line carries trailing spaces.
class TextTable {
 public:
  enum class Align { left, right };
  struct Column {
    std::string header;
    Align align = Align::right;
  };

  explicit TextTable(std::vector<Column> columns);
  // A row with fewer cells than columns is padded with empty cells; more is a logic_error.
  void add_row(std::vector<std::string> cells);
  std::size_t rows() const { return rows_.size(); }
  void write(std::ostream& out, int indent) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace shardsim::report_format
