#!/usr/bin/env python3
"""ctest `plot.smoke`: renders each figure type of scripts/plot.py from small fresh reports and
checks the files (PNG signature, size, dimensions; an SVG on request). Exits 77 (ctest
SKIP_RETURN_CODE) when no Python with matplotlib is found.

  plot_smoke.py SHARDSIM OUT_DIR
"""
import json
import os
import shutil
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP = 77


def python_with_matplotlib():
    for py in (sys.executable, "python3", "/usr/bin/python3"):
        exe = shutil.which(py) or py
        if os.path.exists(exe) and subprocess.run(
                [exe, "-c", "import matplotlib"], capture_output=True).returncode == 0:
            return exe
    return None


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    return struct.unpack(">II", head[16:24])


def run(cmd, ok=(0,)):
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if p.returncode not in ok:
        sys.exit(f"FAILED ({p.returncode}): {' '.join(cmd)}\n{p.stdout}\n{p.stderr}")
    return p


def main():
    shardsim, out = sys.argv[1], sys.argv[2]
    py = python_with_matplotlib()
    if py is None:
        print("SKIP: no python3 with matplotlib (install python3-matplotlib: scripts/deps.sh)")
        return SKIP
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    plot = [py, os.path.join(ROOT, "scripts", "plot.py")]
    small = ["--iterations", "3", "--set", "workload.warmup=1", "--quiet"]
    # A run (one planner, with --out's CSV matrices), a sweep of two points, a comparison.
    run([shardsim, "run", "scenarios/default.yaml", "--set", "placement.planner=table_wise",
         "--out", f"{out}/run", *small])
    sweep = run([shardsim, "sweep", "scenarios/default.yaml", "--set",
                 "placement.planner=[table_wise,row_wise]", "--set",
                 "sweep={cluster.nodes: [1, 2]}", "--format", "json", *small], ok=(0, 3))
    with open(f"{out}/sweep.json", "w") as f:
        f.write(sweep.stdout)
    # A comparison whose candidate is 10% slower: the same report with its times scaled (a
    # changed scenario would be "stale", not compared).
    base = run([shardsim, "run", "scenarios/default.yaml", "--set", "placement.planner=table_wise",
                "--format", "json", *small])
    with open(f"{out}/baseline.json", "w") as f:
        f.write(base.stdout)
    doc = json.loads(base.stdout)
    for r in doc["reports"] if "reports" in doc else [doc]:  # one report: the object itself
        r["iteration_time_s"] = {k: 1.1 * v for k, v in r["iteration_time_s"].items()}
        r["iteration_times_s"] = [1.1 * t for t in r["iteration_times_s"]]
        r["qps"] /= 1.1
    with open(f"{out}/candidate.json", "w") as f:
        json.dump(doc, f)
    cmp = run([shardsim, "compare", f"{out}/baseline.json", f"{out}/candidate.json", "--format",
               "json", "--quiet"], ok=(0, 1))
    with open(f"{out}/compare.json", "w") as f:
        f.write(cmp.stdout)

    figs = f"{out}/figures"
    run([*plot, "report", f"{out}/run/report.json", "--out", figs])
    run([*plot, "sweep", f"{out}/sweep.json", "--out", figs])
    run([*plot, "compare", f"{out}/compare.json", "--out", figs])
    run([*plot, "report", f"{out}/run/report.json", "--out", f"{out}/svg", "--format", "svg"])
    run([*plot, "diff", f"{out}/baseline.json", f"{out}/candidate.json", "--out", figs])
    # One planner's report: its figures still carry "-<planner>" (docs/report.md).
    expected = {"gpus-table_wise.png": (900, 700), "breakdown-table_wise.png": (900, 350),
                "comm-table_wise.png": (600, 500), "sweep.png": (900, 650),
                "compare.png": (900, 250), "diff.png": (900, 600)}
    for name, (min_w, min_h) in expected.items():
        path = os.path.join(figs, name)
        assert os.path.exists(path), f"{path} missing"
        size = os.path.getsize(path)
        assert size > 10_000, f"{path}: only {size} bytes"
        w, h = png_size(path)
        assert w >= min_w and h >= min_h, f"{path}: {w}x{h}, expected at least {min_w}x{min_h}"
        print(f"ok {name}: {w}x{h}, {size} bytes")
    svg = os.path.join(out, "svg", "gpus-table_wise.svg")
    with open(svg, encoding="utf-8") as f:
        assert "<svg" in f.read(2000), f"{svg}: not an SVG"
    print("ok gpus-table_wise.svg")
    # Bad input: a clear message and exit code 2, not a traceback.
    with open(f"{out}/bad.json", "w") as f:
        f.write("{")
    p = subprocess.run([*plot, "report", f"{out}/bad.json", "--out", figs], capture_output=True,
                       text=True)
    assert p.returncode == 2 and "not JSON" in p.stderr, (p.returncode, p.stderr)
    print("ok bad input")
    return 0


if __name__ == "__main__":
    sys.exit(main())
