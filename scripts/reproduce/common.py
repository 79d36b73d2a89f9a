"""Helpers shared by the paper drivers of scripts/reproduce.sh: running shardsim, the output
folder, CSV and markdown tables, trend checks (checks.json), PNG figures of ours beside the
paper's numbers (with matplotlib if it is installed, skipped otherwise) and the scoreboard of
`scripts/reproduce.sh all`. Standard library only; matplotlib is optional.

    python3 scripts/reproduce/common.py scoreboard DIR PAPER... [--failed PAPER...]

writes DIR/scoreboard.md and DIR/scoreboard.json from DIR/<paper>/checks.json; exits 1 if a
paper failed (listed after --failed, or without DIR/<paper>/checks.json)."""

import argparse
import csv
import json
import os
import subprocess
import sys
import time

# scripts/plot.py: shardsim's figures; the drivers draw with the same module (issue 18).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import plot  # noqa: E402


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

    def accept_only(self, names):
        """Stops (exit 2) when --only names something this driver does not run: a typo would
        otherwise run nothing, or everything, without a word."""
        unknown = (self.only or set()) - set(names)
        if unknown:
            fail(f"--only: unknown name(s) {', '.join(sorted(unknown))} (this driver takes: "
                 f"{', '.join(names)}, comma-separated)")

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

    def check(self, experiment, claim, ok, detail, rule, not_counted=None):
        """One trend check: `rule` says what counts as agree (written with the check, before
        its first run); `not_counted`, a one-line reason, lists a check that cannot fail (the
        set-up fixes its outcome) or that is not the paper's claim apart, outside the count."""
        self.checks.append(Check(experiment, claim, ok, detail, rule, not_counted))
        return check_row(claim, rule, detail, ok, not_counted)

    def figure_bars(self, name, categories, series, paper=None, ylabel="", title="", **kw):
        return figure_bars(self.experiment_dir(name), categories, series, paper, ylabel, title,
                           **kw)

    def figure_lines(self, name, series, paper=None, xlabel="", ylabel="", title="", **kw):
        return figure_lines(self.experiment_dir(name), series, paper, xlabel, ylabel, title, **kw)

    def figure_stacked(self, name, categories, series, ylabel="", title="", **kw):
        return figure_stacked(self.experiment_dir(name), categories, series, ylabel, title, **kw)

    def finish(self, title, preamble):
        write_checks(self.out, self.args.paper, self.checks)
        lines = [f"# {title}", "", preamble, "", count_sentence(self.checks), ""]
        for _, md in self.sections:
            lines += [md.rstrip(), ""]
        path = os.path.join(self.out, "results.md")
        with open(path, "w") as f:
            f.write("\n".join(lines))
        log(f"wrote {path} ({count_sentence(self.checks)})")


class Check:
    """A trend check: the paper's claim, whether ours agrees, our numbers (detail), the reading
    rule (what counts as agree) and, for a check that cannot fail or is not the paper's claim,
    why (then it is not counted)."""

    def __init__(self, experiment, claim, ok, detail, rule, not_counted=None):
        if not rule:
            fail(f"{experiment}: the check \"{claim}\" names no reading rule")
        self.experiment, self.claim, self.ok, self.detail = experiment, claim, bool(ok), detail
        self.rule, self.not_counted = rule, not_counted


CHECK_HEADER = ["| claim | reading rule | ours | verdict |", "|---|---|---|---|"]


def check_row(claim, rule, detail, ok, not_counted=None):
    verdict = "agrees" if ok else "**differs**"
    if not_counted:
        verdict += f" (not counted: {not_counted})"
    return f"| {claim} | {rule} | {detail} | {verdict} |"


def count_sentence(checks):
    counted = [c for c in checks if not c.not_counted]
    agree = sum(1 for c in counted if c.ok)
    left = len(checks) - len(counted)
    return (f"Trend checks: {agree} of {len(counted)} agree with the paper"
            + (f" ({left} more listed, not counted: they cannot fail or are not the paper's "
               "claims)." if left else "."))


