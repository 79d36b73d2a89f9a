"""What the figures of scripts/plot.py share: reading shardsim's files, the figure set-up and
its save, units. Imported by plot.py, plot_sweep.py and plot_compare.py (no side effects;
matplotlib is imported on the first figure)."""
from __future__ import annotations

import csv
import json
import math
import os

FIGSIZE = (10, 5.6)  # inches; 100 dpi -> 1000 x 560 pixels, legible on a slide
DPI = 100
# Byte units for axes and colour bars: the largest whose value is at least 1.
BYTE_UNITS = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "KB"), (1.0, "bytes")]


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


def byte_unit(largest: float) -> tuple[float, str]:
    """(divisor, name) of the byte unit in which `largest` reads as 1 to 999."""
    for scale, name in BYTE_UNITS:
        if abs(largest) >= scale:
            return scale, name
    return 1.0, "bytes"


def plain_number(v: float) -> str:
    """A tick label without scientific notation: 0.05, 2, 150, 12000."""
    if v == 0 or not math.isfinite(v):
        return "0" if v == 0 else str(v)
    digits = max(0, 2 - int(math.floor(math.log10(abs(v)))))
    text = f"{v:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def short_number(v) -> str:
    if not isinstance(v, (int, float)):
        return "-"
    a = abs(v)
    if a != 0 and (a < 1e-2 or a >= 1e6):
        return f"{v:.3g}"
    return f"{v:.4g}"


# --- Reading -------------------------------------------------------------------------------


def _read_json(path: str, what: str):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise PlotError(f"{path}: cannot read: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise PlotError(f"{path}: line {e.lineno}: not JSON ({e.msg}); expected {what}") from e


def load_reports(path: str) -> list[dict]:
    """The reports of a shardsim JSON file ({"reports": [...]}, a list, or one report)."""
    data = _read_json(path, "a shardsim report (`shardsim run --format json`)")
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
        if not isinstance(r, dict) or "planner" not in r:
            raise PlotError(f"{path}: a report without 'planner'; expected shardsim's reports")
        r.setdefault("_dir", base)
    return reports


def load_run(path: str) -> list[dict]:
    """The reports of a report JSON file or of a run's --out folder: DIR/report.json, else
    every *.json of DIR in name order (as `shardsim diff` reads them)."""
    if not os.path.isdir(path):
        if not os.path.exists(path):
            raise PlotError(f"{path}: no such file or directory; pass a report.json or the "
                            "--out DIR of a run")
        return load_reports(path)
    if os.path.exists(os.path.join(path, "report.json")):
        return load_reports(os.path.join(path, "report.json"))
    files = sorted(f for f in os.listdir(path) if f.endswith(".json"))
    if not files:
        raise PlotError(f"{path}: the directory holds no report (*.json); pass the --out DIR "
                        "of a run, or a report.json")
    return [r for f in files for r in load_reports(os.path.join(path, f))]


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


def load_comparison(path: str) -> dict:
    data = _read_json(path, "`shardsim compare ... --format json`")
    if not isinstance(data, dict) or "pairs" not in data:
        raise PlotError(f"{path}: no 'pairs'; expected `shardsim compare ... --format json`")
    return data


def timed(r: dict) -> bool:
    return isinstance(r.get("iteration_time_s"), dict)


def report_title(r: dict, what: str) -> str:
    t = f"{what} -- {r.get('scenario', '?')}, planner {r.get('planner', '?')}"
    if r.get("sweep_point"):
        t += f" ({r['sweep_point']})"
    return t


# --- Figures -------------------------------------------------------------------------------


def new_figure(rows=1, height_ratios=None, size=FIGSIZE, cols=1):
    """A figure and its Axes, row by row (a flat list)."""
    plt = _plt()
    fig, axes = plt.subplots(rows, cols, figsize=size, dpi=DPI, squeeze=False,
                             gridspec_kw={"height_ratios": height_ratios} if height_ratios else None)
    return fig, [ax for row in axes for ax in row]


def save(fig, path: str) -> str:
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=DPI)
    _plt().close(fig)
    return path
