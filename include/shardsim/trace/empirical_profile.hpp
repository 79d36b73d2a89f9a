#pragma once
// An access profile measured from a trace (docs/traces.md §8): exact counts for the hot head, a
// bounded summary of the tail, behind the same AccessProfile interface as the analytic profile.
//
// Built from a table's row ids in one or two passes (EmpiricalProfileBuilder):
//   pass 1  counts every distinct row exactly while there are at most `exact_rows` of them;
//           beyond that it keeps counting only the rows whose hash falls in a shrinking share
//           2^-s of all rows (distinct sampling: a row is kept or dropped by its id alone, so a
//           kept row's count stays exact), and from the moment of overflow runs Space-Saving
//           (Metwally et al. 2005) with `hot_candidates` counters to find the hot rows;
//   pass 2  (only after an overflow) counts the Space-Saving candidates exactly.
// The profile keeps:
//   head  the `head_rows` most-accessed rows with their exact counts (ranks 0..H-1 in count
//         order, ties by row id). After an overflow, only rows counted more than
//         lookups / hot_candidates times, which Space-Saving is guaranteed to hold, so the head
//         is always the true top H (H may then be smaller than head_rows);
//   tail  the other touched rows, exact or, after an overflow, in two strata: the rows above the
//         Space-Saving bound (all known exactly) and a 2^-s sample of the rest (each standing for
//         2^s rows). Kept: their number D_T, their lookups (exact: all lookups minus the head's;
//         the sample rescaled to match), their counts as groups of equal count
//         (for statistics and expected_distinct), and where they sit in row-id space as two
//         piecewise-linear CDFs over row ids (of lookups and of rows) with about 2·tail_knots
//         knots, exact at the knots.
// Queries:
//   rank space  ranks 0..H-1 are the head; ranks H..H+D_T-1 are the tail rows in a fixed hashed
//               order (a bounded summary cannot order them), so a tail rank range gets its share
//               of the tail's lookups and expected distinct rows by its width; ranks past
//               H + D_T were never accessed (mass 0);
//   row ids     head rows exactly; the tail through its CDFs: error at most (tail lookups) /
//               tail_knots per range end.
//   expected_distinct  Σ 1 - (1 - p)^n with p = count / lookups over the head rows in the range,
//               plus the tail's Σ over its count groups times the range's share of tail rows.
// Memory: O(head_rows + tail_knots + count groups), about 300 KB per table at the defaults,
// whatever the table's rows or the trace's length.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "shardsim/trace/access_profile.hpp"
#include "shardsim/trace/trace_file.hpp"

namespace shardsim {

struct EmpiricalProfileOptions {
  std::uint64_t head_rows = 4096;          // the hot rows kept exactly (ids and counts)
  std::uint64_t exact_rows = 1ULL << 20;   // distinct rows counted exactly while building
  std::uint64_t hot_candidates = 1 << 15;  // Space-Saving counters once exact_rows overflow
  std::uint32_t tail_knots = 1024;         // quantiles of the tail's row-id CDFs
  std::uint32_t max_groups = 4096;         // count groups of the tail (merged within octaves)
};

// Rows that were accessed (about) `lookups / rows` times each.
struct CountGroup {
  double rows = 0;
  double lookups = 0;
  double count() const { return rows > 0 ? lookups / rows : 0; }
};

class EmpiricalProfile final : public AccessProfile {
 public:
  std::uint64_t num_rows() const override { return rows_; }
  double mass(RowRange rows, RowSpace space) const override;
  double expected_distinct(RowRange rows, RowSpace space, double lookups) const override;
  // Head ranks: the stored row. Past the head: std::logic_error (the summary keeps no ids there).
  std::uint64_t row_of_rank(std::uint64_t rank) const override;
  // Head rows: their rank. Other rows: H + a hash of the row modulo D_T (their place in the
  // hashed tail order; also for rows the trace never accessed).
  std::uint64_t rank_of_row(std::uint64_t row) const override;