def write_checks(out, paper, checks):
    """DIR/checks.json: every trend check (Check) of a paper's run, in the order made. The
    scoreboard of `reproduce.sh all` reads it."""
    data = {"paper": paper,
            "checks": [{"experiment": c.experiment, "claim": c.claim, "ok": c.ok,
                        "detail": c.detail, "rule": c.rule, "counted": not c.not_counted,
                        "not_counted": c.not_counted or ""} for c in checks]}
    path = os.path.join(out, "checks.json")
    with open(path, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    return path


# --- Figures (optional: python3-matplotlib) --------------------------------------------------

_plt = None
_plt_tried = False
FIGURE_SIZE = (6, 4)  # inches
FIGURE_DPI = 100


def _pyplot():
    """matplotlib.pyplot with the Agg backend, or None (logged once) if not installed."""
    global _plt, _plt_tried
    if not _plt_tried:
        _plt_tried = True
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            _plt = plt
        except ImportError:
            log("figures skipped: python3-matplotlib not installed")
    return _plt


def _save(plt, fig, ax, out_dir, title, filename):
    if title:
        ax.set_title(title, fontsize=10)
    ax.grid(True, axis="y", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, ncol=2 if len(ax.get_legend_handles_labels()[0]) > 4 else 1)
    fig.tight_layout()
    path = os.path.join(out_dir, filename)
    # No metadata: the same numbers give the same bytes.
    fig.savefig(path, dpi=FIGURE_DPI, metadata={"Software": None})
    plt.close(fig)
    log(f"  wrote {path}")
    return path


def _figure_setup(series, paper):
    """pyplot (None without matplotlib), the paper's series ({} for none) and one colour per
    label (a paper label that is one of ours shares its colour)."""
    paper = paper or {}
    plt = _pyplot()
    if plt is None:
        return None, paper, {}
    return plt, paper, plot.series_colours(list(series) + [k for k in paper if k not in series])


def figure_bars(out_dir, categories, series, paper=None, ylabel="", title="", logy=False,
                filename="figure.png"):
    """Grouped bars of ours beside the paper's (plot.draw_paper_bars, scripts/plot.py: the same
    drawing code as shardsim's own figures). Saves out_dir/filename (6 x 4 in, 100 dpi) and
    returns its path, or None without matplotlib."""
    plt, paper, colour = _figure_setup(series, paper)
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=FIGURE_SIZE)
    plot.draw_paper_bars(ax, categories, series, paper, colour, ylabel, logy)
    return _save(plt, fig, ax, out_dir, title, filename)


def figure_stacked(out_dir, categories, series, ylabel="", title="", filename="figure.png"):
    """Stacked bars of ours alone (plot.draw_stacked_bars), for a figure whose values the paper
    does not print. Saves out_dir/filename and returns its path, or None without matplotlib."""
    plt, _, colour = _figure_setup(series, None)
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=FIGURE_SIZE)
    plot.draw_stacked_bars(ax, categories, series, colour, ylabel)
    return _save(plt, fig, ax, out_dir, title, filename)


def figure_lines(out_dir, series, paper=None, xlabel="", ylabel="", title="", logx=False,
                 logy=False, paper_lines=True, filename="figure.png"):
    """Lines of ours beside the paper's markers (plot.draw_paper_lines, scripts/plot.py). Saves
    out_dir/filename and returns its path, or None without matplotlib."""
    plt, paper, colour = _figure_setup(series, paper)
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=FIGURE_SIZE)
    plot.draw_paper_lines(ax, series, paper, colour, xlabel, ylabel, logx, logy, paper_lines)
    return _save(plt, fig, ax, out_dir, title, filename)


# --- Scoreboard (scripts/reproduce.sh all) ---------------------------------------------------

