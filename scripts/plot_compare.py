"""The compare and diff figures of scripts/plot.py.

compare: `shardsim compare --format json`, one panel per compared pair (planner and sweep point):
each moved metric's relative change, coloured by verdict.
diff: two runs (report JSON files or --out folders), paired as `shardsim diff` pairs them
(planner, or "planner @ sweep point"): one panel per headline metric, bars A vs B per pair with
the % change."""
from __future__ import annotations

import json
import math

from plot_common import FIGSIZE, PlotError, byte_unit, new_figure, save, short_number

VERDICT_COLOURS = {"regressed": "#d62728", "improved": "#2ca02c"}
# The headline metrics of a diff: (report path, title, kind); kind picks the unit.
DIFF_METRICS = [
    ("qps", "QPS", "qps"),
    ("iteration_time_s.mean", "iteration time, mean", "seconds"),
    ("iteration_time_s.p99", "iteration time, p99", "seconds"),
    ("memory_bytes.max", "peak memory (busiest GPU)", "bytes"),
    ("comm_total_bytes", "communication per iteration", "bytes"),
    ("imbalance_ratio", "imbalance (max / mean)", "ratio"),
]
A_COLOUR, B_COLOUR = "#9e9e9e", "#1f77b4"


# --- compare -------------------------------------------------------------------------------


def moved_metrics(pair: dict, min_change: float = 1e-9) -> list[dict]:
    """The metrics of a compared pair whose value changed."""
    out = []
    for m in pair.get("metrics", []):
        c = m.get("change")
        if isinstance(c, (int, float)) and math.isfinite(c) and abs(c) > min_change:
            out.append(m)
    return out


def pair_title(pair: dict) -> str:
    t = f"planner {pair.get('planner')}"
    if pair.get("sweep_point"):
        t += f" ({pair['sweep_point']})"
    return t


def draw_compare(ax, pair: dict) -> None:
    """Horizontal bars: each moved metric's relative change (%), coloured by verdict, with
    its baseline -> candidate values."""
    moved = moved_metrics(pair)
    if not moved:
        ax.text(0.5, 0.5, "no metric moved", ha="center", va="center", transform=ax.transAxes)
        ax.set_xticks([])
        ax.set_yticks([])
        return
    ys = list(range(len(moved)))
    changes = [100 * m["change"] for m in moved]
    ax.barh(ys, changes, color=[VERDICT_COLOURS.get(m.get("verdict"), "#7f7f7f") for m in moved])
    ax.set_yticks(ys)
    ax.set_yticklabels([m["metric"] for m in moved])
    ax.invert_yaxis()
    ax.axvline(0, color="black", linewidth=0.8)
    span = max(abs(c) for c in changes) or 1
    ax.set_xlim(-span * 1.9, span * 1.9)
    for y, c, m in zip(ys, changes, moved):
        ax.text(c + (span * 0.03 if c >= 0 else -span * 0.03), y,
                f"{short_number(m.get('baseline'))} -> {short_number(m.get('candidate'))}",
                va="center", ha="left" if c >= 0 else "right", fontsize=8)
    ax.set_xlabel("change, candidate vs baseline (%)  [red: regressed, green: improved, "
                  "grey: within tolerance]")


def compare_figure(data: dict):
    """(figure, axes): every compared pair (planner, sweep point), one panel each, stacked;
    two columns beyond four pairs."""
    pairs = [p for p in data["pairs"] if p.get("metrics")]
    if not pairs:
        raise PlotError("the comparison has no compared pair")
    cols = 1 if len(pairs) <= 4 else 2
    rows = math.ceil(len(pairs) / cols)
    per_row = max(1.4, 0.9 + 0.35 * max(max(1, len(moved_metrics(p))) for p in pairs))
    fig, axes = new_figure(rows, cols=cols, size=(FIGSIZE[0] * cols, 0.8 + per_row * rows))
    for i, (ax, pair) in enumerate(zip(axes, pairs)):
        draw_compare(ax, pair)
        ax.set_title(f"{pair_title(pair)}: {pair.get('verdict')}", fontsize=10)
        if i + cols < len(pairs):  # the axis text once, under the bottom panels
            ax.set_xlabel("")
    for ax in axes[len(pairs):]:
        ax.set_axis_off()
    fig.suptitle(f"Metrics that moved -- {pairs[0].get('scenario')}", fontsize=11)
    return fig, axes[:len(pairs)]


def plot_compare(data: dict, path: str) -> str:
    return save(compare_figure(data)[0], path)


# --- diff ----------------------------------------------------------------------------------


def pair_key(r: dict) -> str:
    """How `shardsim diff` pairs reports: the planner, with " @ point" in a sweep."""
    point = r.get("sweep_point") or ""
    return f"{r.get('planner', '')} @ {point}" if point else r.get("planner", "")


def metric_value(r: dict, path: str):
    node = r
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return float(node) if isinstance(node, (int, float)) and not isinstance(node, bool) else None


