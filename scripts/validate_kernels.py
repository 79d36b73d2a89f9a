#!/usr/bin/env python3
"""Holds the embedding-kernel model against lookups measured on an H100 (docs/validation/kernels.md).

Reads tests/data/kernels/h100_torch_embedding_bag_<precision>.log (PyTorch's embedding_bag
forward, timed by bench/gpu/kernel_bench.py: a real embedding kernel on a real H100, but not
FBGEMM's TBE) and, per precision, fits the three kernel parameters the points determine with
`shardsim calibrate --kernels` and judges the fit on points it did not see:

  - leave-one-out: every point predicted from a fit to the 35 others;
  - held-out blocks: the fit sees all points but one block (bag size L = 16; dim D = 128; the
    exponents 1.05 and 1.15) and predicts that block, through `--scenario` with the fitted
    values as its `cost:`.

It prints each split's median and worst |error| (predicted / measured - 1), and the error of the
default parameters (the TBE roofline the simulator ships) for scale, then fails when a bound
given on the command line is exceeded.

  scripts/validate_kernels.py [--shardsim PATH] [--max-loo-median X] [--max-block-median X]
                              [--max-ratio R]

Needs python3 (standard library only).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "kernels")
PARAMS = ["kernel_hbm_efficiency", "repeat_lookup_hbm_fraction", "kernel_pooling_half"]
# The scenario only lends the H100 and the starting cost; its model plays no part in a kernel fit.
SCENARIO = ["--scenario", os.path.join(ROOT, "scenarios", "example.yaml"),
            "--set", "cluster.preset=dgx-h100"]
BLOCKS = [("L = 16", lambda r: r["L"] == 16), ("D = 128", lambda r: r["D"] == 128),
          ("alpha 1.05, 1.15", lambda r: r["alpha"] in (1.05, 1.15))]


def calibrate(shardsim, log, extra):
    cmd = [shardsim, "calibrate", "--kernels", log, "--format", "json", "--quiet", *extra]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"validate_kernels: {' '.join(cmd)} failed ({run.returncode}):\n{run.stderr}")
    return json.loads(run.stdout)


def errors(points, key):
    return [p[key] / p["measured_s"] - 1 for p in points]


def summary(errs):
    return statistics.median(abs(e) for e in errs), max(abs(e) for e in errs)


def split_log(path, keep):
    """The log's header lines and the result lines whose row `keep` accepts, as a temp file."""
    out = tempfile.NamedTemporaryFile("w", suffix=".log", delete=False)
    with open(path) as f:
        for line in f:
            if "Forward, B:" not in line:
                out.write(line)
                continue
            fields = dict(kv.split(": ", 1) for kv in line.split("Forward, ", 1)[1].split(", ")
                          if ": " in kv)
            row = {"L": int(fields["L"]), "D": int(fields["D"]), "alpha": float(fields["a"])}
            if keep(row):
                out.write(line)
    out.close()
    return out.name


def validate(shardsim, precision):
    log = os.path.join(DATA, f"h100_torch_embedding_bag_{precision}.log")
    params = ["--params", ",".join(PARAMS)]
    full = calibrate(shardsim, log, ["--preset", "dgx-h100", "--leave-one-out", *params])
    result = {"precision": precision, "points": len(full["points"]),
              "default": summary(errors(full["points"], "start_s")),
              "fitted": summary(errors(full["points"], "fitted_s")),
              "loo": summary(errors(full["points"], "left_out_s")),
              "parameters": {k: full["parameters"][k]["fitted"] for k in PARAMS},
              "blocks": []}
    for name, held in BLOCKS:
        fit_log = split_log(log, lambda r, held=held: not held(r))
        test_log = split_log(log, held)
        try:
            fit = calibrate(shardsim, fit_log, ["--preset", "dgx-h100", *params])
            values = fit["parameters"]
            sets = []
            for k in PARAMS:
                sets += ["--set", f"cost.{k}={values[k]['fitted']!r}"]
            test = calibrate(shardsim, test_log,
                             [*SCENARIO, *sets, "--params", "kernel_hbm_efficiency"])
            result["blocks"].append((name, len(test["points"]),
                                     summary(errors(test["points"], "start_s"))))
        finally:
            os.unlink(fit_log)
            os.unlink(test_log)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shardsim", default=os.path.join(ROOT, "build", "shardsim"))
    ap.add_argument("--max-loo-median", type=float, default=None)
    ap.add_argument("--max-block-median", type=float, default=None)
    ap.add_argument("--max-ratio", type=float, default=None,
                    help="no held-out prediction off by more than this factor")
    args = ap.parse_args()
    failures = []
    print("| precision | split | points | median abs error | worst abs error |")
    print("|---|---|---|---|---|")
    for precision in ("fp32", "fp16"):
        r = validate(args.shardsim, precision)
        rows = [("default parameters (TBE roofline)", r["points"], r["default"]),
                ("fitted to all", r["points"], r["fitted"]),
                ("each left out", r["points"], r["loo"])]
        rows += [(f"block held out: {n}", k, s) for n, k, s in r["blocks"]]
        for name, k, (med, worst) in rows:
            print(f"| {precision} | {name} | {k} | {med:.1%} | {worst:.1%} |")
        print(f"| {precision} | fitted parameters | | " +
              ", ".join(f"{k} {v:.3g}" for k, v in r["parameters"].items()) + " | |")
        held = [r["loo"]] + [s for _, _, s in r["blocks"]]
        if args.max_loo_median is not None and r["loo"][0] > args.max_loo_median:
            failures.append(f"{precision}: left-out median {r['loo'][0]:.1%} > "
                            f"{args.max_loo_median:.1%}")
        for name, _, (med, _) in r["blocks"]:
            if args.max_block_median is not None and med > args.max_block_median:
                failures.append(f"{precision}: block {name} median {med:.1%} > "
                                f"{args.max_block_median:.1%}")
        worst = max(w for _, w in held)
        if args.max_ratio is not None and 1 + worst > args.max_ratio:
            failures.append(f"{precision}: a held-out point is off by {1 + worst:.2f}x > "
                            f"{args.max_ratio}x")
    for f in failures:
        print(f"FAIL: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
