#!/usr/bin/env python3
"""Figures of shardsim's reports (docs/report.md, "Figures").

Reads what shardsim writes -- a report JSON (`run --format json`, `run --out DIR`'s
report.json, `sweep`/`size`/`baseline` output), a summary.csv, or `compare --format json` --
and draws PNG (or SVG with --format svg) figures with matplotlib:

  gpus       per-GPU stacked time bars (embedding, dense compute, communication, waiting
             for a collective's peers, host, idle; the critical GPU marked) and per-GPU memory
             against capacity (HBM, and host memory where tables live there)
  breakdown  the critical GPU's iteration as one bar of exposed phases
  comm       the communication matrix as a heatmap (log colour; node x node at scale)
  sweep      QPS and iteration time against the first swept key, one line per planner and
             value of the second key, one column per value of the third (plot_sweep.py)
  compare    the metrics that moved, baseline vs candidate, one panel per pair (plot_compare.py)
  diff       two runs' headline metrics side by side, A vs B bars with % change, per planner
             and sweep point, paired as `shardsim diff` pairs them (plot_compare.py)

Usage:
  scripts/plot.py report REPORT.json [--out DIR] [--format png|svg] [--planner NAME]
  scripts/plot.py sweep  REPORT.json|summary.csv [--out DIR] [--key cluster.nodes]
  scripts/plot.py compare COMPARE.json [--out DIR]
  scripts/plot.py diff A B [--out DIR]     # A, B: report JSON files or runs' --out folders

Importable without side effects (`sys.path.insert(0, "scripts"); import plot`): each
`draw_*` function takes the parsed data and a matplotlib Axes or file path, so other scripts
(the paper reproductions) draw with the same code. matplotlib is imported lazily, on the first
figure, so `import plot` works where it is missing; `have_matplotlib()` says whether it is
installed (Debian: python3-matplotlib, installed by scripts/deps.sh).
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import sys

from plot_common import (FIGSIZE, PlotError, _plt, byte_unit, have_matplotlib,  # noqa: F401
                         load_any, load_comparison, load_reports, load_run, load_summary_csv,
                         new_figure, plain_number, report_title, save, timed)
from plot_compare import (DIFF_METRICS, compare_figure, diff_figure, diff_pairs,  # noqa: F401
                          draw_compare, draw_diff_metric, moved_metrics, plot_compare, plot_diff)
from plot_paper import (draw_paper_bars, draw_paper_lines, draw_stacked_bars,  # noqa: F401
                        series_colours)
from plot_sweep import (draw_sweep, plot_sweep, sweep_facets, sweep_figure,  # noqa: F401
                        sweep_layout, sweep_lines, sweep_pairs)

# Colours per kind of work: the same in every figure.
# Colours per kind of work: the same in every figure.
KIND_COLOURS = {
    "embedding": "#1f77b4",
    "dense_compute": "#2ca02c",
    "communication": "#ff7f0e",
    "comm_wait": "#ffbb78",
    "host": "#9467bd",
    "idle": "#d9d9d9",
}
KIND_LABELS = {
    "embedding": "embedding kernels",
    "dense_compute": "dense compute",
    "communication": "communication",
    "comm_wait": "waiting for peers",
    "host": "host step",
    "idle": "idle",
}
MEMORY_PARTS = [
    ("weights_bytes", "weights", "#1f77b4"),
    ("optimizer_bytes", "optimizer state", "#aec7e8"),
    ("cache_bytes", "HBM caches", "#17becf"),
    ("activation_bytes", "activations + dense", "#2ca02c"),
    ("reserved_bytes", "reserved", "#c7c7c7"),
]
# The phases of breakdown_s (docs/report.md), each with a fixed colour across figures.
PHASES = ["input_alltoall", "bottom_mlp_fwd", "embedding_lookup_fwd", "alltoall_fwd",
          "interaction_fwd", "top_mlp_fwd", "top_mlp_bwd", "interaction_bwd", "alltoall_bwd",
          "embedding_update_bwd", "bottom_mlp_bwd", "mlp_allreduce", "dense_optimizer",
          "embedding_replica_allreduce", "embedding_replica_sync", "host_step"]
MAX_GPU_BARS = 128  # beyond this the per-GPU bars are too thin: one bar per node instead
MAX_MATRIX_UNITS = 64  # beyond this the matrix is drawn node x node


def comm_matrices(r: dict) -> tuple[list[list[float]], str]:
    """(forward + backward bytes per iteration, unit) of a report: from its JSON, or from the
    CSV files `--out` wrote next to it."""
    comm = r.get("comm_bytes")
    granularity = "gpu"
    fwd = bwd = None
    if isinstance(comm, dict):
        granularity = comm.get("granularity", "gpu")
        fwd, bwd = comm.get("fwd"), comm.get("bwd")
    if fwd is None and isinstance(r.get("comm_matrix_files"), dict):
        files = r["comm_matrix_files"]
        fwd = _read_matrix_csv(os.path.join(r["_dir"], files["fwd"]))
        bwd = _read_matrix_csv(os.path.join(r["_dir"], files["bwd"]))
    if fwd is None:
        raise PlotError(f"report {r.get('planner')}: no communication matrix (granularity "
                        f"'{granularity}'); run with --out DIR or --format json")
    m = [[(a or 0.0) + (b or 0.0) for a, b in zip(fr, br)] for fr, br in zip(fwd, bwd or fwd)]
    return m, granularity


def _read_matrix_csv(path: str) -> list[list[float]]:
    try:
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise PlotError(f"{path}: cannot read: {e.strerror}") from e
    return [[float(c) if c else 0.0 for c in row[1:]] for row in rows[1:]]


def aggregate(m: list[list[float]], unit_of: list[int]) -> list[list[float]]:
    """Sums a unit x unit matrix into groups: unit i belongs to group unit_of[i]."""
    k = max(unit_of) + 1 if unit_of else 0
    out = [[0.0] * k for _ in range(k)]
    for i, row in enumerate(m):
        for j, v in enumerate(row):
            out[unit_of[i]][unit_of[j]] += v
    return out


# --- Drawing -------------------------------------------------------------------------------


def gpu_time_shares(r: dict) -> list[dict]:
    """Per GPU, the iteration's time shares in ms (report JSON per_gpu[].time_shares_s)."""
    out = []
    for g in r.get("per_gpu", []):
        s = g.get("time_shares_s")
        if not isinstance(s, dict):
            raise PlotError(f"report {r.get('planner')}: GPU {g.get('gpu')} has no time_shares_s "
                            "(not simulated, or a report from before time shares existed; CHANGELOG.md)")
        out.append({k: 1e3 * (s.get(k) or 0.0) for k in KIND_COLOURS})
    return out


