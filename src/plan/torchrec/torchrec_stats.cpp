// TorchRec's planner statistics (plan/torchrec/torchrec_stats.hpp).
#include "plan/torchrec/torchrec_stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace shardsim::torchrec {

Imbalance imbalance(std::span<const double> x) {
  Imbalance out;
  const double total = std::accumulate(x.begin(), x.end(), 0.0);
  const auto k = static_cast<double>(x.size());
  if (!(total > 0) || x.empty()) return out;
  double chi = 0, kl = 0;
  for (double v : x) {
    const double p = v / total;
    const double d = std::abs(p - 1 / k);
    out.total_variation = std::max(out.total_variation, d);
    out.total_distance += d;
    chi += k * d * d;
    if (p > 0) kl += p * std::log(k * p);
  }
  const double denom = ((k - 1) / k) * ((k - 1) / k) * k + (k - 1) / k;
  out.chi_divergence = denom > 0 ? chi / denom : 0;
  // Non-negative in exact arithmetic; rounding must not print "-0.000".
  out.kl_divergence = k > 1 ? std::max(0.0, kl / std::log(k)) : 0;
  return out;
}

namespace {

constexpr double kGiB = 1073741824.0;
constexpr double kMiB = 1048576.0;

// Python's str(round(x, digits)): at most `digits` decimals, trailing zeros dropped, at least
// one kept ("1.0").
std::string py_round(double x, int digits) {
  std::string s = fmt::format("{:.{}f}", x, digits);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s += '0';
  }
  if (s == "-0.0") s = "0.0";
  return s;
}

// stats.py's breakdown values: str(round(x)) from 1 up, else one significant figure.
std::string breakdown(double ms) {
  if (ms >= 1) return fmt::format("{:.0f}", std::round(ms));
  return fmt::format("{:g}", std::stod(fmt::format("{:.1g}", ms)));
}

// Sorted ranks as runs: "0-3,8".
std::string rank_runs(const std::vector<int>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]);
    i = j + 1;
  }
  return out;
}

// The ranks whose value is within `tolerance` of `value` (stats.py lists HBM ranks within 1 MB).
std::vector<int> ranks_at(const std::vector<double>& v, double value, double tolerance) {
  std::vector<int> out;
  for (std::size_t r = 0; r < v.size(); ++r) {
    if (std::abs(v[r] - value) <= tolerance) out.push_back(static_cast<int>(r));
  }
  return out;
}

// (max − mean) / mean in percent; never below 0 (max ≥ mean but for rounding).
double above_mean_pct(double max, double mean) {
  return mean > 0 ? std::max(0.0, (max - mean) / mean * 100) : 0.0;
}

std::string imbalance_line(const std::string& what, std::span<const double> x) {
  const Imbalance m = imbalance(x);
  return fmt::format(
      "{} imbalance: Total Variation: {:.3f}, Total Distance: {:.3f}, Chi Divergence: {:.3f}, "
      "KL Divergence: {:.3f}",
      what, m.total_variation, m.total_distance, m.chi_divergence, m.kl_divergence);
}

}  // namespace

