#include "shardsim/trace/table_counts.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

#include "trace/count_group_merge.hpp"
#include "trace/row_count_map.hpp"

namespace shardsim {

namespace {

// Rows below this are counted in a dense array (2^20 x 8 bytes); the others in a hash map.
constexpr std::uint64_t kDenseRows = std::uint64_t{1} << 20;
// Counts below this are tallied in an array while grouping; larger ones are sorted.
constexpr std::uint64_t kTalliedCounts = 4096;

// (count, rows with that count), hottest first.
struct CountRun {
  std::uint64_t count;
  std::uint64_t rows;
};

// The head's runs of equal count (its `head_rows` hottest rows), then the tail's groups, merged
// as EmpiricalProfileBuilder::finish merges them. Every sum is of integers below 2^53, so each
// product here equals the profile's running sums exactly.
std::vector<CountGroup> exact_groups(const std::vector<CountRun>& runs, std::uint64_t head_rows,
                                     std::size_t max_groups) {
  std::vector<CountGroup> groups, tail;
  std::uint64_t in_head = 0;
  for (const CountRun& r : runs) {
    const std::uint64_t head = std::min(r.rows, head_rows - in_head);
    in_head += head;
    const auto as_group = [&](std::uint64_t n) {
      return CountGroup{static_cast<double>(n),
                        static_cast<double>(n) * static_cast<double>(r.count)};
    };
    if (head > 0) groups.push_back(as_group(head));
    if (r.rows > head) tail.push_back(as_group(r.rows - head));
  }
  tail = detail::merge_count_groups(std::move(tail), max_groups);
  groups.insert(groups.end(), tail.begin(), tail.end());
  return groups;
}

}  // namespace

TableCounts table_counts(const EmpiricalProfile& profile) {
  const auto groups = profile.count_groups();
  return TableCounts{profile.num_rows(), profile.lookups(), profile.distinct_rows(),
                     profile.exact(), std::vector<CountGroup>(groups.begin(), groups.end())};
}

namespace detail {

// The counting buffers, all zero between uses. Each thread keeps its last ones: allocating and
// zeroing 8 MB or more for each table was 40% of `trace stats` (page faults). Not in the anonymous
// namespace: ExactTableCounter::State holds one (GCC's -Wsubobject-linkage).
struct TableCountBuffers {
  std::vector<std::uint64_t> dense;  // counts of rows [0, dense_rows); zeros past it
  RowCountMap sparse;                // counts of the rows above
};

}  // namespace detail

namespace {
thread_local std::unique_ptr<detail::TableCountBuffers> t_spare_buffers;
}  // namespace

struct ExactTableCounter::State {
  std::uint64_t rows = 0;
  EmpiricalProfileOptions options;
  std::uint64_t lookups = 0;
  std::uint64_t distinct = 0;
  bool overflowed = false;
  std::uint64_t dense_rows = 0;
  std::unique_ptr<detail::TableCountBuffers> buffers;

  ~State() {
    if (!buffers) return;
    std::fill_n(buffers->dense.begin(), dense_rows, 0);
    buffers->sparse.clear();
    if (!t_spare_buffers) t_spare_buffers = std::move(buffers);
  }
};

ExactTableCounter::ExactTableCounter(std::uint64_t rows, EmpiricalProfileOptions options)
    : s_(std::make_unique<State>()) {
  if (rows == 0) throw std::invalid_argument("ExactTableCounter: a table needs rows");
  if (options.head_rows == 0 || options.exact_rows < options.head_rows ||
      options.hot_candidates < options.head_rows || options.tail_knots == 0 ||
      options.max_groups < 64)
    throw std::invalid_argument("ExactTableCounter: bad options");
  s_->rows = rows;
  s_->options = options;
  s_->buffers =
      t_spare_buffers ? std::move(t_spare_buffers) : std::make_unique<detail::TableCountBuffers>();
  s_->dense_rows = std::min(rows, kDenseRows);
  if (s_->buffers->dense.size() < s_->dense_rows) s_->buffers->dense.resize(s_->dense_rows, 0);
}

ExactTableCounter::~ExactTableCounter() = default;

bool ExactTableCounter::overflowed() const {
  return s_->overflowed;
}

bool ExactTableCounter::add(std::span<const std::uint64_t> rows) {
  State& s = *s_;
  if (s.overflowed) return false;
  const std::uint64_t dense_rows = s.dense_rows;
  std::uint64_t* const dense = s.buffers->dense.data();
  detail::RowCountMap& sparse = s.buffers->sparse;
  std::uint64_t distinct = s.distinct;
  for (const std::uint64_t r : rows) {
    if (r < dense_rows) {
      distinct += dense[r]++ == 0;
      continue;
    }
    if (r >= s.rows)
      throw std::out_of_range("ExactTableCounter: row " + std::to_string(r) + " in a table of " +
                              std::to_string(s.rows) + " rows");
    distinct += sparse[r]++ == 0;
  }
  s.distinct = distinct;
  s.lookups += rows.size();
  s.overflowed = distinct > s.options.exact_rows;
  return !s.overflowed;
}

TableCounts ExactTableCounter::finish() const {
  const State& s = *s_;
  if (s.overflowed)
    throw std::logic_error("ExactTableCounter: more than " + std::to_string(s.options.exact_rows) +
                           " distinct rows");
  // Rows by count: small counts tallied, large ones sorted (at most lookups / kTalliedCounts).
  std::vector<std::uint64_t> tally(kTalliedCounts, 0);
  std::vector<std::uint64_t> large;
  const auto note = [&](std::uint64_t c) {
    if (c < kTalliedCounts)
      ++tally[c];
    else
      large.push_back(c);
  };
  const std::uint64_t* const dense = s.buffers->dense.data();
  for (std::uint64_t r = 0; r < s.dense_rows; ++r)
    if (dense[r] != 0) note(dense[r]);
  s.buffers->sparse.for_each([&](std::uint64_t, std::uint64_t c) { note(c); });
  std::sort(large.begin(), large.end(), std::greater<>());
  std::vector<CountRun> runs;
  for (const std::uint64_t c : large) {
    if (runs.empty() || runs.back().count != c)
      runs.push_back({c, 1});
    else
      ++runs.back().rows;
  }
  for (std::uint64_t c = kTalliedCounts - 1; c > 0; --c)
    if (tally[c] > 0) runs.push_back({c, tally[c]});
  return TableCounts{s.rows, s.lookups, static_cast<double>(s.distinct), true,
                     exact_groups(runs, s.options.head_rows, s.options.max_groups)};
}

TableCounts synthetic_table_counts(const BagGenerator& generator, const SyntheticTraceShape& shape,
                                   EmpiricalProfileOptions options) {
  const std::uint64_t rows = generator.layout().rows();
  {
    ExactTableCounter counter(rows, options);
    Bags bags;
    bool exact = true;
    for (int it = 0; it < shape.iterations && exact; ++it) {
      for (int g = 0; g < shape.gpus && exact; ++g) {
        bags.clear();
        generator.append(it, g, shape.samples_per_gpu, RowSpace::rank, bags);
        exact = counter.add(bags.rows);
      }
    }
    if (exact) return counter.finish();
  }
  // Too many distinct rows to count exactly: the profile samples rows by their ids.
  const auto profile = build_empirical_profile(
      rows,
      [&](const std::function<void(std::span<const std::uint64_t>)>& sink) {
        stream_synthetic_table(generator, shape, [&](const Bags& b) { sink(b.rows); });
      },
      options);
  return table_counts(*profile);
}

}  // namespace shardsim