def draw_gpu_time(ax, r: dict) -> None:
    """Stacked bars of each GPU's iteration (ms), the critical GPU marked."""
    shares = gpu_time_shares(r)
    n = len(shares)
    critical = r.get("critical_gpu")
    xs = list(range(n))
    bottom = [0.0] * n
    for kind, colour in KIND_COLOURS.items():
        vals = [s[kind] for s in shares]
        if not any(vals):
            continue
        ax.bar(xs, vals, bottom=bottom, color=colour, label=KIND_LABELS[kind],
               width=0.85 if n <= MAX_GPU_BARS else 1.0, linewidth=0)
        bottom = [b + v for b, v in zip(bottom, vals)]
    if isinstance(critical, int) and 0 <= critical < n:
        ax.annotate("critical", xy=(critical, bottom[critical]), xytext=(0, 6),
                    textcoords="offset points", ha="center", fontsize=10, fontweight="bold")
        ax.bar([critical], [bottom[critical]], fill=False, edgecolor="black", linewidth=1.8,
               width=0.85 if n <= MAX_GPU_BARS else 1.0)
    ax.set_xlabel("GPU")
    ax.set_ylabel("time per iteration (ms)")
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_ylim(0, max(bottom or [1]) * 1.15)
    if n <= 32:
        ax.set_xticks(xs)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=9, frameon=False)


