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
  sweep      QPS and iteration time against the swept key, one line per planner, unfit
             points marked
  compare    the metrics that moved, baseline vs candidate

Usage:
  scripts/plot.py report REPORT.json [--out DIR] [--format png|svg]   # gpus, breakdown, comm
  scripts/plot.py sweep  REPORT.json|summary.csv [--out DIR] [--key cluster.nodes]
  scripts/plot.py compare COMPARE.json [--out DIR]

Importable without side effects (`sys.path.insert(0, "scripts"); import plot`): each
`draw_*` function takes the parsed data and a matplotlib Axes or file path, so other scripts
(the paper reproductions) draw with the same code. matplotlib is imported lazily, on the first
figure, so `import plot` works where it is missing; `have_matplotlib()` says whether it is
installed (Debian: python3-matplotlib, installed by scripts/deps.sh).
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys

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
FIGSIZE = (10, 5.6)  # inches; 100 dpi -> 1000 x 560 pixels, legible on a slide
DPI = 100
MAX_GPU_BARS = 128  # beyond this the per-GPU bars are too thin: one bar per node instead
MAX_MATRIX_UNITS = 64  # beyond this the matrix is drawn node x node


class PlotError(Exception):
    """Bad input: the message says which file and what was expected."""


def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# --- Reading -------------------------------------------------------------------------------


def load_reports(path: str) -> list[dict]:
    """The reports of a shardsim JSON file ({"reports": [...]}, a list, or one report)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise PlotError(f"{path}: cannot read: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise PlotError(f"{path}: line {e.lineno}: not JSON ({e.msg}); expected a shardsim "
                        "report (`shardsim run --format json`)") from e
    if isinstance(data, dict) and "reports" in data:
        reports = data["reports"]
    elif isinstance(data, list):
        reports = data
    elif isinstance(data, dict) and "planner" in data:
        reports = [data]
    else:
        raise PlotError(f"{path}: no 'reports' list; expected the output of `shardsim run "
                        "--format json` (or report.json of --out)")
    base = os.path.dirname(os.path.abspath(path))
    for r in reports:
        r.setdefault("_dir", base)
    return reports


def load_summary_csv(path: str) -> list[dict]:
    """summary.csv rows as reports with the fields the sweep figure needs."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise PlotError(f"{path}: cannot read: {e.strerror}") from e
    if not rows or "planner" not in rows[0]:
        raise PlotError(f"{path}: no 'planner' column; expected shardsim's summary.csv")

    def num(v):
        return float(v) if v not in (None, "") else None

    out = []
    for row in rows:
        mean = num(row.get("iteration_mean_s"))
        out.append({
            "scenario": row.get("scenario", ""),
            "planner": row["planner"],
            "sweep_point": row.get("sweep_point", ""),
            "num_gpus": int(row.get("num_gpus") or 0),
            "qps": num(row.get("qps")),
            "iteration_time_s": {"mean": mean} if mean is not None else None,
            "fits_in_memory": row.get("fits_in_memory") == "true",
        })
    return out


def load_any(path: str) -> list[dict]:
    return load_summary_csv(path) if path.endswith(".csv") else load_reports(path)


def _timed(r: dict) -> bool:
    return isinstance(r.get("iteration_time_s"), dict)


def report_title(r: dict, what: str) -> str:
    t = f"{what} -- {r.get('scenario', '?')}, planner {r.get('planner', '?')}"
    if r.get("sweep_point"):
        t += f" ({r['sweep_point']})"
    return t


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


def _new_figure(rows=1, height_ratios=None, size=FIGSIZE):
    plt = _plt()
    fig, axes = plt.subplots(rows, 1, figsize=size, dpi=DPI, squeeze=False,
                             gridspec_kw={"height_ratios": height_ratios} if height_ratios else None)
    return fig, [a[0] for a in axes]


def _save(fig, path: str) -> str:
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=DPI)
    _plt().close(fig)
    return path


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
    fig, (a, b) = _new_figure(2, size=(FIGSIZE[0], FIGSIZE[1] * 1.45))
    draw_gpu_time(a, r)
    crit = r.get("critical_gpu")
    it = (r.get("iteration_time_s") or {}).get("mean")
    a.set_title(report_title(r, "Time per GPU") +
                (f"\niteration {1e3 * it:.3f} ms, critical GPU {crit}" if it else ""))
    draw_gpu_memory(b, r)
    b.set_title(report_title(r, "Memory per GPU"))
    return _save(fig, path)


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
    fig, (ax,) = _new_figure(1, size=(FIGSIZE[0], 4.2))
    draw_breakdown(ax, r)
    ax.set_title(report_title(r, f"Critical path (GPU {r.get('critical_gpu')})"))
    return _save(fig, path)


