"""Ours beside a paper's: the bars and lines of the reproduction drivers
(scripts/reproduce/common.py), re-exported by scripts/plot.py (`plot.draw_paper_bars`)."""
from __future__ import annotations

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
