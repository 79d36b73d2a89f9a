#!/usr/bin/env python3
"""Holds whole training iterations against published DLRM throughputs (docs/validation/training.md).

Reads tests/data/training/points.csv (one published training throughput per line, with its
source URL, the scenario that stands for its system and model, and the `--set` overrides of its
precision; --points tests/data/inference/points.csv holds inference throughputs in the same
columns), runs each distinct scenario once with `shardsim run --format json`, and prints a
markdown table of measured vs predicted samples per second with the error (predicted / measured
- 1), the signed errors by framework, GPU, precision and GPU count (median and range), then the
median and worst absolute error and the worst ratio. Nothing is fitted: every
point is judged with the parameters the simulator ships.

  scripts/validate_training.py [--shardsim PATH] [--points CSV] [--set KEY=VALUE ...]
                               [--max-median X] [--max-ratio R]
                               [--figures YAML | --write-figures YAML]

--figures fails (exit 1) when YAML (configs/validation/training.yaml: the figures the reports'
trust line and `size`'s default margin quote) does not hold this run's point count, median
|error| (3 decimals) and worst ratio (2 decimals); --write-figures writes them there.

--set adds an override to every point's run (a what-if: e.g. a preset figure under
cluster.overrides). --max-median fails (exit 1) when the median |error| is above X; --max-ratio
when a prediction is off by more than a factor R either way. Bad input (an unreadable CSV, a
missing column or value, a measurement that is not a positive number, a scenario that does not
exist) exits 2 with the file, line and column. Needs python3 (standard library only).
"""
import argparse
import csv
import json
import math
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLUMNS = ["source_url", "framework", "system", "gpus", "model", "batch_per_gpu", "precision",
           "measured_samples_per_s", "scenario", "set", "notes"]


def fail(message, code=1):
    print(f"validate_training: {message}", file=sys.stderr)
    sys.exit(code)


def bad_input(message):
    fail(message, 2)


def read_points(path):
    try:
        f = open(path, newline="")
    except OSError as e:
        bad_input(f"{path}: cannot read the points ({e.strerror}); give --points a CSV with the "
                  f"columns {', '.join(COLUMNS)}")
    with f:
        reader = csv.DictReader(f)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            bad_input(f"{path}:1: missing column(s) {', '.join(missing)}; expected "
                      f"{', '.join(COLUMNS)}")
        points = []
        for line, row in enumerate(reader, start=2):
            for column in COLUMNS:
                if row.get(column) is None or (column not in ("set", "notes") and
                                               not row[column].strip()):
                    bad_input(f"{path}:{line}: column {column} is empty (every point needs "
                              f"{', '.join(c for c in COLUMNS if c not in ('set', 'notes'))})")
            try:
                row["measured"] = float(row["measured_samples_per_s"])
            except ValueError:
                row["measured"] = math.nan
            if not (math.isfinite(row["measured"]) and row["measured"] > 0):
                bad_input(f"{path}:{line}: measured_samples_per_s "
                          f"{row['measured_samples_per_s']!r} is not a positive number (samples "
                          "per second, e.g. 2880000)")
            if not row["source_url"].startswith("https://"):
                bad_input(f"{path}:{line}: source_url must be the https link of the point's "
                          "source")
            if not os.path.isfile(os.path.join(ROOT, row["scenario"])):
                bad_input(f"{path}:{line}: scenario {row['scenario']!r} does not exist (a path "
                          "under the repository root, e.g. "
                          "scenarios/validation/nvidia-dlrm-t15-1gpu.yaml)")
            points.append(row)
    if not points:
        bad_input(f"{path}: no points")
    return points


def predict(shardsim, scenario, overrides, extra):
    cmd = [shardsim, "run", os.path.join(ROOT, scenario), "--format", "json", "--quiet"]
    for item in overrides.split() + extra:
        cmd += ["--set", item]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        fail(f"{' '.join(cmd)} failed ({run.returncode}):\n{run.stderr}")
    report = json.loads(run.stdout)
    reports = report.get("reports", [report])
    if len(reports) != 1:
        fail(f"{scenario}: expected one report, got {len(reports)} (a sweep or several planners)")
    if not reports[0]["fits_in_memory"]:
        fail(f"{scenario}: the plan does not fit ({reports[0].get('fit_error')})")
    return reports[0]["qps"]


def gpu_family(system):
    """The GPU a system's name holds (A100, V100, ...), else the whole name."""
    for word in re.split(r"[\s(),]+", system):
        if re.fullmatch(r"[A-Z]\d{2,4}", word):
            return word
    return system