def draw_gpu_memory(ax, r: dict) -> None:
    """Stacked HBM use per GPU (GB) against its capacity; host memory as hatched bars."""
    gpus = r.get("per_gpu", [])
    n = len(gpus)
    xs = list(range(n))
    bottom = [0.0] * n
    for key, label, colour in MEMORY_PARTS:
        vals = [(g.get(key) or 0.0) / 1e9 for g in gpus]
        if not any(vals):
            continue
        ax.bar(xs, vals, bottom=bottom, color=colour, label=label, linewidth=0,
               width=0.85 if n <= MAX_GPU_BARS else 1.0)
        bottom = [b + v for b, v in zip(bottom, vals)]
    host = [(g.get("host_memory_bytes") or 0.0) / 1e9 for g in gpus]
    if any(host):
        ax.bar(xs, host, bottom=bottom, color="white", edgecolor="#8c564b", hatch="//",
               label="host memory (not HBM)", linewidth=0.5)
    caps = {g.get("memory_capacity_bytes") for g in gpus}
    for cap in sorted(c for c in caps if c):
        ax.axhline(cap / 1e9, color="#d62728", linestyle="--", linewidth=1.5,
                   label=f"HBM capacity {cap / 1e9:.1f} GB")
    ax.set_xlabel("GPU")
    ax.set_ylabel("memory (GB)")
    ax.set_xlim(-0.6, n - 0.4)
    if n <= 32:
        ax.set_xticks(xs)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=9, frameon=False)


def plot_gpus(r: dict, path: str) -> str:
    fig, (a, b) = new_figure(2, size=(FIGSIZE[0], FIGSIZE[1] * 1.45))
    draw_gpu_time(a, r)
    crit = r.get("critical_gpu")
    it = (r.get("iteration_time_s") or {}).get("mean")
    a.set_title(report_title(r, "Time per GPU") +
                (f"\niteration {1e3 * it:.3f} ms, critical GPU {crit}" if it else ""))
    draw_gpu_memory(b, r)
    b.set_title(report_title(r, "Memory per GPU"))
    return save(fig, path)


def draw_breakdown(ax, r: dict) -> None:
    """The critical GPU's iteration as one horizontal bar of exposed phases (ms)."""
    b = r.get("breakdown_s")
    if not isinstance(b, dict):
        raise PlotError(f"report {r.get('planner')}: no breakdown (the plan was not simulated)")
    phases = [(k, 1e3 * (v.get("exposed") or 0.0)) for k, v in b.items()]
    phases = [(k, v) for k, v in phases if v > 0]
    cmap = _plt().get_cmap("tab20")
    left = 0.0
    total = sum(v for _, v in phases)
    for i, (k, v) in enumerate(phases):
        colour = (KIND_COLOURS["idle"] if k == "idle" else
                  cmap(PHASES.index(k) % 20) if k in PHASES else cmap((15 + i) % 20))
        ax.barh([0], [v], left=left, color=colour, label=f"{k} ({v:.3f} ms)", height=0.6,
                edgecolor="white", linewidth=0.5)
        if total > 0 and v / total > 0.07:
            ax.text(left + v / 2, 0, k.replace("_", "\n", 1), ha="center", va="center",
                    fontsize=9)
        left += v
    it = (r.get("iteration_time_s") or {}).get("mean")
    if it:
        ax.axvline(1e3 * it, color="black", linestyle=":", linewidth=1,
                   label=f"iteration time {1e3 * it:.3f} ms")
    ax.set_yticks([])
    ax.set_xlabel("exposed time per iteration on the critical GPU (ms)")
    ax.set_xlim(0, max(left, 1e3 * (it or 0)) * 1.02 or 1)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=3, fontsize=9,
              frameon=False)