def diff_pairs(before: list[dict], after: list[dict]):
    """([(key, report A, report B)] in A's order, keys only in A, keys only in B)."""
    after_by = {}
    for r in after:
        after_by.setdefault(pair_key(r), r)
    pairs, only_a = [], []
    for r in before:
        k = pair_key(r)
        (pairs.append((k, r, after_by[k])) if k in after_by else only_a.append(k))
    matched = {k for k, _, _ in pairs}
    only_b = [pair_key(r) for r in after if pair_key(r) not in matched]
    return pairs, only_a, only_b


def changed_keys(a: dict, b: dict) -> list[str]:
    """'key: before -> after' for the scenario keys whose resolved values differ (the reports'
    scenario_values, as `shardsim diff` lists them); none when a side lacks them."""
    va, vb = a.get("scenario_values"), b.get("scenario_values")
    if not isinstance(va, dict) or not isinstance(vb, dict):
        return []
    out = []
    for k in sorted(set(va) | set(vb)):
        x = json.dumps(va[k]) if k in va else "(absent)"
        y = json.dumps(vb[k]) if k in vb else "(absent)"
        if x != y:
            out.append(f"{k}: {x} -> {y}")
    return out


def metric_scale(kind: str, values: list) -> tuple[float, str]:
    """(divisor, unit) for a metric's axis."""
    if kind == "qps":
        return 1e6, "million samples/s"
    if kind == "seconds":
        return 1e-3, "ms"
    if kind == "bytes":
        scale, name = byte_unit(max([abs(v) for v in values if v is not None] or [1.0]))
        return scale, name
    return 1.0, "ratio"


def change_label(a, b) -> str:
    """B against A: "+12.3%", "=" (the same), "n/a" (a side has no value: not simulated),
    "changed" (from 0)."""
    if a is None or b is None:
        return "n/a"
    if a == b:
        return "="
    if a == 0:
        return "changed"
    return f"{100.0 * (b - a) / abs(a):+.1f}%"


def draw_diff_metric(ax, pairs: list, path: str, title: str, kind: str,
                     labels=("A", "B")) -> None:
    """Bars A and B per pair for one metric, the % change over B's bar ("n/a": no value)."""
    a_vals = [metric_value(ra, path) for _, ra, _ in pairs]
    b_vals = [metric_value(rb, path) for _, _, rb in pairs]
    scale, unit = metric_scale(kind, a_vals + b_vals)
    xs = list(range(len(pairs)))
    w = 0.38
    for off, vals, colour, label in ((-w / 2, a_vals, A_COLOUR, labels[0]),
                                     (w / 2, b_vals, B_COLOUR, labels[1])):
        ax.bar([x + off for x in xs], [0.0 if v is None else v / scale for v in vals], w,
               color=colour, label=label)
    top = max([v / scale for v in a_vals + b_vals if v is not None] or [1.0]) or 1.0
    for x, a, b in zip(xs, a_vals, b_vals):
        ax.text(x, max([v / scale for v in (a, b) if v is not None] or [0.0]) + 0.02 * top,
                change_label(a, b), ha="center", va="bottom", fontsize=9, fontweight="bold")
    ax.set_ylim(0, top * 1.22)
    ax.set_xticks(xs)
    ax.set_xticklabels([k for k, _, _ in pairs], rotation=20 if len(pairs) > 3 else 0,
                       ha="right" if len(pairs) > 3 else "center", fontsize=8)
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(unit)
    ax.grid(True, axis="y", alpha=0.3)


def diff_figure(before: list[dict], after: list[dict], labels=("A", "B")):
    """(figure, axes): one panel per DIFF_METRICS entry, in order."""
    pairs, only_a, only_b = diff_pairs(before, after)
    if not pairs:
        raise PlotError(f"no report pairs with the same planner and sweep point (A: "
                        f"{', '.join(only_a) or 'none'}; B: {', '.join(only_b) or 'none'})")
    cols = 3
    rows = math.ceil(len(DIFF_METRICS) / cols)
    width = max(FIGSIZE[0] * 1.3, 1.2 * len(pairs) * cols + 2)
    fig, axes = new_figure(rows, cols=cols, size=(width, 3.6 * rows + 0.8))
    for ax, (mpath, title, kind) in zip(axes, DIFF_METRICS):
        draw_diff_metric(ax, pairs, mpath, title, kind, labels)
    axes[cols - 1].legend(fontsize=9, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    title = f"What changed -- {labels[0]} vs {labels[1]}"
    keys = changed_keys(pairs[0][1], pairs[0][2])
    if keys:
        title += "\n" + "; ".join(keys[:3]) + (f"; {len(keys) - 3} more" if len(keys) > 3 else "")
    if only_a or only_b:
        title += (f"\nonly in A: {', '.join(only_a) or 'none'}; "
                  f"only in B: {', '.join(only_b) or 'none'}")
    fig.suptitle(title, fontsize=11)
    return fig, axes[:len(DIFF_METRICS)]


def plot_diff(before: list[dict], after: list[dict], path: str, labels=("A", "B")) -> str:
    return save(diff_figure(before, after, labels)[0], path)