std::vector<std::string> stats_lines(const TorchrecResult& r) {
  const int w = r.params.world_size;
  const auto uw = static_cast<std::size_t>(w);
  // HBM and perf per rank as the partitioner left them; HBM with the reservation's dense and
  // KJT parts, as TorchRec reports it.
  std::vector<double> hbm = r.partition.hbm_used_by_rank_bytes;
  for (double& b : hbm) b += r.reserved.dense_bytes + r.reserved.kjt_bytes;
  // DDR per rank: the shards' (_compute_mem_usage_and_perf; the dense and KJT reservations hold
  // no DDR on CUDA), as a share of the rank's ddr_cap (TorchRec's topology, not reserved).
  std::vector<double> ddr = r.partition.ddr_used_by_rank_bytes;
  ddr.resize(uw, 0.0);
  const std::vector<Perf>& perf = r.partition.perf_by_rank;
  std::vector<double> input(uw, 0.0), output(uw, 0.0);
  std::vector<std::map<std::string, int>> shards(uw);
  std::map<std::string, int> used_types;
  for (std::size_t i = 0; i < r.chosen.size(); ++i) {
    const ShardingOption& o = *r.chosen[i];
    used_types[abbreviation(o.type)] = 0;
    for (std::size_t s = 0; s < o.shards.size(); ++s) {
      const auto rank = static_cast<std::size_t>(r.partition.rank(i, s));
      input[rank] += o.shards[s].input_bytes;
      output[rank] += o.shards[s].output_bytes;
      ++shards[rank][abbreviation(o.type)];
    }
  }
  const double usable = (1 - r.reserved_fraction) * r.hbm_capacity_bytes;
  std::vector<std::vector<std::string>> rows = {
      {"Rank", "HBM (GB)", "DDR (GB)", "Perf (ms)", "Input (MB)", "Output (MB)", "Shards"}};
  std::vector<double> total_ms(uw);
  for (int rank = 0; rank < w; ++rank) {
    const auto u = static_cast<std::size_t>(rank);
    const Perf& p = perf[u];
    total_ms[u] = p.total_s() * 1e3;
    std::string kinds;
    for (const auto& [abbr, zero] : used_types) {
      const auto it = shards[u].find(abbr);
      kinds += fmt::format("{}{}: {}", kinds.empty() ? "" : " ", abbr,
                           it == shards[u].end() ? 0 : it->second);
    }
    rows.push_back(
        {fmt::format("{}", rank),
         fmt::format("{} ({:.0f}%)", py_round(hbm[u] / kGiB, 3),
                     usable > 0 ? 100 * hbm[u] / usable : 0.0),
         fmt::format("{} ({:.0f}%)", py_round(ddr[u] / kGiB, 3),
                     r.ddr_capacity_bytes > 0 ? 100 * ddr[u] / r.ddr_capacity_bytes : 0.0),
         fmt::format("{} ({},{},{},{},0)", py_round(total_ms[u], 3),
                     breakdown(p.fwd_compute_s * 1e3), breakdown(p.fwd_comms_s * 1e3),
                     breakdown(p.bwd_compute_s * 1e3), breakdown(p.bwd_comms_s * 1e3)),
         py_round(input[u] / kMiB, 2), py_round(output[u] / kMiB, 2), kinds});
  }
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size() + 3);
  }
  const auto line_of = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += fmt::format("{:>{}}", row[c], width[c]);
    }
    return line;
  };

  std::vector<std::string> out = {
      "--- Planner Statistics ---",
      fmt::format("--- Evaluated {} proposal(s), found {} possible plan(s) ---", r.proposals,
                  r.plans),
      line_of(rows.front())};
  for (int rank = 0; rank < w; ++rank) {
    if (w > 16 && rank == 8) out.push_back(fmt::format("{:>{}}", "...", width.front()));
    if (w > 16 && rank >= 8 && rank < w - 4) continue;
    out.push_back(line_of(rows[static_cast<std::size_t>(rank) + 1]));
  }
  out.push_back("");
  out.push_back(
      "Perf: Total perf (Forward compute, Forward comms, Backward compute, Backward comms, "
      "Prefetch compute)");
  out.push_back("Input: MB/iteration, Output: MB/iteration, Shards: number of tables");
  out.push_back("HBM: estimated peak memory usage for shards, dense tensors, and features (KJT)");
  out.push_back("");
  out.push_back(fmt::format("Batch Size: {:g}", r.params.batch_size));
  out.push_back(imbalance_line("Total Perf", total_ms));
  out.push_back(imbalance_line("HBM", hbm));
  // _log_plan_imbalance_stats: DDR's only when some rank holds DDR.
  if (std::accumulate(ddr.begin(), ddr.end(), 0.0) > 0) out.push_back(imbalance_line("DDR", ddr));
  const double max_ms = *std::max_element(total_ms.begin(), total_ms.end());
  const double mean_ms = std::accumulate(total_ms.begin(), total_ms.end(), 0.0) / w;
  out.push_back(fmt::format("Maximum of Total Perf: {} ms on rank(s) {}", py_round(max_ms, 3),
                            rank_runs(ranks_at(total_ms, max_ms, 1e-9 * max_ms))));
  out.push_back(fmt::format("Mean Total Perf: {} ms", py_round(mean_ms, 3)));
  out.push_back(fmt::format("Max Total Perf is {:.3g}% greater than the mean",
                            above_mean_pct(max_ms, mean_ms)));
  const double max_hbm = *std::max_element(hbm.begin(), hbm.end());
  const double mean_hbm = std::accumulate(hbm.begin(), hbm.end(), 0.0) / w;
  out.push_back(fmt::format("Maximum of HBM: {} GB on rank(s) {}", py_round(max_hbm / kGiB, 3),
                            rank_runs(ranks_at(hbm, max_hbm, kMiB))));
  out.push_back(fmt::format("Mean HBM: {} GB", py_round(mean_hbm / kGiB, 3)));
  out.push_back(
      fmt::format("Max HBM is {:.3g}% greater than the mean", above_mean_pct(max_hbm, mean_hbm)));
  return out;
}

}  // namespace shardsim::torchrec