def plot_breakdown(r: dict, path: str) -> str:
    fig, (ax,) = new_figure(1, size=(FIGSIZE[0], 4.2))
    draw_breakdown(ax, r)
    ax.set_title(report_title(r, f"Critical path (GPU {r.get('critical_gpu')})"))
    return save(fig, path)


def log_ticks(vmin: float, vmax: float) -> list[float]:
    """Ticks for a log colour scale from vmin to vmax: the 1-2-5 values between them (only the
    powers of ten over more than three decades); over a narrow range (fewer than three of
    those), evenly spaced round values instead."""
    from matplotlib.ticker import MaxNLocator

    steps = (1,) if vmax / vmin > 1e3 else (1, 2, 5)
    ticks = [m * 10.0 ** e for e in range(math.floor(math.log10(vmin)),
                                          math.ceil(math.log10(vmax)) + 1) for m in steps]
    inside = [t for t in ticks if vmin * (1 - 1e-9) <= t <= vmax * (1 + 1e-9)]
    if len(inside) < 3:
        even = MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]).tick_values(vmin, vmax)
        inside = [float(t) for t in even if vmin * (1 - 1e-9) <= t <= vmax * (1 + 1e-9)]
    return inside


def draw_comm(ax, r: dict):
    """Heatmap of bytes per iteration (fwd + bwd) unit -> unit, log colour scale; the colour
    bar in the byte unit that reads 1 to 999 at its top, plain tick numbers."""
    from matplotlib.colors import LogNorm
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    m, unit = comm_matrices(r)
    gpus = r.get("per_gpu", [])
    if unit == "gpu" and len(m) > MAX_MATRIX_UNITS and len(gpus) == len(m):
        m = aggregate(m, [g["node"] for g in gpus])
        unit = "node"
    positive = [v for row in m for v in row if v > 0]
    if not positive:
        ax.text(0.5, 0.5, "no embedding traffic", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_axis_off()
        return None
    scale, byte_name = byte_unit(max(positive))
    vmin, vmax = min(positive) / scale, max(positive) / scale
    if vmin == vmax:  # one value: a colour bar around it
        vmin, vmax = vmin / 1.5, vmax * 1.5
    im = ax.imshow([[v / scale if v > 0 else math.nan for v in row] for row in m],
                   cmap="viridis", norm=LogNorm(vmin=vmin, vmax=vmax), interpolation="nearest")
    name = "GPU" if unit == "gpu" else unit
    ax.set_xlabel(f"destination {name} (receiver)")
    ax.set_ylabel(f"source {name} (sender)")
    if len(m) <= 32:
        ax.set_xticks(range(len(m)))
        ax.set_yticks(range(len(m)))
    cb = ax.figure.colorbar(im, ax=ax)
    cb.ax.yaxis.set_major_locator(FixedLocator(log_ticks(vmin, vmax)))
    cb.ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: plain_number(v)))
    cb.ax.yaxis.set_minor_locator(NullLocator())
    cb.set_label(f"{byte_name} per iteration, fwd + bwd (log scale; white: none)")
    return im


def plot_comm(r: dict, path: str) -> str:
    fig, (ax,) = new_figure(1, size=(7.5, 6.2))
    draw_comm(ax, r)
    ax.set_title(report_title(r, "Communication matrix"), fontsize=11)
    return save(fig, path)


# --- Command line ----------------------------------------------------------------------------


def figure_tag(r: dict) -> str:
    """The file name suffix of a report's figures: "-<planner>", and "-<sweep point>" in a
    sweep ("=" and spaces dropped, "," as "-", other characters outside [A-Za-z0-9._-] as
    "_"): gpus-row_wise-cluster.nodes2-workload.batch_per_gpu1024.png."""
    tag = "-" + _safe(r.get("planner") or "report")
    point = r.get("sweep_point") or ""
    if point:
        point = point.replace("=", "").replace(" ", "").replace(",", "-")
        tag += "-" + _safe(point)[:120]
    return tag


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in text)


