// Sums of a PairMatrix (core/pair_matrix.hpp).
#include "shardsim/core/pair_matrix.hpp"

namespace shardsim {

namespace {

// Per i, the sum of v[j] over j != i: a prefix sum and a suffix sum, added.
std::vector<double> sums_of_others(const std::vector<double>& v) {
  const std::size_t n = v.size();
  std::vector<double> before(n, 0.0), out(n, 0.0);
  double acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    before[i] = acc;
    acc += v[i];
  }
  acc = 0;
  for (std::size_t i = n; i-- > 0;) {
    out[i] = before[i] + acc;
    acc += v[i];
  }
  return out;
}

}  // namespace

PairMatrix::Sums PairMatrix::sums() const {
  const auto un = static_cast<std::size_t>(n_);
  Sums out;
  if (has_dense_part()) {
    out.sent.assign(un, 0.0);
    out.received.assign(un, 0.0);
    for (int i = 0; i < n_; ++i) {
      for (int j = 0; j < n_; ++j) {
        const double e = at(i, j);
        out.sent[static_cast<std::size_t>(i)] += e;
        out.received[static_cast<std::size_t>(j)] += e;
      }
    }
    return out;
  }
  const double others = n_ > 0 ? n_ - 1.0 : 0.0;
  out.sent = sums_of_others(from_every_other_);
  out.received = sums_of_others(to_every_other_);
  for (std::size_t g = 0; g < un; ++g) {
    out.sent[g] += others * to_every_other_[g];
    out.received[g] += others * from_every_other_[g];
  }
  return out;
}

double PairMatrix::total() const {
  if (has_dense_part()) {
    double s = 0;
    for (int i = 0; i < n_; ++i) {
      for (int j = 0; j < n_; ++j) s += at(i, j);
    }
    return s;
  }
  double to = 0, from = 0;
  for (int g = 0; g < n_; ++g) {
    to += to_every_other_[static_cast<std::size_t>(g)];
    from += from_every_other_[static_cast<std::size_t>(g)];
  }
  const double others = n_ > 0 ? n_ - 1.0 : 0.0;
  return others * to + others * from;
}

}  // namespace shardsim
