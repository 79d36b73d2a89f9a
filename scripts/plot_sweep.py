"""The sweep figure of scripts/plot.py: QPS and iteration time against the first swept key (x),
one line per planner and value of the other keys, one column of panels per value of the third
key. Keys come from the reports' `sweep_point` labels ("a=1,b=[x, y]"), in the sweep's order."""
from __future__ import annotations

import re

from plot_common import FIGSIZE, PlotError, new_figure, save, timed

MAX_SWEEP_FACETS = 6  # more values of the facet key than this: they become lines instead
_KEY = re.compile(r"^[A-Za-z_][\w.\[\]]*=")


def sweep_pairs(point: str) -> list[tuple[str, str]]:
    """The (key, value) pairs of a sweep point label, in order. Values in flow style may hold
    commas ("[1, 2]", "{a: 1, b: 2}", quoted strings): only a comma at depth 0 outside quotes
    that starts a new "key=" separates two pairs."""
    parts, depth, quote, cur = [], 0, "", ""
    for ch in point or "":
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += ch
    parts.append(cur)
    pairs: list[list[str]] = []
    for part in parts:
        if _KEY.match(part) or not pairs:
            key, _, value = part.partition("=")
            pairs.append([key, value])
        else:  # a comma inside a plain value
            pairs[-1][1] += "," + part
    return [(k, v) for k, v in pairs if k]


def _number(v: str):
    try:
        return float(v)
    except ValueError:
        return None


def sweep_keys(reports: list[dict]) -> list[str]:
    """The swept keys, in the order of the labels (first key slowest)."""
    keys: list[str] = []
    for r in reports:
        for k, _ in sweep_pairs(r.get("sweep_point", "")):
            if k not in keys:
                keys.append(k)
    return keys


def sweep_layout(reports: list[dict], key: str | None = None) -> dict:
    """Which key goes where: {"x", "tied" (keys zipped with x: one value per x value), "facet"
    (the third key, one column per value; None), "lines" (the rest, one line per value),
    "planners" (the most planners in one panel column)}. A key with one value goes nowhere."""
    keys = sweep_keys(reports)
    if key and keys and key not in keys:
        raise PlotError(f"--key {key}: not a swept key; the sweep's keys: {', '.join(keys)}")
    x = key or (keys[0] if keys else "sweep point")
    values = [dict(sweep_pairs(r.get("sweep_point", ""))) for r in reports]
    varied = [k for k in keys if k != x and len({v.get(k) for v in values}) > 1]
    tied = [k for k in varied
            if len({(v.get(x), v.get(k)) for v in values}) == len({v.get(x) for v in values})]
    rest = [k for k in varied if k not in tied]
    facet = rest[1] if len(rest) >= 2 else None
    if facet and len({v.get(facet) for v in values}) > MAX_SWEEP_FACETS:
        facet = None
    groups: dict = {}  # the planners of each panel column
    for v, r in zip(values, reports):
        groups.setdefault(v.get(facet) if facet else None, set()).add(r["planner"])
    return {"x": x, "tied": tied, "facet": facet, "lines": [k for k in rest if k != facet],
            "planners": max(len(g) for g in groups.values()) if groups else 0}


def _shows_planner(planner: str, values: dict, layout: dict) -> bool:
    """Whether a line's label names its planner: with several planners in a panel, unless the
    planner is a line key whose value names it; always without line keys."""
    swept = "placement.planner" in layout["lines"] and values.get("placement.planner") == planner
    return not layout["lines"] or layout["planners"] > 1 and not swept


def _line_label(planner: str, values: dict, layout: dict) -> str:
    parts = [f"{k}={values.get(k, '-')}" for k in layout["lines"]]
    if _shows_planner(planner, values, layout):
        parts.insert(0, planner)
    return ", ".join(parts)


def _line_meta(reports: list[dict], layout: dict) -> dict:
    """{line label: (planner, the line keys' values, whether the label names the planner)}."""
    meta: dict[str, tuple] = {}
    for r in reports:
        values = dict(sweep_pairs(r.get("sweep_point", "")))
        meta.setdefault(_line_label(r["planner"], values, layout),
                        (r["planner"], tuple(values.get(k) for k in layout["lines"]),
                         _shows_planner(r["planner"], values, layout)))
    return meta


def sweep_lines(reports: list[dict], layout: dict) -> tuple[dict, bool, list[str]]:
    """({line label: [(x, qps M/s or None, iteration ms or None, fits)]}, numeric x, the x
    values in order). Lines and x values keep the sweep's order; numeric x values are sorted."""
    lines: dict[str, list] = {}
    xs: list[str] = []
    for r in reports:
        values = dict(sweep_pairs(r.get("sweep_point", "")))
        x = values.get(layout["x"], r.get("sweep_point") or "-")
        if x not in xs:
            xs.append(x)
        t = timed(r)
        lines.setdefault(_line_label(r["planner"], values, layout), []).append(
            (x, 1e-6 * r["qps"] if t and r.get("qps") is not None else None,
             1e3 * r["iteration_time_s"]["mean"] if t else None, t))
    numeric = all(_number(x) is not None for x in xs)
    if numeric:
        xs.sort(key=_number)
        for pts in lines.values():
            pts.sort(key=lambda p: _number(p[0]))
    return lines, numeric, xs


LINE_STYLES = [("-", "o"), ("--", "s"), (":", "^"), ("-.", "D"), ((0, (5, 1)), "v")]