def scoreboard(out, papers, failed=()):
    """Reads out/<paper>/checks.json for each paper and writes out/scoreboard.md and
    out/scoreboard.json: every check (paper, experiment, claim, PASS/DISAGREE, ours), the counts
    per paper and the overall share agreeing. A paper without checks.json (its driver failed)
    is listed as failed."""
    rows, uncounted, per_paper = [], [], {}
    for paper in papers:
        path = os.path.join(out, paper, "checks.json")
        entry = {"checks": 0, "pass": 0, "disagree": 0, "not_counted": 0,
                 "failed": paper in failed or not os.path.isfile(path)}
        if os.path.isfile(path):
            with open(path) as f:
                for c in json.load(f)["checks"]:
                    row = {"paper": paper, "experiment": c["experiment"], "claim": c["claim"],
                           "ok": c["ok"], "detail": c["detail"], "rule": c["rule"],
                           "verdict": "PASS" if c["ok"] else "DISAGREE"}
                    if not c["counted"]:
                        uncounted.append({**row, "not_counted": c["not_counted"]})
                        entry["not_counted"] += 1
                        continue
                    rows.append(row)
                    entry["checks"] += 1
                    entry["pass" if c["ok"] else "disagree"] += 1
        per_paper[paper] = entry
    total = len(rows)
    agree = sum(1 for r in rows if r["ok"])
    pct = 100.0 * agree / total if total else 0.0
    summary = {"papers": per_paper, "checks": total, "pass": agree, "disagree": total - agree,
               "not_counted": len(uncounted), "agree_percent": round(pct, 1),
               "failed": sorted(p for p, e in per_paper.items() if e["failed"])}
    with open(os.path.join(out, "scoreboard.json"), "w") as f:
        json.dump({"summary": summary, "checks": rows, "not_counted": uncounted}, f, indent=1,
                  sort_keys=True)
        f.write("\n")

    def cell(text):
        return str(text).replace("|", "\\|").replace("\n", " ")

    md = ["# Reproductions: scoreboard", "",
          "Every trend check of every paper's reproduction (`scripts/reproduce.sh all`): PASS "
          "where ours agrees with the paper's claim, DISAGREE where it does not. "
          f"Overall: **{agree} of {total} agree ({pct:.1f}%)**; {len(uncounted)} more are "
          "listed apart, not counted: they cannot fail or are not the paper's claims.", "",
          table(["paper", "checks", "PASS", "DISAGREE", "agree", "not counted", "driver"],
                [[p, e["checks"], e["pass"], e["disagree"],
                  f"{100.0 * e['pass'] / e['checks']:.1f}%" if e["checks"] else "n/a",
                  e["not_counted"], "FAILED" if e["failed"] else "ok"]
                 for p, e in per_paper.items()]), "",
          table(["paper", "experiment", "claim (the paper's)", "reading rule", "ours", "verdict"],
                [[r["paper"], r["experiment"], cell(r["claim"]), cell(r["rule"]),
                  cell(r["detail"]), r["verdict"]] for r in rows]), ""]
    if uncounted:
        md += ["## Not counted (cannot fail, or not the paper's claim)", "",
               table(["paper", "experiment", "claim", "ours", "verdict", "why not counted"],
                     [[r["paper"], r["experiment"], cell(r["claim"]), cell(r["detail"]),
                       r["verdict"], cell(r["not_counted"])] for r in uncounted]), ""]
    if summary["failed"]:
        md += [f"Failed drivers (no or partial checks): {', '.join(summary['failed'])}.", ""]
    with open(os.path.join(out, "scoreboard.md"), "w") as f:
        f.write("\n".join(md))
    log(f"wrote {os.path.join(out, 'scoreboard.md')}: {agree} of {total} checks agree "
        f"({pct:.1f}%; {len(uncounted)} not counted)" +
        "".join(f"; {p} {e['pass']}/{e['checks']}" for p, e in per_paper.items()))
    return summary


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


if __name__ == "__main__":
    cli = argparse.ArgumentParser(description="writes DIR/scoreboard.md and scoreboard.json")
    cli.add_argument("command", choices=["scoreboard"])
    cli.add_argument("out")
    cli.add_argument("papers", nargs="*")
    cli.add_argument("--failed", nargs="*", default=[])
    a = cli.parse_args()
    # Exit 1 when a paper's driver failed (or left no checks.json).
    sys.exit(1 if scoreboard(a.out, a.papers, a.failed)["failed"] else 0)
