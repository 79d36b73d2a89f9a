#pragma once
// How often a table's rows were accessed, as `shardsim trace stats` needs it (docs/traces.md §11):
// the table's size, its lookups, its distinct rows and the rows grouped by equal count.
//
// From an EmpiricalProfile (table_counts), or counted exactly by ExactTableCounter, which gives
// the same numbers bit for bit as the profile of the same row ids while the table has at most
// `exact_rows` distinct rows (beyond, the profile samples rows by a hash of their id, and
// ExactTableCounter gives up). The counts of a table do not depend on which row is which, so a
// synthetic table is counted in rank space, without its layout's bijection
// (synthetic_table_counts).
//
// ExactTableCounter counts the rows below 2^20 in a dense array (8 MB at most) and the others in a
// hash map (32 bytes per distinct row, at most exact_rows of them); each thread keeps its largest
// buffers for the next counter, zeroed.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "shardsim/trace/bag_generator.hpp"
#include "shardsim/trace/empirical_profile.hpp"
#include "shardsim/trace/synthetic_trace_writer.hpp"

namespace shardsim {

struct TableCounts {
  std::uint64_t rows = 0;  // of the table
  std::uint64_t lookups = 0;
  double distinct_rows = 0;        // rows accessed at least once
  bool exact = true;               // false when estimated from a sample of rows
  std::vector<CountGroup> groups;  // as EmpiricalProfile::count_groups: hottest first
};

// The counts that `profile` holds.
TableCounts table_counts(const EmpiricalProfile& profile);

class ExactTableCounter {
 public:
  // Throws std::invalid_argument for rows == 0 or options EmpiricalProfileBuilder rejects.
  explicit ExactTableCounter(std::uint64_t rows, EmpiricalProfileOptions options = {});
  ~ExactTableCounter();
  ExactTableCounter(const ExactTableCounter&) = delete;
  ExactTableCounter& operator=(const ExactTableCounter&) = delete;

  // Counts these row ids (each < rows; std::out_of_range else). Returns false, and counts nothing
  // more, once the table has more than options.exact_rows distinct rows.
  bool add(std::span<const std::uint64_t> rows);
  bool overflowed() const;
  // What table_counts(*build_empirical_profile(...)) of the same row ids and options gives.
  // std::logic_error after an overflow.
  TableCounts finish() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The counts of the synthetic trace that stream_synthetic_table(generator, shape, ...) gives:
// counted exactly in rank space, or, past options.exact_rows distinct rows, from the empirical
// profile of its row ids (as `trace stats` of the generated file).
TableCounts synthetic_table_counts(const BagGenerator& generator, const SyntheticTraceShape& shape,
                                   EmpiricalProfileOptions options = {});

}  // namespace shardsim