def print_groups(points, errors):
    """The errors by framework (its releases together), GPU, precision and one GPU or several:
    where the model is close and where it leans (signed medians), which the per-point table
    hides."""
    groups = {}
    for p, e in zip(points, errors):
        key = (p["framework"].split("-")[0], gpu_family(p["system"]), p["precision"],
               "1" if p["gpus"] == "1" else "several")
        groups.setdefault(key, []).append(e)
    print("\n| framework | GPU | precision | GPUs | points | median error | range |")
    print("|---|---|---|---|---|---|---|")
    for key in sorted(groups):
        es = groups[key]
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {len(es)} | "
              f"{statistics.median(es):+.1%} | {min(es):+.1%} … {max(es):+.1%} |")


def figures_text(points, median, worst):
    """The figures file: what the brief's trust line and size's default margin quote."""
    return ("# The validation the reports' trust line and `size`'s default --margin quote: whole\n"
            "# training iterations against published throughputs (tests/data/training/points.csv,\n"
            "# docs/validation/training.md). Written by scripts/validate_training.py\n"
            "# --write-figures; ctest validation.training fails when the build gives others.\n"
            "kind: whole training iterations\n"
            f"points: {points}\n"
            f"median_abs_error: {median:.3f}\n"
            f"worst_ratio: {worst:.2f}\n"
            "doc: docs/validation/training.md\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shardsim", default=os.environ.get("SHARDSIM", "build-test/shardsim"))
    ap.add_argument("--points", default=os.path.join(ROOT, "tests", "data", "training",
                                                     "points.csv"))
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="extra",
                    help="an override for every point's run (repeatable)")
    ap.add_argument("--max-median", type=float, help="fail (exit 1) above this median |error|")
    ap.add_argument("--max-ratio", type=float,
                    help="fail (exit 1) when a prediction is off by more than this factor")
    ap.add_argument("--figures", metavar="YAML",
                    help="fail (exit 1) unless YAML holds this run's figures")
    ap.add_argument("--write-figures", metavar="YAML", help="write this run's figures to YAML")
    args = ap.parse_args()
    if args.extra and (args.figures or args.write_figures):
        bad_input("--set changes the predictions: the figures are those of the shipped parameters")
    if not os.path.isfile(args.shardsim):
        bad_input(f"no shardsim binary at {args.shardsim} (build it, or give --shardsim / "
                  "SHARDSIM)")

    points = read_points(args.points)
    predicted = {}
    for p in points:
        key = (p["scenario"], p["set"])
        if key not in predicted:
            predicted[key] = predict(args.shardsim, *key, args.extra)

    print("| framework | system | GPUs | model | batch/GPU | precision | measured samples/s "
          "| predicted samples/s | error |")
    print("|---|---|---|---|---|---|---|---|---|")
    errors, ratios = [], []
    for p in points:
        qps = predicted[(p["scenario"], p["set"])]
        error = qps / p["measured"] - 1
        errors.append(error)
        ratios.append(max(qps / p["measured"], p["measured"] / qps))
        print(f"| {p['framework']} | {p['system']} | {p['gpus']} | {p['model']} | "
              f"{p['batch_per_gpu']} | "
              f"{p['precision']} | {p['measured']:,.0f} | {qps:,.0f} | {error:+.1%} |")
    print_groups(points, errors)
    median = statistics.median(abs(e) for e in errors)
    worst = max(ratios)
    worst_error = max(abs(e) for e in errors)
    print(f"\n{len(points)} points: median |error| {median:.1%}, worst {worst_error:.1%} (a factor "
          f"{worst:.2f}); predicted above measured on {sum(e > 0 for e in errors)}")

    bad = []
    figures = figures_text(len(points), median, worst)
    if args.write_figures:
        with open(args.write_figures, "w") as f:
            f.write(figures)
        print(f"wrote {args.write_figures}")
    if args.figures:
        try:
            with open(args.figures) as f:
                held = f.read()
        except OSError as e:
            bad_input(f"{args.figures}: cannot read the figures ({e.strerror})")
        if held != figures:
            bad.append(f"{args.figures} does not hold this build's figures ({len(points)} points, "
                       f"median {median:.3f}, worst {worst:.2f}): regenerate it with "
                       f"scripts/validate_training.py --write-figures {args.figures}")
    if args.max_median is not None and median > args.max_median:
        bad.append(f"median |error| {median:.3f} above --max-median {args.max_median}")
    if args.max_ratio is not None and worst > args.max_ratio:
        bad.append(f"worst ratio {worst:.3f} above --max-ratio {args.max_ratio}")
    if bad:
        fail("; ".join(bad))


if __name__ == "__main__":
    main()
