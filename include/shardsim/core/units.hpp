#pragma once
// Unit constants. Quantities carry their unit in their name (`_bytes`, `_s`, `_Bps`, `_flops`);
// these constants convert at the edges (config files, reports).
namespace shardsim::units {

inline constexpr double kB = 1e3;
inline constexpr double MB = 1e6;
inline constexpr double GB = 1e9;
inline constexpr double TB = 1e12;
inline constexpr double KiB = 1024.0;
inline constexpr double MiB = 1024.0 * 1024.0;
inline constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double ms = 1e-3;
inline constexpr double us = 1e-6;
inline constexpr double ns = 1e-9;
inline constexpr double TFLOPS = 1e12;

// Network rates are quoted in bits per second.
constexpr double gbit_per_s_to_Bps(double gbit_per_s) {
  return gbit_per_s * 1e9 / 8.0;
}

}  // namespace shardsim::units
