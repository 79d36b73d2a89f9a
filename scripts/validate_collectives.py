#!/usr/bin/env python3
"""Holds the cost model's collectives against published measurements (issue 14).

Reads tests/data/collectives/points.csv (one measured nccl-tests row per line, with its source
URL, in the format `shardsim calibrate --points` reads), predicts each point with `shardsim
collective OP --preset P --nodes N --bytes S --format json` on the point's preset with its `sets`,
and prints a markdown table of measured vs predicted time and bus bandwidth with the error, then
the median and worst absolute error. The left-out fit is `shardsim calibrate --points CSV
--leave-one-out` on the same file.

  scripts/validate_collectives.py [--shardsim PATH] [--points CSV]

Each point's preset and overrides are columns of the CSV (`preset`, `sets`), chosen from its GPU
and network by the rules of docs/validation/collectives.md ("Method"; `--check-presets` checks
the file against them); a point no preset stands for has an empty preset and its reason in
`unmatched`, and is listed as unmatched rather than stretched onto a preset. The error is
predicted time / measured time - 1 (from bus bandwidth when a source gives no time). Needs
python3 (standard library only).
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile


def not_modelled(row):
    """Why no preset can stand for the point's system, though its GPUs and network match one."""
    if "GPUDIRECT RDMA OFF" in row["network"].upper():
        # Every preset's NICs read and write GPU memory directly (GPUDirect RDMA). Without it NCCL
        # stages each network transfer through host memory, at a rate no preset or cost
        # parameter holds (docs/validation/collectives.md, "Points left out").
        return "GPUDirect RDMA off: NCCL stages the network through host memory, not modelled"
    return None


def preset_for(row):
    if not_modelled(row):
        return None
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


NCCL_ALGOS = {"ring": "ring", "tree": "tree"}
NCCL_PROTOS = {"ll": "ll", "ll128": "ll128", "simple": "simple"}


def forced_nccl(row):
    """The NCCL_ALGO / NCCL_PROTO the point's run set (recorded in its notes), as cost overrides.
    Values the model has no counterpart for (NVLS, CollNet, lists) are left to the model."""
    sets = []
    notes = row.get("notes", "")
    for var, key, table in (("NCCL_ALGO", "nccl_algorithm", NCCL_ALGOS),
                            ("NCCL_PROTO", "nccl_protocol", NCCL_PROTOS)):
        m = re.search(var + r"=([A-Za-z0-9]+)(?![A-Za-z0-9,])", notes)
        if m and m.group(1).lower() in table:
            sets.append(f"cost.{key}={table[m.group(1).lower()]}")
    return sets


def predict(shardsim, row, preset, size, cost_sets):
    sets = [f"cluster.preset={preset}", f"cluster.nodes={int(row['nodes'])}"]
    sets += [s for s in row["sets"].split(";") if s] + [f"cost.{c}" for c in cost_sets]
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


def busbw_factor(op, n):
    if op == "allreduce":
        return 2 * (n - 1) / n
    return 1.0 if op == "sendrecv" else (n - 1) / n


def measured_us(row):
    """The measured time, or the time the measured bus bandwidth implies for the same size."""
    t = number(row["time_us"])
    if t:
        return t
    bw = number(row["busbw_gbps"])
    if not bw:
        return None
    n = int(row["ranks"])
    algbw = bw / busbw_factor(row["collective"], n)
    return float(row["size_bytes"]) / (algbw * 1e9) * 1e6


CALIBRATE_FLAGS = os.environ.get("CALIBRATE_FLAGS", "").split()


def leave_one_out(shardsim, points_csv):
    """Each matched point predicted by `shardsim calibrate` fitted to all the others."""
    out = subprocess.run([shardsim, "calibrate", "--points", points_csv, "--leave-one-out",
                          "--format", "json", "--quiet"] + CALIBRATE_FLAGS,
                         check=True, capture_output=True, text=True).stdout
    return [p["left_out_s"] * 1e6 for p in json.loads(out)["points"]]


