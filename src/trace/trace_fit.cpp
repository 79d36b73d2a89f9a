// `shardsim trace fit` (docs/traces.md §13): Nelder–Mead on the L1 distance of the closed-form
// histograms (expected_count_histograms) to target statistics.
//
// Why Nelder–Mead and not the Levenberg–Marquardt of src/cost: the objective is an L1 distance
// (not a sum of squares, and not smooth where a bin's difference changes sign), and the trace
// module sits below cost in the module order (CMakeLists.txt), so it cannot use that solver.
#include "shardsim/trace/trace_fit.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "shardsim/core/parallel_for.hpp"
#include "shardsim/trace/power_law_profile.hpp"

namespace shardsim {

namespace {

constexpr double kMaxLog10Rows = 12.0;  // 10^12 rows
constexpr double kMaxAlpha = 4.0;
constexpr double kMaxLog10OnePlusQ = 7.0;

using Objective = std::function<double(const std::vector<double>&)>;

struct Minimum {
  std::vector<double> x;
  double f = 0;
  int evaluations = 0;
};

// Nelder–Mead (Nelder & Mead 1965; the standard coefficients 1, 2, 1/2, 1/2 of Lagarias et al.
// 1998) from x0 with initial steps `step` per coordinate.
Minimum nelder_mead(const Objective& f, std::vector<double> x0, const std::vector<double>& step,
                    int max_evaluations, double tolerance) {
  const std::size_t n = x0.size();
  std::vector<std::vector<double>> s(n + 1, x0);
  std::vector<double> fs(n + 1);
  int evals = 0;
  const auto eval = [&](const std::vector<double>& x) {
    ++evals;
    return f(x);
  };
  for (std::size_t i = 0; i < n; ++i) s[i + 1][i] += step[i];
  for (std::size_t i = 0; i <= n; ++i) fs[i] = eval(s[i]);
  std::vector<std::size_t> order(n + 1);
  std::vector<double> centroid(n), xr(n), xe(n), xc(n);
  while (evals < max_evaluations) {
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return fs[a] < fs[b]; });
    const std::size_t best = order[0], worst = order[n], second = order[n - 1];
    if (fs[worst] - fs[best] < tolerance) break;
    std::fill(centroid.begin(), centroid.end(), 0.0);
    for (std::size_t i = 0; i <= n; ++i)
      if (i != worst)
        for (std::size_t d = 0; d < n; ++d) centroid[d] += s[i][d] / static_cast<double>(n);
    for (std::size_t d = 0; d < n; ++d) xr[d] = centroid[d] + (centroid[d] - s[worst][d]);
    const double fr = eval(xr);
    if (fr < fs[best]) {
      for (std::size_t d = 0; d < n; ++d) xe[d] = centroid[d] + 2 * (xr[d] - centroid[d]);
      const double fe = eval(xe);
      if (fe < fr) {
        s[worst] = xe;
        fs[worst] = fe;
      } else {
        s[worst] = xr;
        fs[worst] = fr;
      }
      continue;
    }
    if (fr < fs[second]) {
      s[worst] = xr;
      fs[worst] = fr;
      continue;
    }
    const bool outside = fr < fs[worst];
    for (std::size_t d = 0; d < n; ++d)
      xc[d] = outside ? centroid[d] + 0.5 * (xr[d] - centroid[d])
                      : centroid[d] + 0.5 * (s[worst][d] - centroid[d]);
    const double fc = eval(xc);
    if (fc < (outside ? fr : fs[worst])) {
      s[worst] = xc;
      fs[worst] = fc;
      continue;
    }
    for (std::size_t i = 0; i <= n; ++i) {  // shrink towards the best
      if (i == best) continue;
      for (std::size_t d = 0; d < n; ++d) s[i][d] = s[best][d] + 0.5 * (s[i][d] - s[best][d]);
      fs[i] = eval(s[i]);
    }
  }
  const auto b = static_cast<std::size_t>(std::min_element(fs.begin(), fs.end()) - fs.begin());
  return Minimum{s[b], fs[b], evals};
}

