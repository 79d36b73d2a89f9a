"""Helpers shared by the paper drivers of scripts/reproduce.sh: running shardsim, the output
folder, CSV and markdown tables, and trend checks. Standard library only."""

import argparse
import csv
import json
import os
import subprocess
import sys
import time


class Reproduction:
    """The command line of a driver, its output folder and its collected results."""

    def __init__(self, description, add_arguments=None):
        ap = argparse.ArgumentParser(description=description)
        ap.add_argument("--shardsim", required=True, help="the shardsim binary")
        ap.add_argument("--paper", required=True, help="the paper's name (output folder)")
        ap.add_argument("--out", help="output folder (default out/reproduce/PAPER)")
        ap.add_argument("--force", action="store_true", help="overwrite an existing output folder")
        ap.add_argument("--only", help="comma-separated experiment names to run")
        ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="sweep points run in parallel (results do not depend on it)")
        if add_arguments:
            add_arguments(ap)  # a driver's own options
        self.args = ap.parse_args()
        self.root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        self.out = os.path.abspath(self.args.out or os.path.join(self.root, "out", "reproduce",
                                                                   self.args.paper))
        self.only = set(self.args.only.split(",")) if self.args.only else None
        self.sections = []  # (experiment name, markdown)
        self.checks = []    # (experiment, claim, ok)
        self._prepare_out()

    def _prepare_out(self):
        if os.path.exists(self.out) and not os.path.isdir(self.out):
            fail(f"{self.out}: exists and is not a folder")
        if os.path.isdir(self.out) and os.listdir(self.out) and not self.args.force:
            fail(f"{self.out}: the output folder exists and is not empty "
                 "(hint: pass --force to overwrite its results, or --out a fresh folder)")
        # With --force, the files this run writes are overwritten; nothing else is removed.
        os.makedirs(self.out, exist_ok=True)

    def wanted(self, name):
        return self.only is None or name in self.only

    def scenario(self, path):
        return os.path.join(self.root, path)

    def shardsim(self, *argv):
        """Runs shardsim with --format json --quiet; returns the list of reports."""
        cmd = [self.args.shardsim, *argv, "--format", "json", "--quiet"]
        start = time.time()
        proc = subprocess.run(cmd, cwd=self.root, capture_output=True, text=True)
        if proc.returncode != 0:
            fail(f"{' '.join(cmd)} failed (exit {proc.returncode}):\n{proc.stderr.strip()}")
        log(f"  {' '.join(argv[:2])}: {time.time() - start:.1f} s")
        data = json.loads(proc.stdout)
        return data["reports"] if "reports" in data else [data]

    def run(self, scenario, *extra):
        return self.shardsim("run", self.scenario(scenario), *extra)

    def sweep(self, scenario, *extra):
        return self.shardsim("sweep", self.scenario(scenario), "--jobs", str(self.args.jobs),
                             *extra)

    def experiment_dir(self, name):
        d = os.path.join(self.out, name)
        os.makedirs(d, exist_ok=True)
        return d

    def write_csv(self, name, header, rows):
        path = os.path.join(self.experiment_dir(name), "results.csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            for r in rows:
                w.writerow(["" if v is None else v for v in r])
        return path

    def add_section(self, name, markdown):
        with open(os.path.join(self.experiment_dir(name), "results.md"), "w") as f:
            f.write(markdown)
        self.sections.append((name, markdown))

    def check(self, experiment, claim, ok, detail):
        self.checks.append((experiment, claim, bool(ok), detail))
        return f"| {claim} | {detail} | {'agrees' if ok else '**differs**'} |"

    def finish(self, title, preamble):
        agree = sum(1 for c in self.checks if c[2])
        lines = [f"# {title}", "", preamble, "",
                 f"Trend checks: {agree} of {len(self.checks)} agree with the paper.", ""]
        for _, md in self.sections:
            lines += [md.rstrip(), ""]
        path = os.path.join(self.out, "results.md")
        with open(path, "w") as f:
            f.write("\n".join(lines))
        log(f"wrote {path} ({agree}/{len(self.checks)} trend checks agree)")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def fail(msg):
    print(f"reproduce: {msg}", file=sys.stderr)
    sys.exit(2)


def table(header, rows):
    """A markdown table; floats as given (format them before)."""
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        out.append("| " + " | ".join("" if v is None else str(v) for v in r) + " |")
    return "\n".join(out)


def stats(values):
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / n
    return min(values), mean, max(values), var


def fmt(x, digits=3):
    if x is None:
        return "n/a"
    if x == 0:
        return "0"
    if abs(x) >= 1000 or abs(x) < 10 ** -(digits):
        return f"{x:.{digits - 1}e}"
    return f"{x:.{digits}g}"