def draw_comm(ax, r: dict):
    """Heatmap of bytes per iteration (fwd + bwd) unit -> unit, log colour scale."""
    from matplotlib.colors import LogNorm

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
    masked = [[v if v > 0 else math.nan for v in row] for row in m]
    im = ax.imshow([[v / 1e6 for v in row] for row in masked], cmap="viridis",
                   norm=LogNorm(vmin=min(positive) / 1e6, vmax=max(positive) / 1e6),
                   interpolation="nearest")
    name = "GPU" if unit == "gpu" else unit
    ax.set_xlabel(f"destination {name} (receiver)")
    ax.set_ylabel(f"source {name} (sender)")
    if len(m) <= 32:
        ax.set_xticks(range(len(m)))
        ax.set_yticks(range(len(m)))
    cb = ax.figure.colorbar(im, ax=ax)
    cb.set_label("MB per iteration, fwd + bwd (log scale; white: none)")
    return im


def plot_comm(r: dict, path: str) -> str:
    fig, (ax,) = _new_figure(1, size=(7.5, 6.2))
    draw_comm(ax, r)
    ax.set_title(report_title(r, "Communication matrix"), fontsize=11)
    return _save(fig, path)


def sweep_x(point: str, key: str | None) -> tuple[str, float | str]:
    """(key, value) of a sweep point label "a=1,b=2": the named key, else the first."""
    pairs = [p.split("=", 1) for p in point.split(",") if "=" in p] if point else []
    if not pairs:
        return ("sweep point", point or "-")
    chosen = next((p for p in pairs if p[0] == key), pairs[0])
    try:
        return chosen[0], float(chosen[1])
    except ValueError:
        return chosen[0], chosen[1]


def sweep_series(reports: list[dict], key: str | None = None):
    """{planner: [(x, qps or None, iteration ms or None, fits)]}, x sorted, and the key."""
    series: dict[str, list] = {}
    name = key
    for r in reports:
        k, x = sweep_x(r.get("sweep_point", ""), key)
        name = name or k
        timed = _timed(r)
        series.setdefault(r["planner"], []).append(
            (x, r.get("qps") if timed else None,
             1e3 * r["iteration_time_s"]["mean"] if timed else None, timed))
    numeric = all(isinstance(p[0], float) for s in series.values() for p in s)
    for s in series.values():
        s.sort(key=lambda p: p[0] if numeric else str(p[0]))
    return series, name or "sweep point", numeric


def draw_sweep(ax_qps, ax_time, reports: list[dict], key: str | None = None) -> None:
    series, name, numeric = sweep_series(reports, key)
    categories = sorted({str(p[0]) for s in series.values() for p in s})
    pos = (lambda x: x) if numeric else (lambda x: categories.index(str(x)))
    any_unfit = False
    for i, (planner, pts) in enumerate(sorted(series.items())):
        colour = f"C{i % 10}"
        for ax, col, scale in ((ax_qps, 1, 1e-6), (ax_time, 2, 1.0)):
            fit = [(pos(p[0]), p[col] * scale) for p in pts if p[3]]
            if fit:
                ax.plot([f[0] for f in fit], [f[1] for f in fit], marker="o", color=colour,
                        label=planner)
            unfit = [pos(p[0]) for p in pts if not p[3]]
            if unfit:
                any_unfit = True
                ax.plot(unfit, [0] * len(unfit), linestyle="none", marker="x", markersize=11,
                        markeredgewidth=2.5, color=colour, clip_on=False)
    if any_unfit:  # one legend entry for the crosses, in black
        ax_qps.plot([], [], linestyle="none", marker="x", markersize=11, markeredgewidth=2.5,
                    color="black", label="does not fit (on the x axis)")
    ax_qps.set_ylabel("QPS (million samples/s)")
    ax_time.set_ylabel("iteration time (ms)")
    for ax in (ax_qps, ax_time):
        ax.set_xlabel(name)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        if not numeric:
            ax.set_xticks(range(len(categories)))
            ax.set_xticklabels(categories, rotation=20, ha="right")
    if numeric:
        xs = sorted({p[0] for s in series.values() for p in s})
        if len(xs) > 2 and xs[0] > 0 and xs[-1] / xs[0] >= 8:
            for ax in (ax_qps, ax_time):
                ax.set_xscale("log", base=2)
        for ax in (ax_qps, ax_time):
            if len(xs) <= 12:
                ax.set_xticks(xs)
                ax.set_xticklabels([f"{x:g}" for x in xs])
                ax.minorticks_off()
    ax_qps.legend(fontsize=9, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))