// Runs Nelder–Mead, then `restarts` more times from the best point with a fresh simplex.
Minimum minimise(const Objective& f, std::vector<double> x0, const std::vector<double>& step,
                 const FitOptions& o) {
  Minimum m = nelder_mead(f, std::move(x0), step, o.max_evaluations, o.tolerance);
  for (int r = 0; r < o.restarts; ++r) {
    Minimum next = nelder_mead(f, m.x, step, o.max_evaluations, o.tolerance);
    next.evaluations += m.evaluations;
    const bool better = next.f < m.f - o.tolerance;
    m = next.f <= m.f ? std::move(next) : Minimum{m.x, m.f, next.evaluations};
    if (!better) break;
  }
  return m;
}

// How far (log10 rows, alpha, log10(1 + q)) lies outside the box class_of clamps to: added to
// the objective so that the clamped region is not flat (Nelder–Mead would wander in it).
double outside_box(double log10_rows, double alpha, double log10_one_plus_q) {
  const auto out = [](double x, double hi) { return std::max(0.0, -x) + std::max(0.0, x - hi); };
  return out(log10_rows, kMaxLog10Rows) + out(alpha, kMaxAlpha) +
         out(log10_one_plus_q, kMaxLog10OnePlusQ);
}

TableClass class_of(double log10_rows, double alpha, double log10_one_plus_q) {
  TableClass c;
  c.rows = static_cast<std::uint64_t>(
      std::llround(std::pow(10.0, std::clamp(log10_rows, 0.0, kMaxLog10Rows))));
  c.rows = std::max<std::uint64_t>(c.rows, 1);
  c.alpha = std::clamp(alpha, 0.0, kMaxAlpha);
  c.q = std::pow(10.0, std::clamp(log10_one_plus_q, 0.0, kMaxLog10OnePlusQ)) - 1.0;
  return c;
}

EmbeddingTable table_of(const TableClass& c, double pooling) {
  EmbeddingTable t;
  t.name = "fit";
  t.rows = c.rows;
  t.dim = 16;
  t.pooling.kind = PoolingSpec::Kind::fixed;
  t.pooling.value = pooling;
  t.alpha = c.alpha;
  t.q = c.q;
  return t;
}

CountHistograms class_histograms(const TableClass& c, double lookups, double cell_ratio) {
  const PowerLawProfile p(table_of(c, 1.0), HotRowLayout::clustered, 0);
  return expected_count_histograms(p, lookups, cell_ratio);
}

std::vector<double> softmax(std::span<const double> u) {
  const double top = *std::max_element(u.begin(), u.end());
  std::vector<double> w;
  double sum = 0;
  for (double x : u) sum += std::exp(x - top);
  for (double x : u) w.push_back(std::exp(x - top) / sum);
  return w;
}

}  // namespace

HistogramDistances histogram_distances(const CountHistograms& h, const CountShares& target,
                                       std::size_t open_bin) {
  return HistogramDistances{l1_distance(bin_shares(h.rows, open_bin), target.rows),
                            l1_distance(bin_shares(h.lookups, open_bin), target.lookups)};
}

CountHistograms expected_overall_histograms(std::span<const EmbeddingTable> tables, double batch,
                                            double cell_ratio) {
  CountHistograms all;
  for (const EmbeddingTable& t : tables) {
    const PowerLawProfile p(t, HotRowLayout::clustered, 0);
    all.add(expected_count_histograms(p, batch * t.pooling.expected(), cell_ratio));
  }
  return all;
}

