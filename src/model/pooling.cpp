#include "shardsim/model/pooling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "model/normal_math.hpp"
#include "shardsim/core/rng.hpp"

namespace shardsim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Beyond this many standard deviations (of X, or of log X) a distribution's mass (< 1e-32) is
// ignored when summing its integer probabilities.
constexpr double kSupportSigmas = 12.0;
// Integer values summed exactly; a wider support sums the first kExactPrefix values exactly and
// treats the rest as continuous with Sheppard's correction (+1/12 to the second moment), whose
// error there is far below 1e-6 because the density is smooth on the unit scale.
constexpr double kExactTerms = 1024.0;
constexpr double kExactPrefix = 256.0;

struct Moments {
  double mean = 0;
  double variance = 0;
};

// E[1], E[X - s], E[(X - s)^2] restricted to an interval.
struct PartialMoments {
  double m0 = 0;
  double m1 = 0;
  double m2 = 0;
};

// floor(v) + Bernoulli(frac(v)): an integer with mean v.
double integerise(double v, Rng& rng) {
  const double whole = std::floor(v);
  const double frac = v - whole;
  if (frac <= 0.0) return whole;
  return whole + (rng.uniform01() < frac ? 1.0 : 0.0);
}

double integerise_variance(double v) {
  const double frac = v - std::floor(v);
  return frac * (1.0 - frac);
}

// Clip bounds of normal and lognormal pooling: [max(0, min), max], no upper bound when max == 0.
double clip_lo(const PoolingSpec& p) {
  return std::max(0.0, p.min);
}
double clip_hi(const PoolingSpec& p) {
  return p.max > 0 ? p.max : kInf;
}
double clip(double x, double lo, double hi) {
  return std::min(std::max(x, lo), hi);
}

double lognormal_mu(const PoolingSpec& p) {
  return std::log(p.mean) - 0.5 * p.sigma * p.sigma;
}

// Moments of K = round(clip(X, a, b)) for a continuous X.
//   cdf(x): P(X < x); partial(lo, hi): PartialMoments of X over (lo, hi) about `shift`;
//   [x_lo, x_hi]: the support of X outside which its mass is negligible.
// P(K = k) = G(k + 1/2) - G(k - 1/2) with G(t) = P(clip(X) < t) (std::round rounds halves up).
template <class Cdf, class Partial>
Moments rounded_clipped_moments(double a, double b, double x_lo, double x_hi, double shift, Cdf cdf,
                                Partial partial) {
  const auto G = [&](double t) {
    if (t <= a) return 0.0;
    if (t > b) return 1.0;
    return cdf(t);
  };
  const double k_min = std::round(a);
  const double k_max = std::isinf(b) ? kInf : std::round(b);
  const double k_lo = clip(std::floor(x_lo), k_min, k_max);
  const double k_hi = clip(std::ceil(x_hi), k_min, k_max);
  if (!(k_hi > k_lo)) return {k_lo, 0.0};

  PartialMoments acc;
  const auto add = [&](double k, double prob) {
    const double d = k - shift;
    acc.m0 += prob;
    acc.m1 += prob * d;
    acc.m2 += prob * d * d;
  };
  const bool all_exact = k_hi - k_lo + 1.0 <= kExactTerms;
  const double k_last_exact = all_exact ? k_hi : k_lo + kExactPrefix;
  for (double k = k_lo; k <= k_last_exact; k += 1.0) {
    const double upper = (all_exact && k == k_hi) ? 1.0 : G(k + 0.5);
    const double lower = k == k_lo ? 0.0 : G(k - 0.5);
    add(k, upper - lower);
  }
  if (!all_exact) {
    // Continuous part: X in [k_last_exact + 1/2, b), plus the atom at b.
    const PartialMoments tail = partial(k_last_exact + 0.5, b);
    acc.m0 += tail.m0;
    acc.m1 += tail.m1;
    acc.m2 += tail.m2 + tail.m0 / 12.0;  // Sheppard's correction for rounding
    if (!std::isinf(b)) add(k_max, 1.0 - cdf(b));
  }
  const double m1 = acc.m1 / acc.m0;
  return {shift + m1, std::max(0.0, acc.m2 / acc.m0 - m1 * m1)};
}

Moments normal_moments(const PoolingSpec& p) {
  const double a = clip_lo(p);
  const double b = clip_hi(p);
  const double mu = p.mean;
  const double sd = p.sigma;
  if (sd <= 0.0) return {std::round(clip(mu, a, b)), 0.0};
  const double shift = std::round(clip(mu, a, b));
  const auto cdf = [&](double x) { return detail::normal_cdf((x - mu) / sd); };
  const auto partial = [&](double lo, double hi) {
    // X = mu + sd·Z: E[Z; lo' < Z < hi'] = phi(lo') - phi(hi'),
    // E[Z^2; ...] = P + lo'·phi(lo') - hi'·phi(hi').
    const double zl = (lo - mu) / sd;
    const double zh = (hi - mu) / sd;
    const double pr = detail::normal_prob_between(zl, zh);
    const double ez = detail::normal_pdf(zl) - detail::normal_pdf(zh);
    const auto zphi = [](double z) { return std::isinf(z) ? 0.0 : z * detail::normal_pdf(z); };
    const double ez2 = pr + zphi(zl) - zphi(zh);
    const double d = mu - shift;
    return PartialMoments{pr, d * pr + sd * ez, d * d * pr + 2 * d * sd * ez + sd * sd * ez2};
  };
  return rounded_clipped_moments(a, b, mu - kSupportSigmas * sd, mu + kSupportSigmas * sd, shift,
                                 cdf, partial);
}

