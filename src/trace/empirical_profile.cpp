#include "shardsim/trace/empirical_profile.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

#include "shardsim/core/rng.hpp"
#include "trace/count_group_merge.hpp"
#include "trace/row_count_map.hpp"
#include "trace/space_saving.hpp"
#include "trace/touch_probability.hpp"

namespace shardsim {

namespace detail {

// A row and how many lookups it had. Not in the anonymous namespace: EmpiricalProfileBuilder::
// State's lambdas hold vectors of it (GCC's -Wsubobject-linkage in a unity batch).
struct RowCount {
  std::uint64_t row;
  std::uint64_t count;
};

}  // namespace detail

namespace {

constexpr std::uint64_t kSampleSalt = 0x454d505349524943ULL;  // "EMPSIRIC"
constexpr std::uint64_t kRankSalt = 0x52414e4b4f524452ULL;    // "RANKORDR"
// n·p >= this: the row is touched (1 - (1 - p)^n > 1 - e^-40).
constexpr double kSaturated = 40.0;

using detail::touch_probability;

// A tail row standing for `weight` rows; its lookups count `lookup_weight` times its count each.
struct TailRow {
  std::uint64_t row;
  std::uint64_t count;
  double weight;
  double lookup_weight = 1.0;
};

// Knots of a piecewise-linear CDF over row ids of weighted rows sorted by id: F(x) = weight of
// rows with id < x, exact at every knot. A row where the cumulative weight crosses a multiple of
// total/knots contributes knots on both sides of it, so a heavy row is a step, not a ramp.
void build_knots(const std::vector<TailRow>& by_id, std::uint64_t table_rows,
                 const std::function<double(const TailRow&)>& weight, std::uint32_t knots,
                 std::vector<std::uint64_t>& xs, std::vector<double>& fs) {
  xs.assign(1, 0);
  fs.assign(1, 0.0);
  double total = 0;
  for (const TailRow& rc : by_id) total += weight(rc);
  if (total > 0) {
    const double step = total / std::max<std::uint32_t>(1, knots);
    double cum = 0;
    double next = step;
    for (const TailRow& rc : by_id) {
      const double w = weight(rc);
      if (cum + w >= next) {
        if (xs.back() != rc.row) {
          xs.push_back(rc.row);
          fs.push_back(cum);
        }
        xs.push_back(rc.row + 1);
        fs.push_back(cum + w);
        while (next <= cum + w) next += step;
      }
      cum += w;
    }
  }
  if (xs.back() != table_rows) {
    xs.push_back(table_rows);
    fs.push_back(total);
  } else {
    fs.back() = total;
  }
}

}  // namespace

// --- EmpiricalProfile -------------------------------------------------------------------------

void EmpiricalProfile::check_range(RowRange rows) const {
  if (rows.begin > rows.end || rows.end > rows_)
    throw std::invalid_argument("EmpiricalProfile: range [" + std::to_string(rows.begin) + ", " +
                                std::to_string(rows.end) + ") is not inside a table of " +
                                std::to_string(rows_) + " rows");
}

double EmpiricalProfile::cdf(const std::vector<std::uint64_t>& x, const std::vector<double>& f,
                             std::uint64_t at) {
  const auto it = std::upper_bound(x.begin(), x.end(), at);
  if (it == x.begin()) return 0.0;
  const std::size_t i = static_cast<std::size_t>(it - x.begin()) - 1;
  if (i + 1 >= x.size()) return f.back();
  const double t =
      static_cast<double>(at - x[i]) / static_cast<double>(x[i + 1] - x[i]);  // x[i] <= at
  return f[i] + t * (f[i + 1] - f[i]);
}

double EmpiricalProfile::mass(RowRange rows, RowSpace space) const {
  check_range(rows);
  if (lookups_ == 0 || rows.size() == 0) return 0.0;
  const double total = static_cast<double>(lookups_);
  const std::uint64_t h = head_ids_.size();
  if (space == RowSpace::rank) {
    double counts = 0;
    if (rows.begin < h)
      counts += static_cast<double>(head_cum_[std::min(rows.end, h)] - head_cum_[rows.begin]);
    const std::uint64_t lo = std::max(rows.begin, h);
    const std::uint64_t hi = std::min(rows.end, h + tail_rows_);
    if (lo < hi && tail_rows_ > 0)
      counts += static_cast<double>(tail_lookups_) * static_cast<double>(hi - lo) /
                static_cast<double>(tail_rows_);
    return counts / total;
  }
  const auto i0 =
      std::lower_bound(sorted_ids_.begin(), sorted_ids_.end(), rows.begin) - sorted_ids_.begin();
  const auto i1 =
      std::lower_bound(sorted_ids_.begin(), sorted_ids_.end(), rows.end) - sorted_ids_.begin();
  double counts = static_cast<double>(sorted_cum_[static_cast<std::size_t>(i1)] -
                                      sorted_cum_[static_cast<std::size_t>(i0)]);
  counts += cdf(lookup_knot_x_, lookup_knot_f_, rows.end) -
            cdf(lookup_knot_x_, lookup_knot_f_, rows.begin);
  return counts / total;
}

double EmpiricalProfile::tail_distinct(double n) const {
  {
    std::lock_guard lock(cache_mutex_);
    if (cached_n_ == n) return cached_tail_distinct_;
  }
  const double total = static_cast<double>(lookups_);
  double d = 0;
  for (const CountGroup& g : tail_groups_) d += g.rows * touch_probability(g.count() / total, n);
  std::lock_guard lock(cache_mutex_);
  cached_n_ = n;
  cached_tail_distinct_ = d;
  return d;
}

double EmpiricalProfile::head_distinct_by_rank(std::uint64_t begin, std::uint64_t end,
                                               double n) const {
  if (begin >= end) return 0.0;
  const double total = static_cast<double>(lookups_);
  // Runs of equal count are in rank order; saturated runs (n·p >= kSaturated) count 1 a row.
  double d = 0;
  auto run = std::upper_bound(run_begin_.begin(), run_begin_.end(), begin) - 1;
  for (std::uint64_t r = begin; r < end;) {
    const auto i = static_cast<std::size_t>(run - run_begin_.begin());
    const std::uint64_t run_end = std::min(run_begin_[i + 1], end);
    const double p = static_cast<double>(head_counts_[r]) / total;
    d += static_cast<double>(run_end - r) * (n * p >= kSaturated ? 1.0 : touch_probability(p, n));
    r = run_end;
    ++run;
  }
  return d;
}

double EmpiricalProfile::expected_distinct(RowRange rows, RowSpace space, double n) const {
  check_range(rows);
  if (!(n > 0) || lookups_ == 0 || rows.size() == 0) return 0.0;
  const std::uint64_t h = head_ids_.size();
  if (space == RowSpace::rank) {
    double d = head_distinct_by_rank(rows.begin, std::min(rows.end, h), n);
    const std::uint64_t lo = std::max(rows.begin, h);
    const std::uint64_t hi = std::min(rows.end, h + tail_rows_);
    if (lo < hi && tail_rows_ > 0)
      d += tail_distinct(n) * static_cast<double>(hi - lo) / static_cast<double>(tail_rows_);
    return d;
  }
  const double total = static_cast<double>(lookups_);
  const auto i0 =
      std::lower_bound(sorted_ids_.begin(), sorted_ids_.end(), rows.begin) - sorted_ids_.begin();
  const auto i1 =
      std::lower_bound(sorted_ids_.begin(), sorted_ids_.end(), rows.end) - sorted_ids_.begin();
  double d = 0;
  for (auto i = i0; i < i1; ++i)
    d += touch_probability(
        static_cast<double>(head_counts_[sorted_rank_[static_cast<std::size_t>(i)]]) / total, n);
  const double all_rows = row_knot_f_.back();
  if (all_rows > 0) {
    const double share =
        (cdf(row_knot_x_, row_knot_f_, rows.end) - cdf(row_knot_x_, row_knot_f_, rows.begin)) /
        all_rows;
    d += tail_distinct(n) * share;
  }
  return d;
}

std::uint64_t EmpiricalProfile::row_of_rank(std::uint64_t rank) const {
  if (rank >= rows_) throw std::out_of_range("EmpiricalProfile::row_of_rank: rank past the table");
  if (rank < head_ids_.size()) return head_ids_[rank];
  throw std::logic_error("EmpiricalProfile::row_of_rank: rank " + std::to_string(rank) +
                         " is past the exact head of " + std::to_string(head_ids_.size()) +
                         " rows; the tail summary keeps no row ids");
}

std::uint64_t EmpiricalProfile::rank_of_row(std::uint64_t row) const {
  if (row >= rows_) throw std::out_of_range("EmpiricalProfile::rank_of_row: row past the table");
  const auto it = std::lower_bound(sorted_ids_.begin(), sorted_ids_.end(), row);
  if (it != sorted_ids_.end() && *it == row)
    return sorted_rank_[static_cast<std::size_t>(it - sorted_ids_.begin())];
  const std::uint64_t h = head_ids_.size();
  const std::uint64_t span = tail_rows_ > 0 ? tail_rows_ : rows_ - h;
  if (span == 0) return h;  // unreachable: a non-head row exists only when rows_ > h
  return h + mix64(row ^ kRankSalt) % span;
}

// --- EmpiricalProfileBuilder ------------------------------------------------------------------

struct EmpiricalProfileBuilder::State {
  std::uint64_t rows = 0;
  EmpiricalProfileOptions options;
  std::uint64_t lookups = 0;
  int level = 0;  // rows with the low `level` bits of their hash zero are counted
  detail::RowCountMap counts;
  std::unique_ptr<detail::SpaceSaving> hot;  // after an overflow
  detail::RowCountMap candidates;            // pass 2: exact counts of the Space-Saving rows
  bool second_pass = false;
  std::uint64_t second_lookups = 0;

