#!/usr/bin/env python3
"""How shardsim's cost grows with the work (issue 21; docs/performance.md, "Growth").

Runs bench/scenarios/hybrid-4096.yaml (1000 generated tables, dgx-h100 nodes of 8 GPUs, batch
1024 per GPU, 10 + 2 iterations, expected-mode traces) end to end, one process per point, along
three axes, each with the other two fixed:

  gpus        64 .. 4096 GPUs (8 .. 512 nodes), 1000 tables, 10 iterations
  tables      30 .. 1000 tables, 2048 GPUs, 10 iterations (from ~3000 tables on, this scenario's
              dense model no longer fits a GPU)
  iterations  5 .. 40 measured iterations, 1024 GPUs, 1000 tables
  scale       4096 .. 65,536 GPUs (512 .. 8192 nodes) of bench/scenarios/hybrid-65536.yaml
              (2000 tables, batch 64 a GPU, 5 iterations, a fourth tier), issue 59's target;
              two_d there keeps groups of 1024 GPUs

for the planners table_wise, hybrid and two_d (4 groups, hybrid inside). Each point prints wall
time, user CPU, peak RSS (of that process alone), the plan's shard count and whether it fits in
memory (an unfit plan is reported without a simulation, so it is left out of the fits); each axis
ends with the fitted growth exponent (least squares of log time on log size, and of log time on
log shards, where the shard counts span at least a decade, and of log peak RSS on log size). Needs python3 (standard library only).

  scripts/growth.py [--shardsim PATH] [--axis gpus|tables|iterations]... [--planner P]...
                    [--quick] [--markdown]

--quick uses fewer points (a smoke test); --markdown prints the tables as markdown.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

SCENARIO = "bench/scenarios/hybrid-4096.yaml"
PLANNERS = ["table_wise", "hybrid", "two_d"]
AXES = {
    "gpus": [64, 128, 256, 512, 1024, 2048, 4096],
    # From 3,000 tables on, this scenario's dense model (its top MLP reads every table's
    # pooled vector) and activations no longer fit a GPU, whatever the planner.
    "tables": [30, 100, 300, 1000],
    "iterations": [5, 10, 20, 40],
    "scale": [4096, 8192, 16384, 32768, 65536],
}
QUICK = {"gpus": [64, 256], "tables": [100, 300], "iterations": [5, 10], "scale": [4096, 8192]}
FIXED = {"gpus": 4096, "tables": 1000, "iterations": 10}
FIXED_BY_AXIS = {"tables": {"gpus": 2048}, "iterations": {"gpus": 1024},
                 "scale": {"tables": 2000, "iterations": 5}}
SCENARIO_BY_AXIS = {"scale": "bench/scenarios/hybrid-65536.yaml"}
VARIABLE = {"scale": "gpus"}  # the point's key an axis varies (else the axis' own name)


def overrides(planner, gpus, tables, iterations, axis=None):
    sets = [
        f"placement.planner={planner}",
        f"cluster.nodes={gpus // 8}",
        f"model.generate.count={tables}",
        f"workload.iterations={iterations}",
    ]
    if planner == "two_d":
        groups = "group_size: 1024" if axis == "scale" else "groups: 4"
        sets.append(f"placement.options={{{groups}, inner: hybrid}}")
    return sets


def run_point(shardsim, planner, gpus, tables, iterations, axis=None):
    """One process: (wall s, user s, peak RSS bytes, shards, fits in memory, exit code)."""
    cmd = [shardsim, "run", SCENARIO_BY_AXIS.get(axis, SCENARIO), "--quiet", "--format", "json",
           "--max-memory", "0"]
    for s in overrides(planner, gpus, tables, iterations, axis):
        cmd += ["--set", s]
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        shards = None
        fits = None
        try:
            report = json.load(out)
            reports = report if isinstance(report, list) else [report]
            kinds = reports[0].get("plan_stats", {}).get("shards_by_kind", {})
            shards = sum(kinds.values()) if kinds else None
            fits = reports[0].get("fits_in_memory")
        except (json.JSONDecodeError, IndexError, AttributeError):
            pass
    return wall, usage.ru_utime, usage.ru_maxrss * 1024, shards, fits, code


def slope(xs, ys):
    """Least-squares slope of log y on log x (None with fewer than two usable points)."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x and y and x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if sxx == 0:
        return None
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx


def fmt_exp(e):
    return "n/a" if e is None else f"{e:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shardsim", default=os.environ.get("SHARDSIM", "build-test/shardsim"))
    ap.add_argument("--axis", action="append", choices=list(AXES))
    ap.add_argument("--planner", action="append")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    if not os.access(args.shardsim, os.X_OK):
        sys.exit(f"growth: no shardsim binary at {args.shardsim} (build it, or pass --shardsim)")
    axes = args.axis or list(AXES)
    planners = args.planner or PLANNERS
    sizes = QUICK if args.quick else AXES
    for axis in axes:
        print(f"\n### {axis} (the others: "
              + ", ".join(f"{k} {v}" for k, v in {**FIXED, **FIXED_BY_AXIS.get(axis, {})}.items()
                          if k != VARIABLE.get(axis, axis)) + ")\n")
        if args.markdown:
            print(f"| planner | {axis} | shards | fits | wall s | user s | peak RSS MB | exit |")
            print("|---|---|---|---|---|---|---|---|")
        summary = []
        for planner in planners:
            xs, walls, rsss, shard_counts = [], [], [], []
            for size in sizes[axis]:
                point = {**FIXED, **FIXED_BY_AXIS.get(axis, {}), VARIABLE.get(axis, axis): size}
                wall, user, rss, shards, fits, code = run_point(
                    args.shardsim, planner, point["gpus"], point["tables"], point["iterations"],
                    axis)
                line = (planner, size, shards if shards is not None else "-",
                        {True: "yes", False: "no"}.get(fits, "-"), f"{wall:.2f}",
                        f"{user:.2f}", f"{rss / 1e6:.0f}", code)
                if args.markdown:
                    print("| " + " | ".join(str(v) for v in line) + " |")
                else:
                    print("  ".join(str(v) for v in line))
                sys.stdout.flush()
                if code == 0 and fits:  # an unfit plan is not simulated: not the same work
                    xs.append(size)
                    walls.append(wall)
                    rsss.append(rss)
                    shard_counts.append(shards)
            # Against shards only where they span a decade (else the fit is noise).
            spans = (None not in shard_counts and len(shard_counts) > 1
                     and max(shard_counts) >= 10 * min(shard_counts))
            summary.append((planner, slope(xs, walls),
                            slope(shard_counts, walls) if spans else None, slope(xs, rsss)))
        print()
        for planner, e_size, e_shards, e_rss in summary:
            print(f"- {planner}: wall time ~ {axis}^{fmt_exp(e_size)}"
                  + (f", ~ shards^{fmt_exp(e_shards)}" if axis != "iterations" else "")
                  + f"; peak RSS ~ {axis}^{fmt_exp(e_rss)}")


if __name__ == "__main__":
    main()