def check_presets(rows):
    """The rows whose preset, sets or unmatched reason differ from the rules above."""
    bad = []
    for row in rows:
        preset = preset_for(row)
        t = measured_us(row)
        if preset is None or t is None:
            why = not_modelled(row) or "no preset for this hardware"
            want = ("", "", why if preset is None else "no time or bus bandwidth")
        else:
            want = (preset, ";".join(overrides_for(row, preset) + forced_nccl(row)), "")
        if (row["preset"], row["sets"], row["unmatched"]) != want:
            bad.append((row["label"], (row["preset"], row["sets"], row["unmatched"]), want))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shardsim", default=os.environ.get("SHARDSIM", "build-test/shardsim"))
    ap.add_argument("--points", default="tests/data/collectives/points.csv")
    ap.add_argument("--cost", action="append", default=[], metavar="KEY=VALUE",
                    help="a cost parameter for every prediction (e.g. collective_model=ideal)")
    ap.add_argument("--max-median", type=float, help="fail (exit 1) above this median error")
    ap.add_argument("--max-ratio", type=float,
                    help="fail (exit 1) if a prediction is off by more than this factor")
    ap.add_argument("--max-loo-median", type=float,
                    help="fail (exit 1) above this median error of the left-out predictions")
    ap.add_argument("--check-presets", action="store_true",
                    help="only check each row's preset, sets and unmatched against the rules")
    args = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    if not os.access(args.shardsim, os.X_OK):
        sys.exit(f"validate_collectives: no shardsim binary at {args.shardsim}")
    rows = list(csv.DictReader(open(args.points, newline="")))
    if args.check_presets:
        bad = check_presets(rows)
        for label, have, want in bad:
            print(f"{label}: (preset, sets, unmatched) is {have}, the rules give {want}")
        return 1 if bad else 0
    matched, unmatched = [], []
    for i, row in enumerate(rows, 1):
        if row["unmatched"]:
            unmatched.append((i, row, row["unmatched"]))
        else:
            matched.append((i, row, row["preset"], measured_us(row)))
    # nccl model only: the cost/ calibration fits its parameters.
    ideal = any(c.replace(" ", "") == "collective_model=ideal" for c in args.cost)
    loo = [] if ideal else leave_one_out(args.shardsim, args.points)
    print("| # | collective | hardware | ranks | size (B) | measured µs | predicted µs | error | "
          + ("" if ideal else "left-out fit µs | error | ") + "preset | source |")
    print("|---|---|---|---|---|---|---|---|" + ("" if ideal else "---|---|") + "---|---|")
    errors, factors, loo_errors = [], [], []
    for k, (i, row, preset, t) in enumerate(matched):
        size = int(float(row["size_bytes"]))
        pred = predict(args.shardsim, row, preset, size, args.cost)["time_s"] * 1e6
        err = pred / t - 1
        errors.append(abs(err))
        factors.append(max(pred / t, t / pred))
        cells = f"{pred:.1f} | {err:+.0%} | "
        if loo:
            loo_errors.append(abs(loo[k] / t - 1))
            cells += f"{loo[k]:.1f} | {loo[k] / t - 1:+.0%} | "
        given = row["time_us"] or f"({t:.1f} from busbw {row['busbw_gbps']})"
        print(f"| {i} | {row['collective']} | {row['gpu']} {row['network']} | {row['ranks']} | "
              f"{size} | {given} | {cells}{preset} | [link]({row['source_url']}) |")
    print()
    med = statistics.median(errors)
    print(f"{len(errors)} points: default parameters, median |error| {med:.0%}, "
          f"{sum(f > 2 for f in factors)} off by more than 2x (worst {max(factors):.2f}x).")
    if loo_errors:
        print(f"Leave-one-out calibration (each point predicted from a fit to the other "
              f"{len(matched) - 1}): median |error| {statistics.median(loo_errors):.0%}.")
    failed = False
    if args.max_median is not None and med > args.max_median:
        print(f"FAIL: median error {med:.1%} > {args.max_median:.0%}")
        failed = True
    if args.max_ratio is not None and max(factors) > args.max_ratio:
        print(f"FAIL: a prediction is off by {max(factors):.2f}x > {args.max_ratio:g}x")
        failed = True
    if args.max_loo_median is not None and loo_errors and \
            statistics.median(loo_errors) > args.max_loo_median:
        print(f"FAIL: left-out median error {statistics.median(loo_errors):.1%} > "
              f"{args.max_loo_median:.0%}")
        failed = True
    print()
    for i, row, why in unmatched:
        print(f"- unmatched #{i}: {row['collective']} on {row['gpu']} {row['network']}, "
              f"{row['gpus_per_node']} GPUs a node x {row['nodes']} ({why})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
