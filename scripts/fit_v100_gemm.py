#!/usr/bin/env python3
"""The V100 MLP figures of the dgx-2 preset, fitted to DeepBench's V100 GEMMs
(docs/validation/kernels.md, "V100"); nothing in shardsim reads its output.

Reads tests/data/kernels/deepbench_v100_gemm.csv (Baidu DeepBench's published training GEMMs on
a V100 of a DGX-1, cuBLAS, CUDA 10.1: FP32, and FP16 inputs with mixed-precision math on the
tensor cores) and fits, per precision, the three figures of shardsim's MLP roofline
(docs/model.md, "MLPs") for one layer's GEMM, C (m x n) = A (m x k) . B (k x n), with n the batch
(DeepBench's minibatch x time steps) and m, k the layer's widths:

  t = 2·m·n·k / (peak · efficiency · n / (n + b½) · w / (w + w½)) + t_launch,   w = min(m, k)

at the preset's peaks (15.7 FP32, 125 FP16 TFLOP/s: the V100 SXM2's, DeepBench's card) and
launch cost (5 µs). The fit minimises the squared log error (Nelder-Mead on the logs of the
three figures, the efficiency held at most 1) on the calibration half of the shapes and is judged
on the other half: the distinct (m, n, k) in sorted order, every other one held out, a shape's
transposed variants on the same side. Left out: DeepBench's language-model GEMMs (k = 500,000,
n <= 16: a 1-2 GB matrix streamed for a handful of columns, memory-bound, no MLP layer's shape).

Usage: python3 scripts/fit_v100_gemm.py [--csv PATH] [--check-preset YAML]   (standard library
only; a few seconds). --check-preset exits 1 unless the preset file's MLP figures are the fit's
(efficiency to 0.002, halves to 1.5): ctest `validation.v100_gemm_fit` runs it on
configs/hardware/dgx-2.yaml.
"""
import argparse
import csv
import math
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEAK_FLOPS = {"fp32": 15.7e12, "fp16": 125e12}  # configs/hardware/dgx-2.yaml
LAUNCH_S = 5e-6  # configs/hardware/dgx-2.yaml, kernel_launch_us
# The preset's figures before this fit (GUESSes from Neo App. B and the ridge-point rule).
BEFORE = {"fp32": (0.829, 56, 168), "fp16": (0.964, 221, 668)}


def load(path):
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if r["application"] != "Language Modelling"]
    points = []
    for r in rows:
        points.append({"precision": r["precision"], "m": int(r["m"]), "n": int(r["n"]),
                       "k": int(r["k"]), "time_s": float(r["time_ms"]) * 1e-3})
    shapes = sorted({(p["m"], p["n"], p["k"]) for p in points})
    held = {s for i, s in enumerate(shapes) if i % 2 == 1}
    for p in points:
        p["held_out"] = (p["m"], p["n"], p["k"]) in held
    return points


def predicted_s(p, efficiency, batch_half, width_half):
    w = min(p["m"], p["k"])
    rate = (PEAK_FLOPS[p["precision"]] * efficiency * p["n"] / (p["n"] + batch_half) *
            w / (w + width_half))
    return 2.0 * p["m"] * p["n"] * p["k"] / rate + LAUNCH_S


def loss(points, x):
    efficiency, batch_half, width_half = min(1.0, math.exp(x[0])), math.exp(x[1]), math.exp(x[2])
    return sum(math.log(predicted_s(p, efficiency, batch_half, width_half) / p["time_s"]) ** 2
               for p in points)


