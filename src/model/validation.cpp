#include "shardsim/model/validation.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace shardsim {

namespace {

bool is_integer(double v) {
  return std::isfinite(v) && std::floor(v) == v;
}

std::optional<SpecProblem> problem(std::string key, std::string what, std::string hint = {}) {
  return SpecProblem{std::move(key), std::move(what), std::move(hint)};
}

// Shared by normal and lognormal: min and max are clip bounds.
std::optional<SpecProblem> check_clip_bounds(const PoolingSpec& p) {
  if (!std::isfinite(p.min) || p.min < 0)
    return problem("min", fmt::format("expected a non-negative number, found {}", p.min));
  if (!std::isfinite(p.max) || p.max < 0)
    return problem("max", fmt::format("expected a non-negative number, found {}", p.max),
                   "max: 0 means no upper clip");
  if (p.max > 0 && p.min > p.max)
    return problem("min", fmt::format("min ({}) is larger than max ({})", p.min, p.max));
  return std::nullopt;
}

// A pooling count (a value, a mean or a clip bound) beyond kMaxPooling.
std::optional<SpecProblem> beyond_max_pooling(const char* key, double v) {
  if (!(v > kMaxPooling)) return std::nullopt;  // NaN is the finite checks' to report
  return problem(key,
                 fmt::format("expected at most {:.0f} lookups a sample, found {}", kMaxPooling, v),
                 "pooling counts the rows one sample looks up in the table; real tables pool "
                 "1 to a few thousand");
}

}  // namespace

std::optional<SpecProblem> check_pooling(const PoolingSpec& p) {
  using Kind = PoolingSpec::Kind;
  if (!std::isfinite(p.keep) || !(p.keep > 0) || p.keep > 1)
    return problem("keep",
                   fmt::format("expected a survival probability in (0, 1], found {}", p.keep));
  // sigma is a count for normal only (lognormal's is of the log).
  const double count_sigma = p.kind == Kind::normal ? p.sigma : 0.0;
  for (const auto& [key, v] :
       {std::pair{"value", p.value}, std::pair{"mean", p.mean}, std::pair{"sigma", count_sigma},
        std::pair{"min", p.min}, std::pair{"max", p.max}}) {
    if (auto bad = beyond_max_pooling(key, v)) return bad;
  }
  switch (p.kind) {
    case Kind::fixed:
      if (!std::isfinite(p.value) || p.value < 0)
        return problem("value",
                       fmt::format("expected a non-negative pooling factor, found {}", p.value));
      return std::nullopt;
    case Kind::uniform:
      if (!is_integer(p.min) || p.min < 0)
        return problem("min", fmt::format("expected a non-negative integer, found {}", p.min));
      if (!is_integer(p.max) || p.max < 0)
        return problem("max", fmt::format("expected a non-negative integer, found {}", p.max));
      if (p.min > p.max)
        return problem("max", fmt::format("max ({}) is smaller than min ({})", p.max, p.min));
      return std::nullopt;
    case Kind::normal:
      if (!std::isfinite(p.mean) || p.mean < 0)
        return problem("mean", fmt::format("expected a non-negative mean, found {}", p.mean));
      if (!std::isfinite(p.sigma) || p.sigma < 0)
        return problem(
            "sigma", fmt::format("expected a non-negative standard deviation, found {}", p.sigma));
      return check_clip_bounds(p);
    case Kind::lognormal:
      if (!std::isfinite(p.mean) || p.mean <= 0)
        return problem("mean", fmt::format("expected a positive mean, found {}", p.mean),
                       "lognormal pooling takes the mean of the distribution, not of its log");
      if (!std::isfinite(p.sigma) || p.sigma < 0)
        return problem("sigma",
                       fmt::format("expected a non-negative sigma of the log, found {}", p.sigma));
      return check_clip_bounds(p);
    case Kind::histogram: {
      if (p.histogram.empty())
        return problem("histogram", "expected at least one (value, weight) pair");
      double total = 0;
      for (std::size_t i = 0; i < p.histogram.size(); ++i) {
        const auto& [v, w] = p.histogram[i];
        if (!std::isfinite(v) || v < 0)
          return problem(fmt::format("histogram[{}]", i),
                         fmt::format("expected a non-negative pooling value, found {}", v));
        if (auto bad = beyond_max_pooling("histogram", v)) {
          bad->key = fmt::format("histogram[{}]", i);
          return bad;
        }
        if (!std::isfinite(w) || w < 0)
          return problem(fmt::format("histogram[{}]", i),
                         fmt::format("expected a non-negative weight, found {}", w));
        total += w;
      }
      if (!(total > 0)) return problem("histogram", "all weights are zero");
      return std::nullopt;
    }
  }
  return problem("dist", "unknown pooling distribution");
}

