// Host-link transfer time (cost/host_link_cost.hpp).
#include "shardsim/cost/host_link_cost.hpp"

#include <algorithm>
#include <cmath>

namespace shardsim {

double host_link_s(double h2d_bytes, double d2h_bytes, const HostSpec& host) {
  const double bytes = std::max(h2d_bytes, d2h_bytes);
  if (!(bytes > 0)) return 0;
  return host.link.latency_s + bytes / host.link.bandwidth_Bps;
}

double uvm_pages_touched(double rows_touched, double shard_rows, double row_bytes,
                         double page_bytes) {
  if (!(rows_touched > 0) || !(shard_rows > 0) || !(row_bytes > 0)) return 0;
  rows_touched = std::min(rows_touched, shard_rows);
  if (row_bytes >= page_bytes) return rows_touched * std::ceil(row_bytes / page_bytes);
  const double rows_per_page = std::floor(page_bytes / row_bytes);
  const double pages = std::ceil(shard_rows / rows_per_page);
  if (pages <= 1) return 1;
  // 1 - (1 - 1/P)^D, through log1p/expm1 so that a large P keeps its precision.
  return -pages * std::expm1(rows_touched * std::log1p(-1.0 / pages));
}

double uvm_fault_s(double faults, const CostParams& cost) {
  if (!(faults > 0) || !(cost.uvm_fault_batch_s > 0)) return 0;
  return faults / cost.uvm_fault_batch_count * cost.uvm_fault_batch_s;
}

}  // namespace shardsim