  bool kept(std::uint64_t row) const {
    return (mix64(row ^ kSampleSalt) & ((std::uint64_t{1} << level) - 1)) == 0;
  }
  void raise_level() {
    if (!hot) {
      // The exact counts so far seed Space-Saving with its capacity's hottest rows.
      std::vector<detail::RowCount> all;
      counts.for_each([&](std::uint64_t r, std::uint64_t c) { all.push_back({r, c}); });
      const std::size_t k = options.hot_candidates;
      std::partial_sort(all.begin(),
                        all.begin() + static_cast<std::ptrdiff_t>(std::min(k, all.size())),
                        all.end(), [](const detail::RowCount& a, const detail::RowCount& b) {
                          return a.count != b.count ? a.count > b.count : a.row < b.row;
                        });
      hot = std::make_unique<detail::SpaceSaving>(k);
      for (std::size_t i = 0; i < std::min(k, all.size()); ++i) hot->add(all[i].row, all[i].count);
    }
    while (counts.size() > options.exact_rows) {
      ++level;
      detail::RowCountMap kept_rows(options.exact_rows);
      counts.for_each([&](std::uint64_t r, std::uint64_t c) {
        if (kept(r)) kept_rows[r] = c;
      });
      counts = std::move(kept_rows);
    }
  }
};

EmpiricalProfileBuilder::EmpiricalProfileBuilder(std::uint64_t rows,
                                                 EmpiricalProfileOptions options)
    : s_(std::make_unique<State>()) {
  if (rows == 0) throw std::invalid_argument("EmpiricalProfileBuilder: a table needs rows");
  if (options.head_rows == 0 || options.exact_rows < options.head_rows ||
      options.hot_candidates < options.head_rows || options.tail_knots == 0 ||
      options.max_groups < 64)
    throw std::invalid_argument("EmpiricalProfileBuilder: bad options");
  s_->rows = rows;
  s_->options = options;
}

EmpiricalProfileBuilder::~EmpiricalProfileBuilder() = default;

void EmpiricalProfileBuilder::add(std::span<const std::uint64_t> rows) {
  State& s = *s_;
  for (const std::uint64_t r : rows) {
    if (r >= s.rows)
      throw std::out_of_range("EmpiricalProfileBuilder: row " + std::to_string(r) +
                              " in a table of " + std::to_string(s.rows) + " rows");
    if (s.hot) s.hot->add(r);
    if (s.level == 0 || s.kept(r)) {
      ++s.counts[r];
      if (s.counts.size() > s.options.exact_rows) s.raise_level();
    }
  }
  s.lookups += rows.size();
}

bool EmpiricalProfileBuilder::wants_second_pass() const {
  return s_->hot != nullptr;
}

void EmpiricalProfileBuilder::add_again(std::span<const std::uint64_t> rows) {
  State& s = *s_;
  if (!s.hot) throw std::logic_error("EmpiricalProfileBuilder: no second pass needed");
  if (!s.second_pass) {
    s.second_pass = true;
    s.candidates.reset(s.hot->ids().size());
    for (std::uint64_t id : s.hot->ids()) s.candidates[id] = 0;
  }
  for (const std::uint64_t r : rows)
    if (std::uint64_t* c = s.candidates.find(r)) ++*c;
  s.second_lookups += rows.size();
}

std::unique_ptr<EmpiricalProfile> EmpiricalProfileBuilder::finish() {
  State& s = *s_;
  if (s.hot && s.second_lookups != s.lookups)
    throw std::logic_error("EmpiricalProfileBuilder: the second pass saw " +
                           std::to_string(s.second_lookups) + " of " + std::to_string(s.lookups) +
                           " row ids");
  std::unique_ptr<EmpiricalProfile> p(new EmpiricalProfile());
  p->rows_ = s.rows;
  p->lookups_ = s.lookups;
  p->exact_ = s.hot == nullptr;
  const auto hotter = [](const detail::RowCount& a, const detail::RowCount& b) {
    return a.count != b.count ? a.count > b.count : a.row < b.row;
  };

  // Head: the hottest rows by exact count.
  std::vector<detail::RowCount> head;
  if (s.hot) {
    // Space-Saving holds every row counted more than lookups / capacity times, so the candidates
    // above that bound are exactly the rows above it: the head is complete down to there.
    const double bound =
        static_cast<double>(s.lookups) / static_cast<double>(s.options.hot_candidates);
    s.candidates.for_each([&](std::uint64_t r, std::uint64_t c) {
      if (static_cast<double>(c) > bound) head.push_back({r, c});
    });
  } else {
    s.counts.for_each([&](std::uint64_t r, std::uint64_t c) { head.push_back({r, c}); });
  }
  std::sort(head.begin(), head.end(), hotter);
  // Tail rows with a weight: how many rows each stands for. Exact: every row past the head,
  // weight 1. After an overflow, two strata: the rows counted more than the Space-Saving bound
  // (all known, exactly) past the head, weight 1; and the sampled rows at or below the bound,
  // weight 2^level each (a row is sampled by its id alone, so this is unbiased).
  std::vector<TailRow> tail;
  for (std::size_t i = std::min<std::size_t>(head.size(), s.options.head_rows); i < head.size();
       ++i)
    tail.push_back({head[i].row, head[i].count, 1.0});
  const double scale = std::ldexp(1.0, s.level);
  p->row_sample_share_ = 1.0 / scale;
  std::uint64_t exact_tail_lookups = 0;
  for (const TailRow& t : tail) exact_tail_lookups += t.count;
  const std::size_t exact_tail = tail.size();
  if (s.hot) {
    detail::RowCountMap known(head.size());
    for (const detail::RowCount& rc : head) known[rc.row] = 1;
    s.counts.for_each([&](std::uint64_t r, std::uint64_t c) {
      if (!known.find(r)) tail.push_back({r, c, scale});
    });
  }
  head.resize(std::min<std::size_t>(head.size(), s.options.head_rows));
  const std::size_t h = head.size();
  p->head_ids_.resize(h);
  p->head_counts_.resize(h);
  p->head_cum_.assign(h + 1, 0);
  for (std::size_t r = 0; r < h; ++r) {
    p->head_ids_[r] = head[r].row;
    p->head_counts_[r] = head[r].count;
    p->head_cum_[r + 1] = p->head_cum_[r] + head[r].count;
    if (r == 0 || head[r].count != head[r - 1].count) p->run_begin_.push_back(r);
  }
  p->run_begin_.push_back(h);
  std::vector<std::size_t> order(h);
  for (std::size_t i = 0; i < h; ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return head[a].row < head[b].row; });
  p->sorted_ids_.resize(h);
  p->sorted_rank_.resize(h);
  p->sorted_cum_.assign(h + 1, 0);
  for (std::size_t i = 0; i < h; ++i) {
    p->sorted_ids_[i] = head[order[i]].row;
    p->sorted_rank_[i] = static_cast<std::uint32_t>(order[i]);
    p->sorted_cum_[i + 1] = p->sorted_cum_[i] + head[order[i]].count;
  }

