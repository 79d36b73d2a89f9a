#!/usr/bin/env python3
"""Holds the cost model's collectives against published measurements (issue 14).

Reads tests/data/collectives/points.csv (one measured nccl-tests row per line, with its source
URL), predicts each point with `shardsim collective OP --preset P --nodes N --bytes S --format
json` on the matching preset, and prints a markdown table of measured vs predicted time and bus
bandwidth with the error, then the median and worst absolute error.

  scripts/validate_collectives.py [--shardsim PATH] [--points CSV]

The preset is chosen from the point's GPU and network (A100 + InfiniBand HDR: dgx-a100;
H100 + InfiniBand NDR: dgx-h100; A100 + RoCE 200G: zionex; one node: the GPU's DGX preset);
points on other hardware (EFA, other GPUs per node, ...) are listed as unmatched rather than
stretched onto a preset. The error is predicted time / measured time - 1 (from bus bandwidth when
a source gives no time). Needs python3 (standard library only).
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys


def preset_for(row):
    gpu = row["gpu"].upper()
    net = row["network"].upper()
    gpus_per_node = int(row["gpus_per_node"] or 0)
    nodes = int(row["nodes"] or 0)
    if nodes < 1:
        return None
    if "EFA" in net:
        return "aws-p5" if "H100" in gpu else "aws-p4de" if "A100" in gpu else None
    if nodes == 1:
        return "dgx-h100" if "H100" in gpu else "dgx-a100" if "A100" in gpu else None
    if "H100" in gpu and ("NDR" in net or ("IB" in net and "400" in net) or "ROCE" in net):
        return "dgx-h100"
    if "A100" in gpu and ("HDR" in net or ("IB" in net and "200" in net)):
        return "dgx-a100"
    if "A100" in gpu and "ROCE" in net:
        return "dgx-a100"  # the same GPUs, and 200 Gbit/s a GPU unless the point says otherwise
    return None


PRESET_NIC_GBPS = {"dgx-a100": (8, 200), "dgx-h100": (8, 400), "zionex": (8, 200),
                   "aws-p5": (32, 100), "aws-p4de": (4, 100)}  # (NICs a node, Gbit/s a NIC)


def overrides_for(row, preset):
    """Scenario overrides that make the preset's node match the point's (fewer GPUs, fewer NICs)."""
    sets = []
    gpus = int(row["gpus_per_node"] or 8)
    nic = number(row["nic_gbps_per_gpu"])
    nics, nic_gbps = PRESET_NIC_GBPS[preset]
    if gpus != 8:
        sets += [f"cluster.overrides.gpus_per_node={gpus}", f"cluster.overrides.nics_per_node={gpus}"]
        if nic:
            sets.append(f"cluster.overrides.nic.bandwidth_Gbitps={nic:g}")
    elif nic and abs(nic * 8 - nics * nic_gbps) > 1e-6:
        wanted = nic * 8 / nic_gbps
        if wanted >= 1 and wanted == int(wanted):
            sets.append(f"cluster.overrides.nics_per_node={int(wanted)}")
    return sets


def predict(shardsim, row, preset, size, cost_sets):
    sets = [f"cluster.preset={preset}", f"cluster.nodes={int(row['nodes'])}"]
    sets += overrides_for(row, preset) + [f"cost.{c}" for c in cost_sets]
    cmd = [shardsim, "collective", row["collective"], "--scenario", "scenarios/default.yaml",
           "--bytes", str(size), "--format", "json", "--quiet"]
    for item in sets:
        cmd += ["--set", item]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["points"][0]


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shardsim", default=os.environ.get("SHARDSIM", "build-test/shardsim"))
    ap.add_argument("--points", default="tests/data/collectives/points.csv")
    ap.add_argument("--cost", action="append", default=[], metavar="KEY=VALUE",
                    help="a cost parameter for every prediction (e.g. collective_model=ideal)")
    ap.add_argument("--max-median", type=float, help="fail (exit 1) above this median error")
    ap.add_argument("--max-ratio", type=float,
                    help="fail (exit 1) if a prediction is off by more than this factor")
    args = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    if not os.access(args.shardsim, os.X_OK):
        sys.exit(f"validate_collectives: no shardsim binary at {args.shardsim}")
    rows = list(csv.DictReader(open(args.points, newline="")))
    print("| # | collective | hardware | ranks | size (B) | measured µs | predicted µs | "
          "measured busbw GB/s | predicted busbw GB/s | error | preset | source |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    errors, ratios, unmatched = [], [], []
    worst_factor = 1.0
    for i, row in enumerate(rows, 1):
        preset = preset_for(row)
        hardware = f"{row['gpu']} {row['network']}"
        if preset is None:
            unmatched.append((i, row))
            continue
        size = int(float(row["size_bytes"]))
        p = predict(args.shardsim, row, preset, size, args.cost)
        t_meas, bw_meas = number(row["time_us"]), number(row["busbw_gbps"])
        t_pred, bw_pred = p["time_s"] * 1e6, p["busbw_Bps"] / 1e9
        if t_meas:
            err = t_pred / t_meas - 1
        elif bw_meas and bw_pred:
            err = bw_meas / bw_pred - 1  # time ratio from bandwidth: same size
        else:
            err = None
        if err is not None:
            errors.append(abs(err))
            ratios.append(1 + err)
            worst_factor = max(worst_factor, 1 + err, 1 / (1 + err))
        print(f"| {i} | {row['collective']} | {hardware} | {row['ranks']} | {size} | "
              f"{row['time_us'] or '-'} | {t_pred:.1f} | {row['busbw_gbps'] or '-'} | "
              f"{bw_pred:.1f} | {'-' if err is None else f'{err:+.0%}'} | {preset} | "
              f"[link]({row['source_url']}) |")
    print()
    if errors:
        print(f"{len(errors)} points compared: median absolute error "
              f"{statistics.median(errors):.0%}, worst {max(errors):.0%}; "
              f"{sum(r > 2 or r < 0.5 for r in ratios)} off by more than 2x either way "
              f"(worst {worst_factor:.2f}x).")
    failed = False
    if errors and args.max_median is not None and statistics.median(errors) > args.max_median:
        print(f"FAIL: median error {statistics.median(errors):.1%} > {args.max_median:.0%}")
        failed = True
    if args.max_ratio is not None and worst_factor > args.max_ratio:
        print(f"FAIL: a prediction is off by {worst_factor:.2f}x > {args.max_ratio:g}x")
        failed = True
    for i, row in unmatched:
        print(f"- unmatched #{i}: {row['collective']} on {row['gpu']} {row['network']}, "
              f"{row['gpus_per_node']} GPUs a node x {row['nodes']} (no preset for this hardware)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
