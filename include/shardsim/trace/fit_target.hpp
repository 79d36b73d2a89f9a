#pragma once
// Target access statistics for `shardsim trace fit` (docs/traces.md §13): the two `trace stats`
// histograms, overall and optionally per table, with the totals they were measured over.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {

// Two histograms as shares (each sums to 1): bin j = access counts in (2^(j-1), 2^j], bin 0 = 1.
struct CountShares {
  std::vector<double> rows;     // share of the distinct rows per bin
  std::vector<double> lookups;  // share of the lookups per bin
};

struct TableTarget {
  std::string name;
  std::optional<std::uint64_t> rows;  // the table's rows, when known
  double lookups = 0;                 // over the batch
  CountShares hist;
};

struct FitTarget {
  std::string file;
  std::string source;  // where the numbers come from (a link), free text
  std::uint64_t tables = 0;
  double batch_size = 0;     // samples the statistics were measured over
  double lookups = 0;        // all tables together
  double distinct_rows = 0;  // all tables together (0: not given)
  double pooling = 0;        // mean lookups per sample and table (default lookups/(tables·batch))
  // The last bin is "2^(j-1) and more" (published histograms cap it): every bin from it on is
  // folded into it before comparing.
  bool open_last_bin = false;
  CountShares overall;
  std::vector<TableTarget> per_table;
  // The index of the open last bin (0 when the last bin is closed).
  std::size_t open_bin() const;
};

// Reads a target (YAML or JSON). Every problem is an InputError with file, line and key: unknown
// keys, a histogram that does not sum to 1 (within 0.01, what 3-decimal rounding of 17 bins
// allows), a negative share, missing totals, per-table histograms that disagree with `tables`.
FitTarget parse_fit_target(const YamlValue& doc);
FitTarget load_fit_target(const std::string& path);
FitTarget parse_fit_target_text(std::string_view text, const std::string& file);

}  // namespace shardsim