Moments lognormal_moments(const PoolingSpec& p) {
  const double a = clip_lo(p);
  const double b = clip_hi(p);
  const double sd = p.sigma;
  if (sd <= 0.0) return {std::round(clip(p.mean, a, b)), 0.0};
  const double mu = lognormal_mu(p);
  const double shift = std::round(clip(p.mean, a, b));
  const auto cdf = [&](double x) {
    return x <= 0.0 ? 0.0 : detail::normal_cdf((std::log(x) - mu) / sd);
  };
  const auto partial = [&](double lo, double hi) {
    // E[X^j; lo < X < hi] = exp(j·mu + j²sd²/2)·P(lo' < Z < hi'), with
    // lo' = (ln lo - mu - j·sd²)/sd and hi' likewise.
    const double llo = lo <= 0.0 ? -kInf : std::log(lo);
    const double lhi = std::isinf(hi) ? kInf : std::log(hi);
    double e[3];
    for (int j = 0; j < 3; ++j) {
      const double scale = std::exp(j * mu + 0.5 * j * j * sd * sd);
      e[j] = scale * detail::normal_prob_between((llo - mu - j * sd * sd) / sd,
                                                 (lhi - mu - j * sd * sd) / sd);
    }
    return PartialMoments{e[0], e[1] - shift * e[0],
                          e[2] - 2 * shift * e[1] + shift * shift * e[0]};
  };
  return rounded_clipped_moments(a, b, std::exp(mu - kSupportSigmas * sd),
                                 std::exp(mu + kSupportSigmas * sd), shift, cdf, partial);
}

double histogram_weight(const PoolingSpec& p) {
  double w = 0;
  for (const auto& [value, weight] : p.histogram) w += weight;
  if (!(w > 0)) throw std::invalid_argument("pooling histogram has no positive weight");
  return w;
}

// Binomial(n, keep): each of n lookups kept with probability keep. Bernoulli draws up to
// kThinExactLookups; beyond, the normal approximation with continuity correction, clamped to
// [0, n] (bags that large are rare; the mean stays n·keep).
constexpr double kThinExactLookups = 64.0;
double thin_lookups(double n, double keep, Rng& rng) {
  if (!(n > 0) || keep >= 1) return n;
  if (keep <= 0) return 0.0;
  if (n <= kThinExactLookups) {
    double kept = 0;
    for (double i = 0; i < n; i += 1.0) kept += rng.uniform01() < keep ? 1.0 : 0.0;
    return kept;
  }
  const double sd = std::sqrt(n * keep * (1.0 - keep));
  return clip(std::floor(n * keep + sd * rng.normal() + 0.5), 0.0, n);
}

}  // namespace

double PoolingSpec::expected() const {
  if (keep < 1) {
    // Binomial thinning of the whole draw N: E = keep·E[N].
    PoolingSpec whole = *this;
    whole.keep = 1;
    return keep * whole.expected();
  }
  switch (kind) {
    case Kind::fixed:
      return value;
    case Kind::uniform:
      return 0.5 * (std::ceil(min) + std::floor(max));
    case Kind::normal:
      return normal_moments(*this).mean;
    case Kind::lognormal:
      return lognormal_moments(*this).mean;
    case Kind::histogram: {
      const double w = histogram_weight(*this);
      double s = 0;
      for (const auto& [v, weight] : histogram) s += weight * v;
      return s / w;
    }
  }
  return value;
}

double PoolingSpec::variance() const {
  if (keep < 1) {
    // Var[Binomial(N, s)] = s²·Var[N] + s(1 - s)·E[N].
    PoolingSpec whole = *this;
    whole.keep = 1;
    return keep * keep * whole.variance() + keep * (1.0 - keep) * whole.expected();
  }
  switch (kind) {
    case Kind::fixed:
      return integerise_variance(value);
    case Kind::uniform: {
      // Discrete uniform over n integers: (n² - 1) / 12.
      const double n = std::floor(max) - std::ceil(min) + 1.0;
      return (n * n - 1.0) / 12.0;
    }
    case Kind::normal:
      return normal_moments(*this).variance;
    case Kind::lognormal:
      return lognormal_moments(*this).variance;
    case Kind::histogram: {
      const double w = histogram_weight(*this);
      const double m = expected();
      double s = 0;
      for (const auto& [v, weight] : histogram)
        s += weight * ((v - m) * (v - m) + integerise_variance(v));
      return s / w;
    }
  }
  return 0.0;
}

double PoolingSpec::sample(Rng& rng) const {
  if (keep < 1) {
    PoolingSpec whole = *this;
    whole.keep = 1;
    return thin_lookups(whole.sample(rng), keep, rng);
  }
  switch (kind) {
    case Kind::fixed:
      return integerise(value, rng);
    case Kind::uniform: {
      const double lo = std::ceil(min);
      const auto n = static_cast<std::uint64_t>(std::floor(max) - lo + 1.0);
      return lo + static_cast<double>(rng.below(n));
    }
    case Kind::normal:
      return std::round(clip(mean + sigma * rng.normal(), clip_lo(*this), clip_hi(*this)));
    case Kind::lognormal: {
      const double x = sigma > 0 ? rng.lognormal(lognormal_mu(*this), sigma) : mean;
      return std::round(clip(x, clip_lo(*this), clip_hi(*this)));
    }
    case Kind::histogram: {
      const double target = rng.uniform01() * histogram_weight(*this);
      double acc = 0;
      for (const auto& [v, weight] : histogram) {
        acc += weight;
        if (target < acc) return integerise(v, rng);
      }
      // Rounding left `target` at the total: take the last bucket with weight.
      for (auto it = histogram.rbegin(); it != histogram.rend(); ++it)
        if (it->second > 0) return integerise(it->first, rng);
      return 0.0;
    }
  }
  return 0.0;
}

}  // namespace shardsim