  // Tail: its lookups are exact (all lookups minus the head's); the sampled stratum's counts are
  // rescaled to the lookups it must hold (a ratio estimator), so the masses sum to 1.
  p->tail_lookups_ = s.lookups - p->head_cum_[h];
  double sampled_lookups = 0, tail_rows = 0;
  for (std::size_t i = exact_tail; i < tail.size(); ++i)
    sampled_lookups += static_cast<double>(tail[i].count) * tail[i].weight;
  for (const TailRow& t : tail) tail_rows += t.weight;
  const double sampled_target =
      static_cast<double>(p->tail_lookups_) - static_cast<double>(exact_tail_lookups);
  const double lookup_scale = sampled_lookups > 0 ? sampled_target / sampled_lookups : 0.0;
  for (std::size_t i = exact_tail; i < tail.size(); ++i) tail[i].lookup_weight = lookup_scale;
  p->tail_rows_ = std::min<std::uint64_t>(static_cast<std::uint64_t>(tail_rows), s.rows - h);
  if (p->tail_lookups_ > 0 && p->tail_rows_ == 0) p->tail_rows_ = 1;  // sample missed them all
  std::map<std::uint64_t, CountGroup, std::greater<>> by_count;
  for (const TailRow& t : tail) {
    CountGroup& g = by_count[t.count];
    g.rows += t.weight;
    g.lookups += t.weight * static_cast<double>(t.count) * t.lookup_weight;
  }
  std::vector<CountGroup> tail_groups;
  for (const auto& [count, g] : by_count) tail_groups.push_back(g);
  // Too many distinct counts: merge neighbours inside each octave (never across one).
  p->tail_groups_ = detail::merge_count_groups(std::move(tail_groups), s.options.max_groups);
  // All groups, hottest first: head runs, then the tail.
  for (std::size_t i = 0; i + 1 < p->run_begin_.size(); ++i) {
    const std::uint64_t n = p->run_begin_[i + 1] - p->run_begin_[i];
    p->groups_.push_back(
        {static_cast<double>(n),
         static_cast<double>(n) * static_cast<double>(p->head_counts_[p->run_begin_[i]])});
  }
  p->groups_.insert(p->groups_.end(), p->tail_groups_.begin(), p->tail_groups_.end());