def report_figures(reports: list[dict], out: str, fmt: str) -> list[str]:
    """gpus-, breakdown- and comm-<tag> per report (figure_tag; "-<i>" after a tag that two
    reports share); memory and traffic only for a plan that was not simulated."""
    written, seen = [], set()
    for i, r in enumerate(reports):
        tag = figure_tag(r)
        if tag in seen:
            tag += f"-{i}"
        seen.add(tag)
        if not timed(r):
            print(f"plot.py: {r.get('planner')}: not simulated ({r.get('fit_error')}); "
                  "memory and traffic only", file=sys.stderr)
            fig, (ax,) = new_figure(1)
            draw_gpu_memory(ax, r)
            ax.set_title(report_title(r, "Memory per GPU (does not fit)"))
            written.append(save(fig, os.path.join(out, f"gpus{tag}.{fmt}")))
        else:
            written.append(plot_gpus(r, os.path.join(out, f"gpus{tag}.{fmt}")))
            written.append(plot_breakdown(r, os.path.join(out, f"breakdown{tag}.{fmt}")))
        written.append(plot_comm(r, os.path.join(out, f"comm{tag}.{fmt}")))
    return written


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description="Figures of shardsim reports (docs/report.md).")
    p.add_argument("kind", choices=["report", "sweep", "compare", "diff"])
    p.add_argument("input", help="report JSON, summary.csv (sweep), compare JSON, or diff's A")
    p.add_argument("other", nargs="?", help="diff: B (a report JSON or a run's --out folder)")
    p.add_argument("--out", default="figures", help="folder for the figures (default figures/)")
    p.add_argument("--format", choices=["png", "svg"], default="png")
    p.add_argument("--key", help="sweep: the swept key to put on the x axis (default: first)")
    p.add_argument("--planner", help="report: only this planner's reports")
    return p


def draw_figures(a: argparse.Namespace) -> list[str]:
    """The figures of a parsed command line; PlotError for bad input."""
    if (a.other is not None) != (a.kind == "diff"):
        raise PlotError("diff takes two inputs (A B); the other figures take one")
    if a.kind == "report":
        reports = [r for r in load_reports(a.input)
                   if not a.planner or r.get("planner") == a.planner]
        if not reports:
            raise PlotError(f"{a.input}: no report of planner '{a.planner}'")
        return report_figures(reports, a.out, a.format)
    if a.kind == "sweep":
        return [plot_sweep(load_any(a.input), os.path.join(a.out, f"sweep.{a.format}"), a.key)]
    if a.kind == "compare":
        return [plot_compare(load_comparison(a.input),
                             os.path.join(a.out, f"compare.{a.format}"))]
    labels = (f"A: {a.input}", f"B: {a.other}")
    return [plot_diff(load_run(a.input), load_run(a.other),
                      os.path.join(a.out, f"diff.{a.format}"), labels)]


def main(argv: list[str] | None = None) -> int:
    a = _parser().parse_args(argv)
    system_python = "/usr/bin/python3"
    if (not have_matplotlib() and argv is None and os.path.realpath(sys.executable)
            != os.path.realpath(system_python) and os.access(system_python, os.X_OK)):
        # Another python3 first on PATH (pyenv, a venv) without matplotlib: Debian's has it.
        os.execv(system_python, [system_python, os.path.abspath(__file__), *sys.argv[1:]])
    if not have_matplotlib():
        print("plot.py: matplotlib is missing; install python3-matplotlib (scripts/deps.sh)",
              file=sys.stderr)
        return 4
    try:
        written = draw_figures(a)
    except PlotError as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"plot.py: cannot write figures: {e}", file=sys.stderr)
        return 5
    for w in written:
        print(w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
