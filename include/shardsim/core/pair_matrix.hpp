#pragma once
// An N x N matrix of what GPU `src` sends to GPU `dst` (bytes, rows: the unit is the holder's),
// stored as three parts that add up:
//   - a dense part, allocated on the first add(): any pattern;
//   - a broadcast part: `src` sends the same amount to every other GPU (add_to_every_other);
//   - a gather part: every other GPU sends the same amount to `dst` (add_from_every_other).
// At thousands of GPUs the patterns of uniform traffic (a block on one GPU fetched by every
// other, its gradients put back) are the last two, and a dense 4096 x 4096 matrix of doubles is
// 134 MB to allocate and zero for each of them; sums over them take O(N), not O(N²). The diagonal
// is always 0.
#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

#include "shardsim/core/byte_matrix.hpp"

namespace shardsim {

class PairMatrix {
 public:
  PairMatrix() = default;
  explicit PairMatrix(int n)
      : n_(n),
        to_every_other_(static_cast<std::size_t>(n), 0.0),
        from_every_other_(static_cast<std::size_t>(n), 0.0) {}
  // A dense matrix as it is (its diagonal must be 0).
  explicit PairMatrix(ByteMatrix dense) : PairMatrix(dense.size()) {
    for (int i = 0; i < n_; ++i) {
      if (dense.at(i, i) != 0) throw std::invalid_argument("PairMatrix: non-zero diagonal");
    }
    dense_ = std::move(dense);
  }

  int size() const { return n_; }
  bool has_dense_part() const { return dense_.size() > 0; }

  // Entry (src, dst): dense + broadcast of src + gather of dst, in that order (0 for src == dst).
  double at(int src, int dst) const {
    if (src == dst) return 0;
    const double dense = dense_.size() > 0 ? dense_.at(src, dst) : 0.0;
    return dense + to_every_other_[static_cast<std::size_t>(src)] +
           from_every_other_[static_cast<std::size_t>(dst)];
  }
  // Adds to one pair (src != dst).
  void add(int src, int dst, double amount) {
    if (dense_.size() == 0) dense_ = ByteMatrix(n_);
    dense_.at(src, dst) += amount;
  }
  // `src` sends `amount` more to every other GPU.
  void add_to_every_other(int src, double amount) {
    to_every_other_[static_cast<std::size_t>(src)] += amount;
  }
  // Every other GPU sends `amount` more to `dst`.
  void add_from_every_other(int dst, double amount) {
    from_every_other_[static_cast<std::size_t>(dst)] += amount;
  }

  // The broadcast and gather parts, per GPU (entry (src, dst) without a dense part is
  // 0.0 + to_every_other()[src] + from_every_other()[dst], as at() sums it).
  const std::vector<double>& to_every_other() const { return to_every_other_; }
  const std::vector<double>& from_every_other() const { return from_every_other_; }

  // Every GPU's sent_by and received_by at once. With a dense part, entry by entry (the same
  // numbers as sent_by and received_by, bit for bit); without one, in O(N) from the broadcast and
  // gather parts: sent[src] = (n - 1) to[src] + the sum of from[j] over j != src (prefix and
  // suffix sums, no cancellation), received likewise. Those equal the entry-by-entry sums up to
  // rounding (a few ulps), not bit for bit.
  struct Sums {
    std::vector<double> sent, received;
  };
  Sums sums() const;
  // The sum of every entry: O(N) without a dense part (the same rounding caveat as sums()).
  double total() const;

  // Sums entry by entry (the same numbers, bit for bit, as a dense matrix of the entries gives).
  double sent_by(int src) const {
    double s = 0;
    for (int j = 0; j < n_; ++j) s += at(src, j);
    return s;
  }
  double received_by(int dst) const {
    double s = 0;
    for (int i = 0; i < n_; ++i) s += at(i, dst);
    return s;
  }

 private:
  int n_ = 0;
  ByteMatrix dense_;
  std::vector<double> to_every_other_, from_every_other_;
};

}  // namespace shardsim