def line_styles(reports: list[dict], layout: dict) -> dict:
    """{line label: (colour, linestyle, marker)}: where labels name planners and line keys,
    one colour per planner and one dash and marker per value of the line keys; else one
    colour per line."""
    meta = _line_meta(reports, layout)
    by_planner = bool(layout["lines"]) and any(m[2] for m in meta.values())
    colour_of = list(dict.fromkeys(m[0] for m in meta.values()))
    style_of = list(dict.fromkeys(m[1] for m in meta.values()))
    out = {}
    for i, (label, (planner, values, _)) in enumerate(meta.items()):
        if by_planner:
            dash, marker = LINE_STYLES[style_of.index(values) % len(LINE_STYLES)]
            out[label] = (f"C{colour_of.index(planner) % 10}", dash, marker)
        else:
            out[label] = (f"C{i % 10}", "-", "o")
    return out


def draw_sweep(ax_qps, ax_time, reports: list[dict], key: str | None = None,
               layout: dict | None = None, styles: dict | None = None) -> None:
    """One line per planner and value of the line keys (a facet's reports when the caller
    splits them; `styles` from line_styles over all reports keeps them alike across facets);
    unfit points as crosses on the x axis."""
    layout = layout or sweep_layout(reports, key)
    lines, numeric, xs = sweep_lines(reports, layout)
    styles = styles or line_styles(reports, layout)
    pos = (lambda x: _number(x)) if numeric else (lambda x: xs.index(x))
    any_unfit = False
    for label, pts in lines.items():
        colour, dash, marker = styles[label]
        for ax, col in ((ax_qps, 1), (ax_time, 2)):
            fit = [(pos(p[0]), p[col]) for p in pts if p[3] and p[col] is not None]
            ax.plot([f[0] for f in fit], [f[1] for f in fit], marker=marker, linestyle=dash,
                    color=colour, label=label)
            unfit = [pos(p[0]) for p in pts if not p[3]]
            if unfit:
                any_unfit = True
                ax.plot(unfit, [0] * len(unfit), linestyle="none", marker="x", markersize=11,
                        markeredgewidth=2.5, color=colour, clip_on=False, label="_unfit")
    if any_unfit:  # one legend entry for the crosses, in black
        ax_qps.plot([], [], linestyle="none", marker="x", markersize=11, markeredgewidth=2.5,
                    color="black", label="does not fit (on the x axis)")
    ax_qps.set_ylabel("QPS (million samples/s)")
    ax_time.set_ylabel("iteration time (ms)")
    xlabel = layout["x"] + (f" (with {', '.join(layout['tied'])})" if layout["tied"] else "")
    for ax in (ax_qps, ax_time):
        ax.set_xlabel(xlabel)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        _x_ticks(ax, xs, numeric)


def _x_ticks(ax, xs: list[str], numeric: bool) -> None:
    if not numeric:
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels(xs, rotation=20, ha="right")
        return
    vals = [_number(x) for x in xs]
    if len(vals) > 2 and vals[0] > 0 and vals[-1] / vals[0] >= 8:
        ax.set_xscale("log", base=2)
    if len(vals) <= 12:
        ax.set_xticks(vals)
        ax.set_xticklabels([f"{v:g}" for v in vals])
        ax.minorticks_off()


def sweep_facets(reports: list[dict], layout: dict) -> list[tuple[str, list[dict]]]:
    """[(title, reports)] per value of the facet key (one entry, title "", without one)."""
    if not layout["facet"]:
        return [("", reports)]
    order: dict[str, list[dict]] = {}
    for r in reports:
        v = dict(sweep_pairs(r.get("sweep_point", ""))).get(layout["facet"], "-")
        order.setdefault(v, []).append(r)
    return [(f"{layout['facet']}={v}", rs) for v, rs in order.items()]


def sweep_figure(reports: list[dict], key: str | None = None):
    """(figure, axes): the QPS row (axes[:n]) over the iteration-time row (axes[n:]), one
    column per facet value."""
    if not reports:
        raise PlotError("the sweep has no reports")
    layout = sweep_layout(reports, key)
    facets = sweep_facets(reports, layout)
    n = len(facets)
    fig, axes = new_figure(2, cols=n, size=(max(FIGSIZE[0], 4.2 * n + 2.5), FIGSIZE[1] * 1.35))
    styles = line_styles(reports, layout)
    for c, (title, rs) in enumerate(facets):
        a, b = axes[c], axes[n + c]
        draw_sweep(a, b, rs, layout=layout, styles=styles)
        a.set_title(f"QPS, {title}" if title else "QPS", fontsize=10)
        b.set_title(f"iteration time, {title}" if title else "iteration time", fontsize=10)
    for row in (axes[:n], axes[n:]):  # one y scale per row: the columns compare at a glance
        top = max(ax.get_ylim()[1] for ax in row)
        for ax in row:
            ax.set_ylim(0, top)
    scen = reports[0].get("scenario", "?") if reports else "?"
    planners = sorted({r["planner"] for r in reports})
    fig.suptitle(f"Sweep -- {scen}, planners {', '.join(planners)}", fontsize=11)
    legend: dict = {}
    for ax in axes[:n]:
        for h, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, h)
    handles, labels = list(legend.values()), list(legend)
    names_planner = any(m[2] for m in _line_meta(reports, layout).values())
    title = ", ".join((["planner"] if names_planner and layout["lines"] else []) +
                      layout["lines"]) or None
    axes[n - 1].legend(handles, labels, fontsize=9, frameon=False, loc="upper left",
                       bbox_to_anchor=(1.0, 1.0), title=title, title_fontsize=9)
    return fig, axes


def plot_sweep(reports: list[dict], path: str, key: str | None = None) -> str:
    return save(sweep_figure(reports, key)[0], path)