  std::uint64_t lookups() const { return lookups_; }  // in the trace
  double distinct_rows() const { return static_cast<double>(head_ids_.size() + tail_rows_); }
  bool exact() const { return exact_; }  // every distinct row was counted exactly
  // The share of the table's rows whose counts the tail summary kept: 1 when exact(), else
  // 2^-s. A tail quantity summed over m rows of the sample has a relative error of about
  // sqrt((1/share - 1) / m).
  double row_sample_share() const { return row_sample_share_; }
  std::uint64_t head_size() const { return head_ids_.size(); }
  std::uint64_t head_row(std::uint64_t rank) const { return head_ids_.at(rank); }
  std::uint64_t head_count(std::uint64_t rank) const { return head_counts_.at(rank); }
  std::uint64_t tail_rows() const { return tail_rows_; }
  // Every accessed row, hottest first: the head's rows grouped by equal count, then the tail's.
  std::span<const CountGroup> count_groups() const { return groups_; }

 private:
  friend class EmpiricalProfileBuilder;
  EmpiricalProfile() = default;
  void check_range(RowRange rows) const;
  // Σ over the tail's count groups of rows · (1 - (1 - count/lookups)^n).
  double tail_distinct(double n) const;
  double head_distinct_by_rank(std::uint64_t begin, std::uint64_t end, double n) const;
  // Tail lookups (or rows) in row ids [0, x), from the piecewise-linear CDF.
  static double cdf(const std::vector<std::uint64_t>& x, const std::vector<double>& f,
                    std::uint64_t at);

  std::uint64_t rows_ = 0;
  std::uint64_t lookups_ = 0;
  bool exact_ = true;
  double row_sample_share_ = 1.0;
  // Head, by rank.
  std::vector<std::uint64_t> head_ids_;
  std::vector<std::uint64_t> head_counts_;
  std::vector<std::uint64_t> head_cum_;  // head_cum_[r] = counts of ranks < r
  // Head runs of equal count: run i covers ranks [run_begin_[i], run_begin_[i + 1]).
  std::vector<std::uint64_t> run_begin_;
  // Head, by row id.
  std::vector<std::uint64_t> sorted_ids_;
  std::vector<std::uint32_t> sorted_rank_;
  std::vector<std::uint64_t> sorted_cum_;  // counts of the sorted head rows before index i
  // Tail.
  std::uint64_t tail_rows_ = 0;
  std::uint64_t tail_lookups_ = 0;
  std::vector<CountGroup> tail_groups_;
  std::vector<std::uint64_t> lookup_knot_x_, row_knot_x_;
  std::vector<double> lookup_knot_f_, row_knot_f_;
  std::vector<CountGroup> groups_;
  // tail_distinct's last argument and value (a block split asks once per block for one n).
  mutable std::mutex cache_mutex_;
  mutable double cached_n_ = -1;
  mutable double cached_tail_distinct_ = 0;
};

class EmpiricalProfileBuilder {
 public:
  EmpiricalProfileBuilder(std::uint64_t rows, EmpiricalProfileOptions options = {});
  ~EmpiricalProfileBuilder();
  // Pass 1: every row id of the table once (rows < the table's rows; std::out_of_range else).
  void add(std::span<const std::uint64_t> rows);
  // After pass 1: whether the distinct rows overflowed exact_rows, so that pass 2 is needed.
  bool wants_second_pass() const;
  // Pass 2: the same row ids again, in any chunks.
  void add_again(std::span<const std::uint64_t> rows);
  std::unique_ptr<EmpiricalProfile> finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// Builds a table's profile from a replayable stream: replay(sink) passes every row id to sink,
// in chunks; it is called once, or twice when the table has more than exact_rows distinct rows.
std::unique_ptr<EmpiricalProfile> build_empirical_profile(
    std::uint64_t rows,
    const std::function<void(const std::function<void(std::span<const std::uint64_t>)>&)>& replay,
    EmpiricalProfileOptions options = {});

// The profile of table t of a recorded trace (its data is streamed, and checked, once or twice).
std::unique_ptr<EmpiricalProfile> build_empirical_profile(const RecordedTrace& trace, std::size_t t,
                                                          EmpiricalProfileOptions options = {});

}  // namespace shardsim
