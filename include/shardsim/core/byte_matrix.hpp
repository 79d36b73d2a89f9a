#pragma once
// A dense N x N matrix of bytes sent from GPU i (row) to GPU j (column).
#include <cstddef>
#include <vector>

namespace shardsim {

class ByteMatrix {
 public:
  ByteMatrix() = default;
  explicit ByteMatrix(int n) : n_(n), bytes_(static_cast<std::size_t>(n) * n, 0.0) {}
  int size() const { return n_; }
  double& at(int src, int dst) { return bytes_[static_cast<std::size_t>(src) * n_ + dst]; }
  double at(int src, int dst) const { return bytes_[static_cast<std::size_t>(src) * n_ + dst]; }
  double total() const {
    double s = 0;
    for (double b : bytes_) s += b;
    return s;
  }
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
  ByteMatrix& operator+=(const ByteMatrix& o) {
    for (std::size_t k = 0; k < bytes_.size(); ++k) bytes_[k] += o.bytes_[k];
    return *this;
  }

 private:
  int n_ = 0;
  std::vector<double> bytes_;
};

}  // namespace shardsim
