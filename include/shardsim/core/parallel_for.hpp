#pragma once
// Runs f(i) for i in [0, n) on up to `jobs` threads (the calling thread is one of them), handing
// out indices in increasing order. After an error no new index is handed out; the error of the
// lowest index is rethrown once every thread has stopped. That error is the one a sequential
// loop would have thrown first (every lower index was handed out before it), so the outcome does
// not depend on `jobs`. f must be safe to call concurrently for different indices.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace shardsim {

template <class F>
void parallel_for(std::size_t n, int jobs, F&& f) {
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(n);
  const auto worker = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      try {
        f(i);
      } catch (...) {
        errors[i] = std::current_exception();
        next = n;  // stop handing out indices
      }
    }
  };
  const int threads = std::max(1, std::min<int>(jobs, static_cast<int>(n)));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace shardsim