std::optional<SpecProblem> check_table(const EmbeddingTable& t) {
  if (t.rows == 0) return problem("rows", "expected at least one row, found 0");
  if (t.dim == 0) return problem("dim", "expected a positive dimension, found 0");
  if (!std::isfinite(t.alpha) || t.alpha < 0)
    return problem("alpha", fmt::format("expected a finite exponent >= 0, found {}", t.alpha),
                   "alpha 0 is uniform; typical power laws have alpha between 0.5 and 1.5");
  if (t.alpha > kMaxAlpha)
    return problem("alpha", fmt::format("expected an exponent <= {}, found {}", kMaxAlpha, t.alpha),
                   "the access model is accurate up to alpha 50; beyond alpha 5 the hottest row "
                   "takes almost every lookup already");
  if (!std::isfinite(t.q) || t.q < 0)
    return problem("q", fmt::format("expected a finite offset >= 0, found {}", t.q),
                   "p(k) ~ (k + q)^-alpha; q = 0 is plain Zipf");
  if (t.q > kMaxQ)
    return problem("q", fmt::format("expected an offset <= {:.0e}, found {}", kMaxQ, t.q),
                   "ranks stay exact in the samplers up to q 1e12; a q far above the row count "
                   "is uniform: write alpha 0");
  const auto& h = t.heavy_hitters;
  if (h.size() > t.rows)
    return problem("heavy_hitters",
                   fmt::format("{} heavy hitters for a table of {} rows", h.size(), t.rows));
  double sum = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    const std::string key = fmt::format("heavy_hitters[{}]", i);
    if (!std::isfinite(h[i]) || h[i] < 0 || h[i] > 1)
      return problem(key, fmt::format("expected a probability in [0, 1], found {}", h[i]));
    if (i > 0 && h[i] > h[i - 1])
      return problem(key,
                     fmt::format("heavy hitters must not increase ({} after {})", h[i], h[i - 1]),
                     "list the hottest row first");
    sum += h[i];
  }
  constexpr double kTolerance = 1e-9;
  if (sum > 1 + kTolerance)
    return problem("heavy_hitters", fmt::format("the probabilities sum to {} > 1", sum));
  if (!h.empty() && h.size() == t.rows && std::abs(sum - 1) > kTolerance)
    return problem(
        "heavy_hitters",
        fmt::format("every row is a heavy hitter but the probabilities sum to {}, not 1", sum),
        "list fewer heavy hitters than rows, or make them sum to 1");
  const double f = t.pruning.fraction;
  if (!std::isfinite(f) || f < 0 || f >= 1)
    return problem("prune_fraction", fmt::format("expected a fraction in [0, 1), found {}", f),
                   "the share of the table's rows to prune, coldest first; 0 keeps every row");
  if (auto p = check_pooling(t.pooling)) {
    p->key = "pooling." + p->key;
    return p;
  }
  return std::nullopt;
}

void require_valid_table(const EmbeddingTable& table) {
  if (auto problem = check_table(table))
    throw std::invalid_argument("table '" + table.name + "': " + problem->key + ": " +
                                problem->problem);
}

}  // namespace shardsim