def plot_sweep(reports: list[dict], path: str, key: str | None = None) -> str:
    fig, (a, b) = _new_figure(2, size=(FIGSIZE[0], FIGSIZE[1] * 1.35))
    draw_sweep(a, b, reports, key)
    scen = reports[0].get("scenario", "?") if reports else "?"
    planners = sorted({r["planner"] for r in reports})
    a.set_title(f"QPS -- {scen}, planners {', '.join(planners)}")
    b.set_title(f"Iteration time -- {scen}")
    return _save(fig, path)


def load_comparison(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise PlotError(f"{path}: cannot read a comparison: {e}") from e
    if not isinstance(data, dict) or "pairs" not in data:
        raise PlotError(f"{path}: no 'pairs'; expected `shardsim compare ... --format json`")
    return data


def moved_metrics(pair: dict, min_change: float = 1e-9) -> list[dict]:
    """The metrics of a compared pair whose value changed."""
    out = []
    for m in pair.get("metrics", []):
        c = m.get("change")
        if isinstance(c, (int, float)) and math.isfinite(c) and abs(c) > min_change:
            out.append(m)
    return out


def draw_compare(ax, pair: dict) -> None:
    """Horizontal bars: each moved metric's relative change (%), coloured by verdict, with
    its baseline -> candidate values."""
    moved = moved_metrics(pair)
    colours = {"regressed": "#d62728", "improved": "#2ca02c"}
    if not moved:
        ax.text(0.5, 0.5, "no metric moved", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    ys = list(range(len(moved)))
    changes = [100 * m["change"] for m in moved]
    ax.barh(ys, changes, color=[colours.get(m.get("verdict"), "#7f7f7f") for m in moved])
    ax.set_yticks(ys)
    ax.set_yticklabels([m["metric"] for m in moved])
    ax.invert_yaxis()
    ax.axvline(0, color="black", linewidth=0.8)
    span = max(abs(c) for c in changes) or 1
    ax.set_xlim(-span * 1.9, span * 1.9)
    for y, c, m in zip(ys, changes, moved):
        ax.text(c + (span * 0.03 if c >= 0 else -span * 0.03), y,
                f"{_short(m.get('baseline'))} -> {_short(m.get('candidate'))}",
                va="center", ha="left" if c >= 0 else "right", fontsize=8)
    ax.set_xlabel("change, candidate vs baseline (%)  [red: regressed, green: improved, "
                  "grey: within tolerance]")


def _short(v) -> str:
    if not isinstance(v, (int, float)):
        return "-"
    a = abs(v)
    if a != 0 and (a < 1e-2 or a >= 1e6):
        return f"{v:.3g}"
    return f"{v:.4g}"


def plot_compare(data: dict, path: str, index: int = 0) -> str:
    pairs = [p for p in data["pairs"] if p.get("metrics")]
    if not pairs:
        raise PlotError("the comparison has no compared pair")
    pair = pairs[min(index, len(pairs) - 1)]
    n = max(1, len(moved_metrics(pair)))
    fig, (ax,) = _new_figure(1, size=(FIGSIZE[0], max(3.0, 1.2 + 0.4 * n)))
    draw_compare(ax, pair)
    title = f"Metrics that moved -- {pair.get('scenario')}, planner {pair.get('planner')}"
    if pair.get("sweep_point"):
        title += f" ({pair['sweep_point']})"
    ax.set_title(title + f": {pair.get('verdict')}")
    return _save(fig, path)


# --- Ours beside a paper's (the reproduction drivers, scripts/reproduce/common.py) -------------


def series_colours(labels: list[str]) -> dict:
    """One colour per label, in order (matplotlib's cycle)."""
    return {label: f"C{i % 10}" for i, label in enumerate(labels)}


def draw_paper_bars(ax, categories, series: dict, paper: dict, colour: dict, ylabel: str = "",
                    logy: bool = False) -> None:
    """Grouped bars: one group per category, one bar per series of ours ({label: values}, one
    value per category, None for none); the paper's ({label: values}) as hatched hollow bars
    beside ours in the same colour."""
    bars = [(k, series[k], False) for k in series] + [(k, paper[k], True) for k in paper]
    width = 0.8 / max(len(bars), 1)
    for b, (label, values, is_paper) in enumerate(bars):
        xs = [i + (b - (len(bars) - 1) / 2) * width for i, v in enumerate(values) if v is not None]
        ys = [v for v in values if v is not None]
        if is_paper:
            ax.bar(xs, ys, width, fill=False, hatch="///", edgecolor=colour[label],
                   label=f"paper: {label}")
        else:
            ax.bar(xs, ys, width, color=colour[label], label=f"ours: {label}" if paper else label)
    ax.set_xticks(range(len(categories)))
    ax.set_xticklabels([str(c) for c in categories], fontsize=8)
    ax.set_ylabel(ylabel)
    if logy:
        ax.set_yscale("log")


def draw_stacked_bars(ax, categories, series: dict, colour: dict, ylabel: str = "") -> None:
    """Stacked bars: one bar per category, the series ({label: values}, one value per category,
    None for none) stacked in the order given (Neo Fig. 10's layout: one bar per case, one slice
    per operator)."""
    bottoms = [0.0] * len(categories)
    for label, values in series.items():
        heights = [0.0 if v is None else v for v in values]
        ax.bar(range(len(categories)), heights, 0.6, bottom=bottoms, color=colour[label],
               label=label)
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    ax.set_xticks(range(len(categories)))
    ax.set_xticklabels([str(c) for c in categories], fontsize=8)
    ax.set_ylabel(ylabel)


def draw_paper_lines(ax, series: dict, paper: dict, colour: dict, xlabel: str = "",
                     ylabel: str = "", logx: bool = False, logy: bool = False,
                     paper_lines: bool = True) -> None:
    """Lines of ours ({label: [(x, y), ...]}, points with y None left out), filled markers; the
    paper's as hollow markers, on a dashed line unless paper_lines is False, in the same colour.
    With logx, the ticks are the x values themselves."""
    for label, points in series.items():
        pts = [(x, y) for x, y in points if y is not None]
        ax.plot([x for x, _ in pts], [y for _, y in pts], "-o", color=colour[label], markersize=4,
                label=f"ours: {label}" if paper else label)
    for label, points in paper.items():
        pts = [(x, y) for x, y in points if y is not None]
        ax.plot([x for x, _ in pts], [y for _, y in pts], "--o" if paper_lines else "o",
                color=colour[label], markerfacecolor="none", markersize=7, linewidth=0.8,
                label=f"paper: {label}")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logx:
        ax.set_xscale("log")
        xs = sorted({x for pts in [*series.values(), *paper.values()] for x, _ in pts})
        ax.set_xticks(xs)
        ax.set_xticklabels([f"{x:g}" for x in xs], fontsize=8)
        ax.minorticks_off()
    if logy:
        ax.set_yscale("log")


# --- Command line ----------------------------------------------------------------------------


def _slug(r: dict, count: int, index: int) -> str:
    if count == 1:
        return ""
    s = r.get("planner", str(index))
    if r.get("sweep_point"):
        s += "-" + r["sweep_point"].replace("=", "").replace(",", "-").replace("/", "_")
    return "-" + s


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Figures of shardsim reports (docs/report.md).")
    p.add_argument("kind", choices=["report", "sweep", "compare"])
    p.add_argument("input", help="report JSON, summary.csv (sweep) or compare JSON")
    p.add_argument("--out", default="figures", help="folder for the figures (default figures/)")
    p.add_argument("--format", choices=["png", "svg"], default="png")
    p.add_argument("--key", help="sweep: the swept key to put on the x axis (default: first)")
    p.add_argument("--planner", help="report: only this planner's report")
    a = p.parse_args(argv)
    system_python = "/usr/bin/python3"
    if (not have_matplotlib() and argv is None and os.path.realpath(sys.executable)
            != os.path.realpath(system_python) and os.access(system_python, os.X_OK)):
        # Another python3 first on PATH (pyenv, a venv) without matplotlib: Debian's has it.
        os.execv(system_python, [system_python, os.path.abspath(__file__), *sys.argv[1:]])
    if not have_matplotlib():
        print("plot.py: matplotlib is missing; install python3-matplotlib (scripts/deps.sh)",
              file=sys.stderr)
        return 4
    written = []
    try:
        if a.kind == "report":
            reports = [r for r in load_reports(a.input)
                       if not a.planner or r.get("planner") == a.planner]
            if not reports:
                raise PlotError(f"{a.input}: no report of planner '{a.planner}'")
            for i, r in enumerate(reports):
                tag = _slug(r, len(reports), i)
                if not _timed(r):
                    print(f"plot.py: {r.get('planner')}: not simulated ({r.get('fit_error')}); "
                          "memory and traffic only", file=sys.stderr)
                    fig, (ax,) = _new_figure(1)
                    draw_gpu_memory(ax, r)
                    ax.set_title(report_title(r, "Memory per GPU (does not fit)"))
                    written.append(_save(fig, os.path.join(a.out, f"gpus{tag}.{a.format}")))
                else:
                    written.append(plot_gpus(r, os.path.join(a.out, f"gpus{tag}.{a.format}")))
                    written.append(plot_breakdown(
                        r, os.path.join(a.out, f"breakdown{tag}.{a.format}")))
                written.append(plot_comm(r, os.path.join(a.out, f"comm{tag}.{a.format}")))
        elif a.kind == "sweep":
            written.append(plot_sweep(load_any(a.input),
                                      os.path.join(a.out, f"sweep.{a.format}"), a.key))
        else:
            written.append(plot_compare(load_comparison(a.input),
                                        os.path.join(a.out, f"compare.{a.format}")))
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