def nelder_mead(f, x0, step=0.5, iterations=600):
    simplex = [list(x0)] + [[x0[j] + (step if j == i else 0.0) for j in range(len(x0))]
                            for i in range(len(x0))]
    values = [f(x) for x in simplex]
    for _ in range(iterations):
        order = sorted(range(len(simplex)), key=lambda i: values[i])
        simplex = [simplex[i] for i in order]
        values = [values[i] for i in order]
        centre = [sum(x[j] for x in simplex[:-1]) / (len(simplex) - 1) for j in range(len(x0))]
        worst = simplex[-1]

        def towards(t):
            return [c + t * (w - c) for c, w in zip(centre, worst)]

        reflected = towards(-1.0)
        fr = f(reflected)
        if fr < values[0]:
            expanded = towards(-2.0)
            fe = f(expanded)
            simplex[-1], values[-1] = (expanded, fe) if fe < fr else (reflected, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = reflected, fr
        else:
            contracted = towards(0.5)
            fc = f(contracted)
            if fc < values[-1]:
                simplex[-1], values[-1] = contracted, fc
            else:
                best = simplex[0]
                simplex = [best] + [[b + 0.5 * (x - b) for b, x in zip(best, s)]
                                    for s in simplex[1:]]
                values = [values[0]] + [f(s) for s in simplex[1:]]
    i = min(range(len(simplex)), key=lambda i: values[i])
    return simplex[i]


def summary(points, figures):
    errors = [predicted_s(p, *figures) / p["time_s"] - 1 for p in points]
    absolute = [abs(e) for e in errors]
    worst = max(max(1 + e, 1 / (1 + e)) for e in errors)
    return statistics.median(absolute), worst, statistics.median(errors)


# The preset keys of each precision's figures (TF32 runs as FP32 on Volta: the same values).
PRESET_KEYS = {"fp32": ("mlp_efficiency_fp32", "mlp_batch_half_fp32", "mlp_width_half_fp32"),
               "fp16": ("mlp_efficiency", "mlp_batch_half", "mlp_width_half")}


def preset_figures(path):
    """The preset file's `key: number` lines (its gpu block's MLP figures)."""
    values = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*(mlp_[a-z0-9_]+):\s*([0-9.eE+-]+)", line)
            if m:
                values[m.group(1)] = float(m.group(2))
    return values


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--csv", default=os.path.join(ROOT, "tests", "data", "kernels",
                                                  "deepbench_v100_gemm.csv"))
    ap.add_argument("--check-preset", metavar="YAML",
                    help="exit 1 unless this preset file's MLP figures are the fit's")
    args = ap.parse_args()
    points = load(args.csv)
    preset = preset_figures(args.check_preset) if args.check_preset else None
    mismatches = []
    print("| precision | figures | calibration: points, median abs error, worst factor, median "
          "signed error | held out: the same |")
    print("|---|---|---|---|")
    for precision in ("fp32", "fp16"):
        mine = [p for p in points if p["precision"] == precision]
        calibration = [p for p in mine if not p["held_out"]]
        held_out = [p for p in mine if p["held_out"]]
        starts = [[math.log(e), math.log(b), math.log(w)] for e, b, w in
                  (BEFORE[precision], (0.9, 50, 100), (0.8, 200, 500), (0.95, 20, 50))]
        best = min((nelder_mead(lambda x: loss(calibration, x), s) for s in starts),
                   key=lambda x: loss(calibration, x))
        fitted = (min(1.0, math.exp(best[0])), math.exp(best[1]), math.exp(best[2]))
        if preset is not None:
            for key, value, tolerance in zip(PRESET_KEYS[precision], fitted, (0.002, 1.5, 1.5)):
                if key not in preset or abs(preset[key] - value) > tolerance:
                    mismatches.append(f"{key}: the preset has {preset.get(key)}, the fit "
                                      f"{value:.4g}")
        for label, figures in (("before (preset GUESS)", BEFORE[precision]), ("fitted", fitted)):
            c, h = summary(calibration, figures), summary(held_out, figures)
            print(f"| {precision} | {label}: efficiency {figures[0]:.3f}, b½ {figures[1]:.0f}, "
                  f"w½ {figures[2]:.0f} | {len(calibration)}, {100 * c[0]:.1f}%, {c[1]:.2f}x, "
                  f"{100 * c[2]:+.1f}% | {len(held_out)}, {100 * h[0]:.1f}%, {h[1]:.2f}x, "
                  f"{100 * h[2]:+.1f}% |")

    if mismatches:
        print(f"{args.check_preset}: MLP figures differ from the fit:\n  " +
              "\n  ".join(mismatches), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
