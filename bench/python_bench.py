#!/usr/bin/env python3
"""The Python module's overhead (docs/performance.md, "Python"): shardsim.run of a scenario
against the CLI's wall time on the same scenario, and 1000 shardsim.plan calls on a 26-table
model.

    PYTHONPATH=BUILD/python /usr/bin/python3 bench/python_bench.py --shardsim BUILD/shardsim
        [--scenario scenarios/default.yaml] [--repeats 5] [--check]

--check exits 1 unless run is within 10% of the CLI and 1000 plans take under 2 s (the goals of
issue 55); without it the numbers are only printed.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import time

import shardsim
from shardsim import torchrec as tr

ROOT = pathlib.Path(__file__).resolve().parents[1]


def best_of(repeats, f):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shardsim", required=True)
    ap.add_argument("--scenario", default=str(ROOT / "scenarios/default.yaml"))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--plans", type=int, default=1000)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    shardsim.set_verbosity("quiet")

    cli = best_of(args.repeats, lambda: subprocess.run(
        [args.shardsim, "run", args.scenario, "--format", "json", "--quiet"], check=True,
        stdout=subprocess.DEVNULL))
    py = best_of(args.repeats, lambda: [r.to_dict() for r in shardsim.run(
        shardsim.Scenario.from_yaml(args.scenario))])
    model = json.loads((ROOT / "tests/data/torchrec/a_criteo26.json").read_text())
    sc = tr.from_torchrec(model=tr.model_dict(model["tables"], topology=model["topology"],
                                              batch_size=model["batch_size"],
                                              dense=model["dense_layers"]))
    t0 = time.perf_counter()
    for _ in range(args.plans):
        shardsim.plan(sc, "table_wise")
    plans = time.perf_counter() - t0
    ratio = py / cli
    print(f"run {pathlib.Path(args.scenario).name}: CLI {cli:.3f} s, Python {py:.3f} s "
          f"(x{ratio:.3f}), best of {args.repeats}")
    print(f"{args.plans} plan() calls on the 26-table model: {plans:.3f} s "
          f"({plans / args.plans * 1e3:.2f} ms each)")
    if args.check and (ratio > 1.10 or (args.plans == 1000 and plans > 2.0)):
        print("python_bench: a goal is missed (run within 10% of the CLI, 1000 plans < 2 s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