PopulationFit fit_population(const FitTarget& target, const FitOptions& o) {
  const int k = std::max(1, o.classes);
  const double n = target.batch_size * target.pooling;
  const std::size_t open = target.open_bin();
  // x = [log10 rows, alpha, log10(1 + q)] per class, then k share logits.
  const auto decode = [&](const std::vector<double>& x) {
    std::vector<TableClass> cs;
    const auto w = softmax(std::span(x).subspan(3 * static_cast<std::size_t>(k)));
    for (int c = 0; c < k; ++c) {
      cs.push_back(class_of(x[3 * c], x[3 * c + 1], x[3 * c + 2]));
      cs.back().share = w[static_cast<std::size_t>(c)];
    }
    return cs;
  };
  const auto histograms = [&](const std::vector<TableClass>& cs, double ratio) {
    CountHistograms h;
    for (const TableClass& c : cs) h.add(class_histograms(c, n, ratio), c.share);
    return h;
  };
  const Objective f = [&](const std::vector<double>& x) {
    double penalty = 0;
    for (int c = 0; c < k; ++c) penalty += outside_box(x[3 * c], x[3 * c + 1], x[3 * c + 2]);
    return histogram_distances(histograms(decode(x), o.search_cell_ratio), target.overall, open)
               .sum() +
           penalty;
  };
  // Starts: classes spread over 10^3 .. 10^9 rows, alpha 1, equal shares, and q = 0 or
  // 10^0.5 - 1 = 2.2 for all; the better end wins (the L1 surface has local minima: one start
  // alone left the 2022 target at 0.087 on the lookups instead of 0.047).
  Minimum m;
  for (const double lq0 : {0.0, 0.5}) {
    std::vector<double> x0, step;
    for (int c = 0; c < k; ++c) {
      x0.insert(x0.end(), {k == 1 ? 6.0 : 3.0 + 6.0 * c / (k - 1), 1.0, lq0});
      step.insert(step.end(), {1.0, 0.3, 1.0});
    }
    for (int c = 0; c < k; ++c) {
      x0.push_back(0.0);
      step.push_back(1.0);
    }
    Minimum run = minimise(f, x0, step, o);
    run.evaluations += m.evaluations;
    if (m.x.empty() || run.f < m.f) {
      m = std::move(run);
    } else {
      m.evaluations = run.evaluations;
    }
  }
  PopulationFit fit;
  fit.classes = decode(m.x);
  fit.after = histogram_distances(histograms(fit.classes, 1.02), target.overall, open);
  fit.evaluations = m.evaluations;
  return fit;
}

std::vector<EmbeddingTable> population_tables(std::span<const TableClass> classes,
                                              std::uint64_t count, double pooling,
                                              std::uint32_t dim, const std::string& prefix) {
  // Largest remainders.
  std::vector<std::uint64_t> per(classes.size());
  std::vector<std::pair<double, std::size_t>> rest;
  std::uint64_t given = 0;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    const double exact = classes[c].share * static_cast<double>(count);
    per[c] = static_cast<std::uint64_t>(std::floor(exact));
    given += per[c];
    rest.emplace_back(-(exact - std::floor(exact)), c);
  }
  std::stable_sort(rest.begin(), rest.end());
  for (std::size_t i = 0; given < count && i < rest.size(); ++i, ++given) ++per[rest[i].second];
  std::vector<EmbeddingTable> out;
  for (std::size_t c = 0; c < classes.size(); ++c)
    for (std::uint64_t i = 0; i < per[c]; ++i) {
      EmbeddingTable t = table_of(classes[c], pooling);
      t.name = prefix + std::to_string(c) + "_" + std::to_string(i);
      t.dim = dim;
      out.push_back(std::move(t));
    }
  return out;
}

std::vector<TableFit> fit_tables(const FitTarget& target, const FitOptions& o, int jobs) {
  std::vector<TableFit> out(target.per_table.size());
  parallel_for(out.size(), jobs, [&](std::size_t i) {
    const TableTarget& tt = target.per_table[i];
    const bool free_rows = !tt.rows.has_value();
    // Without rows, start at 10x the lookups (most rows seen about once).
    const double log_rows0 =
        free_rows ? std::log10(std::max(10.0, 10 * tt.lookups)) : std::log10(double(*tt.rows));
    const auto decode = [&](const std::vector<double>& x) {
      TableClass c = class_of(free_rows ? x[2] : log_rows0, x[0], x[1]);
      if (!free_rows) c.rows = *tt.rows;
      return c;
    };
    const auto dist = [&](const TableClass& c, double ratio) {
      return histogram_distances(class_histograms(c, tt.lookups, ratio), tt.hist, 0);
    };
    const Objective f = [&](const std::vector<double>& x) {
      return dist(decode(x), o.search_cell_ratio).sum() +
             outside_box(free_rows ? x[2] : log_rows0, x[0], x[1]);
    };
    // Start inside the box (q = 10^0.5 - 1 = 2.2), not on its edge.
    std::vector<double> x0{1.0, 0.5}, step{0.3, 1.0};
    if (free_rows) {
      x0.push_back(log_rows0);
      step.push_back(1.0);
    }
    FitOptions per = o;
    per.max_evaluations = std::min(o.max_evaluations, 300);
    per.restarts = std::min(o.restarts, 1);
    const Minimum m = minimise(f, x0, step, per);
    TableFit r;
    r.before = dist(decode(x0), 1.02);
    r.fitted = decode(m.x);
    r.after = dist(r.fitted, 1.02);
    out[i] = r;
  });
  return out;
}

}  // namespace shardsim