  // Where the tail sits in row-id space.
  std::sort(tail.begin(), tail.end(),
            [](const TailRow& a, const TailRow& b) { return a.row < b.row; });
  build_knots(
      tail, s.rows,
      [&](const TailRow& t) { return static_cast<double>(t.count) * t.weight * t.lookup_weight; },
      s.options.tail_knots, p->lookup_knot_x_, p->lookup_knot_f_);
  build_knots(
      tail, s.rows, [&](const TailRow& t) { return t.weight; }, s.options.tail_knots,
      p->row_knot_x_, p->row_knot_f_);
  return p;
}

std::unique_ptr<EmpiricalProfile> build_empirical_profile(
    std::uint64_t rows,
    const std::function<void(const std::function<void(std::span<const std::uint64_t>)>&)>& replay,
    EmpiricalProfileOptions options) {
  EmpiricalProfileBuilder b(rows, options);
  replay([&](std::span<const std::uint64_t> chunk) { b.add(chunk); });
  if (b.wants_second_pass())
    replay([&](std::span<const std::uint64_t> chunk) { b.add_again(chunk); });
  return b.finish();
}

std::unique_ptr<EmpiricalProfile> build_empirical_profile(const RecordedTrace& trace, std::size_t t,
                                                          EmpiricalProfileOptions options) {
  return build_empirical_profile(
      trace.table(t).rows,
      [&](const std::function<void(std::span<const std::uint64_t>)>& sink) {
        trace.stream_table(
            t, [](std::span<const std::uint32_t>) {}, sink);
      },
      options);
}

}  // namespace shardsim
