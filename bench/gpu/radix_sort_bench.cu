// Times the index work of an embedding backward as FBGEMM's TBE does it before the fused
// update (Neo §5.1, "gradient sorting by rows"): cub's radix sort of (int64 linear row id,
// int32 position) pairs over only the low `end_bit` key bits, then the run-length encoding of
// the sorted ids into segments. Not built by CMake and never run in CI: build and run it on a
// GPU machine,
//   nvcc -O3 -std=c++17 -arch=native -o /tmp/radix_sort_bench bench/gpu/radix_sort_bench.cu
//   /tmp/radix_sort_bench > radix_sort.jsonl
// One JSON object per line: lookups, end_bit, median seconds of the sort and of sort + encode
// over 15 timed passes (CUDA events) after one warm-up. Row ids are a hash of the position,
// masked to end_bit bits: uniform over 2^end_bit rows.
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#define CHECK(x)                                                             \
  do {                                                                       \
    cudaError_t e_ = (x);                                                    \
    if (e_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                   cudaGetErrorString(e_));                                  \
      return 1;                                                              \
    }                                                                        \
  } while (0)

__global__ void fill(int64_t* keys, int32_t* positions, int64_t n, uint64_t mask) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  uint64_t z = static_cast<uint64_t>(i) + 0x9E3779B97F4A7C15ull;  // splitmix64
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  keys[i] = static_cast<int64_t>(z & mask);
  positions[i] = static_cast<int32_t>(i);
}

static double median(std::vector<float> ms) {
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  return 1e-3 * (n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]));
}

int main() {
  const int64_t sizes[] = {1 << 20, 8 << 20, 64 << 20};
  const int end_bits[] = {20, 24, 27, 32, 64};
  const int reps = 15;
  for (int64_t n : sizes) {
    int64_t *keys, *keys_out, *unique_out, *runs_out;
    int32_t *pos, *pos_out;
    int64_t* num_runs;
    CHECK(cudaMalloc(&keys, n * 8));
    CHECK(cudaMalloc(&keys_out, n * 8));
    CHECK(cudaMalloc(&unique_out, n * 8));
    CHECK(cudaMalloc(&runs_out, n * 8));
    CHECK(cudaMalloc(&pos, n * 4));
    CHECK(cudaMalloc(&pos_out, n * 4));
    CHECK(cudaMalloc(&num_runs, 8));
    for (int end_bit : end_bits) {
      const uint64_t mask = end_bit >= 64 ? ~0ull : ((1ull << end_bit) - 1);
      fill<<<(n + 255) / 256, 256>>>(keys, pos, n, mask);
      CHECK(cudaGetLastError());
      size_t sort_bytes = 0, rle_bytes = 0;
      CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, keys_out, pos, pos_out,
                                            n, 0, end_bit));
      CHECK(cub::DeviceRunLengthEncode::Encode(nullptr, rle_bytes, keys_out, unique_out,
                                               runs_out, num_runs, n));
      void* temp;
      CHECK(cudaMalloc(&temp, std::max(sort_bytes, rle_bytes)));
      cudaEvent_t a, b, c;
      CHECK(cudaEventCreate(&a));
      CHECK(cudaEventCreate(&b));
      CHECK(cudaEventCreate(&c));
      std::vector<float> sort_ms, all_ms;
      for (int r = 0; r <= reps; ++r) {
        CHECK(cudaEventRecord(a));
        CHECK(cub::DeviceRadixSort::SortPairs(temp, sort_bytes, keys, keys_out, pos, pos_out,
                                              n, 0, end_bit));
        CHECK(cudaEventRecord(b));
        CHECK(cub::DeviceRunLengthEncode::Encode(temp, rle_bytes, keys_out, unique_out,
                                                 runs_out, num_runs, n));
        CHECK(cudaEventRecord(c));
        CHECK(cudaEventSynchronize(c));
        float s = 0, t = 0;
        CHECK(cudaEventElapsedTime(&s, a, b));
        CHECK(cudaEventElapsedTime(&t, a, c));
        if (r > 0) {  // pass 0 warms up
          sort_ms.push_back(s);
          all_ms.push_back(t);
        }
      }
      std::printf("{\"lookups\": %lld, \"end_bit\": %d, \"sort_s\": %.9g, "
                  "\"sort_and_segments_s\": %.9g}\n",
                  static_cast<long long>(n), end_bit, median(sort_ms), median(all_ms));
      std::fflush(stdout);
      CHECK(cudaFree(temp));
      CHECK(cudaEventDestroy(a));
      CHECK(cudaEventDestroy(b));
      CHECK(cudaEventDestroy(c));
    }
    CHECK(cudaFree(keys));
    CHECK(cudaFree(keys_out));
    CHECK(cudaFree(unique_out));
    CHECK(cudaFree(runs_out));
    CHECK(cudaFree(pos));
    CHECK(cudaFree(pos_out));
    CHECK(cudaFree(num_runs));
  }
  return 0;
}
