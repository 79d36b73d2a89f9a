#!/usr/bin/env python3
"""Reproduces NeuroShard's Tables 1, 3 and 4 (seed 002: Zha et al. 2023, §4, App. D, G) with shardsim.

    scripts/reproduce.sh neuroshard [--tasks N] [--only 4gpu,8gpu,table1,table3,table4] [--out DIR]
                                    [--force] [--jobs N] [--table4-tables N] [--table4-nodes N]
                                    [--write-examples]

For 4 and 8 GPUs and maximum table dims 4 to 128 (the paper's 12 settings), N random sharding
tasks (default 100, as the paper) are drawn as App. D and the released task generator
(daochenzha/neuroshard tools/gen_tasks.py) draw them: T tables from the pool (10-59 on 4 GPUs,
20-119 on 8), drawn with replacement, each with a dim drawn from {4, 8, ..., max}, redrawn until
the tables' bytes fit 4 GB x GPUs - 1 GB. Each task is planned by the paper's baselines (random;
greedy by size, dim, lookup, size-lookup: App. E), TorchRec's planner (column- and table-wise
only, as App. E.3 lets it), `hybrid` (this project's skew-aware planner, a what-if) and
`neuroshard`, and every plan is judged by the simulator: the embedding cost of an iteration
(the slowest GPU's lookup kernels plus its embedding communication, NeuroShard's metric) and the
iteration time. A setting where some task does not fit is "-", as the paper marks it.

Table 3 (4 GPUs) and App. G Table 7 (8 GPUs): the tasks of max dim 128 planned by the search
without its beam search (steps: 0), without its grid (grid_steps: 0), without its cache
(cache: false) and whole; per variant the embedding cost, the tasks placed, the planning time
(--timings, wall clock) and the cache's hit rate (the reports' plan_stats.planner_counts).

The pool is synthetic (the paper's is Meta's 856 tables of github.com/facebookresearch/
dlrm_datasets, 4 GB behind Git LFS): 856 tables drawn from lognormals whose means before
clipping are App. D Table 6's mean hash size (4.1 M) and mean pooling factor (15); after
clipping the pool's means are 2.8 M and 14.1 (the markdown prints them). The shapes of the
distributions and the Zipf exponents are GUESSes (see POOL below).

Table 4 (§4.5): the production model, 128 GPUs. Its stand-in is Neo's model-A on 16 ZionEX nodes
(the platform §4.5 names): scenarios/papers/neo-model-a.yaml, its 1000 generated tables written
out by `shardsim validate --tables-out` (PROD; scripts/reproduce/_neuroshard_table4.py).
NeuroShard plans it first; its column plan splits the tables, and the random and greedy baselines
plan the sub-tables, as §4.5 runs them; TorchRec and `hybrid` (a what-if) plan the tables as
generated. Every plan is written (<out>/neuroshard-table4/plans/) and simulated twice: with Table 1's
dense part for the embedding cost, and whole for the training throughput over Random's.

Output: <out>/neuroshard-table1/results.csv, results.md, figure.png (with matplotlib), scenarios/*.yaml (one sweep scenario
per setting, holding its tasks, and one per GPU count for the ablation);
<out>/neuroshard-table3/results.csv, results.md, figure.png; <out>/results.md joins the markdown. --write-examples also
rewrites scenarios/papers/neuroshard-table1-{4,8}gpu.yaml (the first task of max dim 128, its
planners swept), the committed examples. The committed copy with commentary is docs/reproductions/neuroshard.md.
Python 3 standard library only.
"""

import json
import math
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Reproduction, fail, log, table  # noqa: E402
from _neuroshard_common import BASELINES, embedding_cost_ms, fmt_ms  # noqa: E402
from _neuroshard_table4 import PROD, table4  # noqa: E402

# --- The paper's numbers (Table 1, embedding cost in ms; None: "-") ---------------------------

MAX_DIMS = [4, 8, 16, 32, 64, 128]
PAPER = {
    4: {
        "Random": [25.47, 30.10, None, None, None, None],
        "Size-based": [24.45, 29.60, 30.86, 37.80, 41.59, None],
        "Dim-based": [23.51, 28.46, 29.76, 35.98, 38.71, None],
        "Lookup-based": [18.69, 24.34, 26.83, 34.62, 38.69, None],
        "Size-lookup-based": [18.38, 24.18, 26.81, 33.94, None, None],
        "TorchRec": [19.20, 26.00, 28.24, 34.88, 38.13, 47.22],
        "NeuroShard": [17.74, 21.75, 23.11, 28.86, 31.55, 39.99],
    },
    8: {
        "Random": [33.40, 36.43, None, None, None, None],
        "Size-based": [31.75, 34.30, 37.70, 46.07, 54.57, None],
        "Dim-based": [27.54, 32.20, 34.78, 42.35, 47.54, None],
        "Lookup-based": [21.83, 26.66, 30.59, 39.07, 47.47, None],
        "Size-lookup-based": [21.27, 26.55, 30.34, 39.28, 48.17, None],
        "TorchRec": [22.34, 28.99, 32.71, 39.90, 47.43, 60.58],
        "NeuroShard": [20.68, 23.23, 25.64, 32.30, 38.30, 49.10],
    },
}
# The bottom row of Table 1: NeuroShard over the strongest baseline (AutoShard and DreamShard
# included there; they are not reproduced here).
PAPER_IMPROVEMENT = {4: ["+1.4%", "+1.5%", "+8.5%", "+6.5%", "+20.9%", "+18.1%"],
                     8: ["+0.5%", "+8.9%", "+4.9%", "+21.0%", "+23.8%", "+23.4%"]}

# Table 3 (4 GPUs) and App. G Table 7 (8 GPUs), max dim 128: the search with one part removed.
# Per variant: cost (ms; None: "-"), success rate (%), sharding time (s), cache hit rate (%).
ABLATION_DIM = 128
PAPER_ABLATION = {
    4: {"w/o beam search": (None, 87.0, 0.05, 79.1),
        "w/o greedy grid search": (42.90, 100.0, 2.12, 82.2),
        "w/o caching": (39.99, 100.0, 95.87, 0.0),
        "Full NeuroShard": (39.99, 100.0, 10.75, 95.4)},
    8: {"w/o beam search": (None, 63.0, 0.09, 75.4),
        "w/o greedy grid search": (55.97, 100.0, 4.09, 79.8),
        "w/o caching": (49.10, 100.0, 164.21, 0.0),
        "Full NeuroShard": (49.10, 100.0, 20.79, 93.0)},
}
# The variants as the planner's options (docs/planners.md, "neuroshard"): steps: 0 is no beam
# search (the tables unsplit), grid_steps: 0 no max device dim, cache: false no cache.
ABLATIONS = [  # (label, the planner's options)
    ("w/o beam search", "steps: 0"),
    ("w/o greedy grid search", "grid_steps: 0"),
    ("w/o caching", "cache: false"),
    ("Full NeuroShard", ""),
]

# --- The task generator (App. D; tools/gen_tasks.py) ------------------------------------------

POOL = {
    "tables": 856,           # App. D: the DLRM dataset's 856 tables
    "rows_median": 556_000,  # lognormal; with sigma 2 the mean is 556k x e^2 = 4.1 M (Table 6)
    "rows_sigma": 2.0,       # GUESS
    "rows_min": 1_000,       # GUESS
    "rows_max": 40_000_000,  # GUESS
    "pooling_median": 6.0,   # lognormal; with sigma 1.35 the mean is 6 x e^0.91 = 15 (Table 6)
    "pooling_sigma": 1.35,   # GUESS
    "pooling_max": 200.0,    # GUESS
    "alpha_min": 0.6,        # Zipf exponent, uniform: GUESS ("similar to Meta's production")
    "alpha_max": 1.2,
    "seed": 856,
}
GPU_SETTINGS = {4: (10, 60), 8: (20, 120)}  # T drawn from [lo, hi) as numpy's randint
TABLE_MEMORY_GiB = 4                        # §4: "a memory constraint of 4 GBs for embedding tables"
GLOBAL_BATCH = 65536                        # the dataset's batch (fbgemm_t856_bs65536)
# Our memory per GPU also holds the activations of the pooled outputs and their gradients
# (65536 samples x 8 bytes a column: 0.5 MB a column) and the MLPs; the paper's 4 GB counts
# table bytes only. Our choice: 1 GiB more for them (about 2000 columns a GPU).
ACTIVATION_ALLOWANCE_GiB = 1

PLACEMENTS = [
    # (labels of the planners in order, the placement mapping in YAML flow style)
    (["Random", "Lookup-based", "TorchRec", "hybrid (what-if)", "NeuroShard"],
     "{planner: [random, table_wise, torchrec, hybrid, neuroshard], options: "
     "{table_wise: {cost: lookup}, torchrec: {sharding_types: [table_wise, column_wise], headroom: 0}}}"),
    (["Size-based"], "{planner: table_wise, options: {cost: size}}"),
    (["Dim-based"], "{planner: table_wise, options: {cost: dim}}"),
    (["Size-lookup-based"], "{planner: table_wise, options: {cost: size_lookup}}"),
]
ROWS = BASELINES + ["hybrid (what-if)", "NeuroShard"]


def draw_table(rng, spec):
    """One synthetic table of the pool from POOL's keys: lognormal rows and pooling (clipped)
    and a uniform Zipf exponent, drawn in that order (its dim is drawn per task)."""
    rows = rng.lognormvariate(math.log(spec["rows_median"]), spec["rows_sigma"])
    table = {"rows": int(min(max(rows, spec["rows_min"]), spec["rows_max"]))}
    pooling = rng.lognormvariate(math.log(spec["pooling_median"]), spec["pooling_sigma"])
    table["pooling"] = round(min(max(pooling, 1.0), spec["pooling_max"]), 1)
    table["alpha"] = round(rng.uniform(spec["alpha_min"], spec["alpha_max"]), 3)
    return table


def make_pool():
    rng = random.Random(POOL["seed"])
    return [dict(id=i, **draw_table(rng, POOL)) for i in range(POOL["tables"])]


def table_bytes(rows, dim):
    return rows * dim * 4  # fp32 weights (EXACT_SGD keeps no state)


def make_tasks(pool, gpus, max_dim, count):
    """count tasks for (gpus, max_dim), as gen_tasks.py: T, then tables and dims redrawn until
    their bytes fit (4 GB x gpus - 1 GB)."""
    rng = random.Random(f"neuroshard-{gpus}-{max_dim}")
    dims = [d for d in MAX_DIMS if d <= max_dim]
    lo, hi = GPU_SETTINGS[gpus]
    limit = (TABLE_MEMORY_GiB * gpus - 1) * 2**30
    tasks = []
    for _ in range(count):
        t = rng.randrange(lo, hi)
        while True:
            ids = [rng.randrange(len(pool)) for _ in range(t)]
            ds = [rng.choice(dims) for _ in range(t)]
            if sum(table_bytes(pool[i]["rows"], d) for i, d in zip(ids, ds)) <= limit:
                break
        tasks.append(list(zip(ids, ds)))
    return tasks


def tables_yaml(pool, task):
    items = []
    for k, (i, d) in enumerate(task):
        p = pool[i]
        items.append(f"{{name: t{k}_pool{i}, rows: {p['rows']}, dim: {d}, "
                     f"pooling: {p['pooling']}, alpha: {p['alpha']}}}")
    return "[" + ", ".join(items) + "]"


def scenario_text(pool, gpus, max_dim, tasks, note, placements=None):
    placements = placements or PLACEMENTS
    lines = [
        f"# NeuroShard Table 1 (seed 002, §4.1, App. D): {len(tasks)} random sharding tasks on "
        f"{gpus} GPUs, max table dim {max_dim}.",
        f"# {note}",
        "# Written by scripts/reproduce/neuroshard.py (the task generator of App. D over a "
        "synthetic pool; docs/reproductions/neuroshard.md).",
        "# Run: shardsim sweep THIS_FILE (points: the tasks if several, then the placements)",
        f"name: neuroshard-table1-{gpus}gpu-dim{max_dim}",
        "cluster:",
        "  preset: rtx2080ti-8   # NeuroShard App. F: 2080 Ti GPUs on PCIe",
        "  nodes: 1",
        f"  overrides: {{gpus_per_node: {gpus}, gpu: {{hbm_capacity_GiB: "
        f"{TABLE_MEMORY_GiB + ACTIVATION_ALLOWANCE_GiB}}}, reserved_memory_GiB: 0}}",
        "model:",
        f"  tables: {tables_yaml(pool, tasks[0])}",
        "  dense_features: 13",
        "  bottom_mlp: [64, 16]",
        "  top_mlp: [64, 1]",
        "  interaction: concat   # mixed dims",
        "  optimizer: sgd        # the paper's benchmarks use FBGEMM's EXACT_SGD",
        "  precision: {tables: fp32, comms: fp32, mlp: fp32}",
        "workload:",
        "  mode: training",
        f"  batch_per_gpu: {GLOBAL_BATCH // gpus}   # the dataset's batch of {GLOBAL_BATCH} "
        "split over the GPUs",
        "  iterations: 1",
        "  warmup: 0",
        "  seed: 1",
        "  trace: {mode: expected}",
        "simulation:",
        "  # NeuroShard's embedding cost is the lookup kernels and the pooled AlltoAll (its",
        "  # benchmarks time the TBE op and the pooled AlltoAll, §3.1-3.2); the sparse features'",
        "  # own AlltoAll before the lookup is left out, as the paper leaves it out (§2).",
        "  pipeline: {input_alltoall: none}",
        f"placement: {placements[0][1]}",
        "sweep:",
    ]
    if len(tasks) > 1:  # points: tasks slowest, placements fastest
        lines.append("  model.tables:")
        for task in tasks:
            lines.append("    - " + tables_yaml(pool, task))
    lines.append("  placement:")
    for _, p in placements:
        lines.append("    - " + p)
    return "\n".join(lines) + "\n"


def pool_scenario_text(pool):
    """The whole pool as one scenario (every table once, dim 16, a batch of 65536 on 8 GPUs), to
    compare its access statistics with the dataset's published ones: `shardsim trace fit
    tests/data/dlrm_datasets_2021_t856.yaml --scenario THIS_FILE --classes 1` prints its L1
    distances from them as "before" (docs/reproductions/neuroshard.md, "Set-up")."""
    tables = "\n".join(
        f"    - {{name: pool{p['id']}, rows: {p['rows']}, dim: 16, pooling: {p['pooling']}, "
        f"alpha: {p['alpha']}}}" for p in pool)
    return ("# NeuroShard's synthetic pool (scripts/reproduce/neuroshard.py, POOL): every table once.\n"
            "name: neuroshard-pool\n"
            "cluster: {preset: rtx2080ti-8, nodes: 1}\n"
            "model:\n  tables:\n" + tables + "\n"
            "  dense_features: 13\n  bottom_mlp: [64, 16]\n  top_mlp: [64, 1]\n"
            "  interaction: concat\n"
            f"workload: {{mode: training, batch_per_gpu: {GLOBAL_BATCH // 8}, iterations: 1, "
            "warmup: 0, seed: 1}\n"
            "placement: {planner: table_wise}\n")


def sweep_reports(rep, path, expected, *extra):
    """`shardsim sweep PATH` (every point, no memory guard) and its reports, which must number
    `expected`; stops the driver if the sweep fails or returns another number."""
    cmd = [rep.args.shardsim, "sweep", path, "--jobs", str(rep.args.jobs), "--format", "json",
           "--quiet", *extra, "--max-points", "100000", "--max-memory", "0"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        fail(f"{' '.join(cmd)} failed (exit {proc.returncode}):\n{proc.stderr.strip()[-2000:]}")
    reports = json.loads(proc.stdout)["reports"]
    if len(reports) != expected:
        fail(f"{path}: {len(reports)} reports, expected {expected}")
    return reports


def run_setting(rep, pool, gpus, max_dim, count, scen_dir):
    tasks = make_tasks(pool, gpus, max_dim, count)
    path = os.path.join(scen_dir, f"{gpus}gpu-dim{max_dim}.yaml")
    with open(path, "w") as f:
        f.write(scenario_text(pool, gpus, max_dim, tasks, "Every task of the setting."))
    start = time.time()
    reports = sweep_reports(rep, path, len(tasks) * sum(len(labels) for labels, _ in PLACEMENTS))
    # Points: tasks slowest, placements fastest; each point's reports in planner order.
    results = {label: [] for label in ROWS}  # per task: (embedding ms, iteration ms) or None
    k = 0
    for _ in tasks:
        for labels, _ in PLACEMENTS:
            for label in labels:
                r = reports[k]
                k += 1
                if r["fits_in_memory"]:
                    results[label].append((embedding_cost_ms(r), 1e3 * r["iteration_time_s"]["mean"]))
                else:
                    results[label].append(None)
    log(f"  {gpus} GPUs, max dim {max_dim}: {len(tasks)} tasks, {len(reports)} plans simulated "
        f"in {time.time() - start:.1f} s")
    return tasks, results


def run_ablation(rep, pool, gpus, count, scen_dir):
    """Table 3 / Table 7: Table 1's tasks of max dim 128 planned by each variant of the search,
    with the planning time measured (--timings). Per variant, per task: a dict of the embedding
    cost (None: no plan fits), the planning time and the cache's queries and hits."""
    tasks = make_tasks(pool, gpus, ABLATION_DIM, count)
    path = os.path.join(scen_dir, f"{gpus}gpu-dim{ABLATION_DIM}-ablation.yaml")
    backend = f"backend: {rep.args.backend}" if rep.args.backend != "analytic" else ""
    placements = [([label], "{planner: neuroshard, options: {"
                   + ", ".join(o for o in (options, backend) if o) + "}}")
                  for label, options in ABLATIONS]
    with open(path, "w") as f:
        f.write(scenario_text(pool, gpus, ABLATION_DIM, tasks,
                              "Table 3's ablation: every task, each variant of the search.",
                              placements))
    start = time.time()
    reports = sweep_reports(rep, path, len(tasks) * len(ABLATIONS), "--timings")
    results = {label: [] for label, _ in ABLATIONS}
    k = 0
    for _ in tasks:
        for label, _ in ABLATIONS:
            r = reports[k]
            k += 1
            stats = r.get("plan_stats") or {}
            counts = stats.get("planner_counts") or {}
            results[label].append({
                "cost_ms": embedding_cost_ms(r) if r["fits_in_memory"] else None,
                "planning_s": r.get("planning_time_s"),
                "queries": counts.get("cache_queries"),
                "hits": counts.get("cache_hits"),
            })
    log(f"  {gpus} GPUs, max dim {ABLATION_DIM}, ablation: {len(tasks)} tasks, {len(reports)} "
        f"plans simulated in {time.time() - start:.1f} s")
    return results


def mean_or_none(values, index):
    if any(v is None for v in values):
        return None
    return sum(v[index] for v in values) / len(values)


def table1_checks(rep, name, all_cols):
    """§4.2's observations on Table 1 (RQ1), one check each, over every setting run. Written
    2026-11-28, after Table 1's results had been seen (the per-task check above predates them);
    each claim is a sentence of §4.2, and its test the plainest reading of it."""
    settings = [(g, d) for g in sorted(all_cols) for d in MAX_DIMS]
    greedy = ["Random", "Size-based", "Dim-based", "Lookup-based", "Size-lookup-based"]

    def mean(g, d, label):
        return mean_or_none(all_cols[g][d][label], 0)

    # 1) "NeuroShard significantly outperforms the baselines in all the sharding tasks with an
    # improvement ranging from +0.5% to +23.8%": below the strongest baseline's mean in every
    # setting where some baseline fits every task.
    gains = []
    for g, d in settings:
        base = [mean(g, d, b) for b in BASELINES if mean(g, d, b) is not None]
        ns = mean(g, d, "NeuroShard")
        if base:
            gains.append((g, d, None if ns is None else (min(base) - ns) / min(base)))
    rep.check(name, "NeuroShard's mean embedding cost is below the strongest baseline's in every "
              "setting where a baseline fits every task (paper: +0.5% to +23.8%, all 12 settings)",
              gains and all(x is not None and x > 0 for _, _, x in gains),
              ", ".join(f"{g} GPUs dim {d}: " + ("-" if x is None else f"{100 * x:+.1f}%")
                        for g, d, x in gains),
              rule="NeuroShard's mean < the best baseline's mean in each such setting")
    # 2) "NeuroShard successfully scales to sharding tasks with high table dimensions".
    ns_fits = [(g, d) for g, d in settings if mean(g, d, "NeuroShard") is not None]
    rep.check(name, "NeuroShard places every task at every max dim (paper: it \"successfully "
              "scales to sharding tasks with high table dimensions\")",
              len(ns_fits) == len(settings), f"{len(ns_fits)} of {len(settings)} settings",
              rule="NeuroShard places every task of every setting")
    # "When the table dimension goes large, all the baselines except TorchRec tend to fail": at
    # the largest max dim (128), where every one of them fails in Table 1.
    top = [(g, b) for g in sorted(all_cols) for b in greedy if mean(g, MAX_DIMS[-1], b) is None]
    rep.check(name, "the random and greedy baselines fail some task at max dim 128 (paper: "
              "\"all the baselines except TorchRec tend to fail\" as dims grow; all \"-\" at 128)",
              len(top) == len(greedy) * len(all_cols),
              f"{len(top)} of {len(greedy) * len(all_cols)} (baseline, GPU count) pairs fail",
              rule="every random or greedy baseline fails a task at dim 128, on every GPU count")
    # 4) "While TorchRec also scales well, NeuroShard achieves much better performances."
    tr_fits = [(g, d) for g, d in settings if mean(g, d, "TorchRec") is not None]
    first_fail = {}  # gpus -> the smallest max dim where TorchRec fails some task
    for g, d in settings:
        if (g, d) not in tr_fits:
            first_fail.setdefault(g, d)
    rep.check(name, "TorchRec places every task at every max dim (paper: \"TorchRec also scales "
              "well\")", len(tr_fits) == len(settings),
              f"{len(tr_fits)} of {len(settings)} settings" + (
                  "; fails from " + ", ".join(f"{g} GPUs dim {d}" for g, d in first_fail.items())
                  if first_fail else ""),
              rule="TorchRec places every task of every setting")
    better = [(g, d, mean(g, d, "TorchRec"), mean(g, d, "NeuroShard")) for g, d in tr_fits]
    paper_gain = [(PAPER[g]["TorchRec"][j] - PAPER[g]["NeuroShard"][j]) / PAPER[g]["TorchRec"][j]
                  for g in PAPER for j in range(len(MAX_DIMS))]
    rep.check(name, "NeuroShard's mean embedding cost is below TorchRec's wherever TorchRec fits "
              "every task (paper: \"NeuroShard achieves much better performances\", "
              f"{100 * min(paper_gain):+.1f}% to {100 * max(paper_gain):+.1f}%)",
              better and all(n is not None and n < t for _, _, t, n in better),
              ", ".join(f"{g} GPUs dim {d}: {100 * (t - n) / t:+.1f}%" for g, d, t, n in better
                        if n is not None) or "TorchRec fits no setting",
              rule="NeuroShard's mean < TorchRec's in every setting TorchRec fits")


def table3(rep, ablation, count):
    """Table 3 (4 GPUs) and App. G Table 7 (8 GPUs): the ablation at max dim 128 and §4.4's
    observations, one check each over both GPU counts. The checks and their thresholds were
    written before the first run (2026-11-28)."""
    name = "neuroshard-table3"
    md = [f"## {name}: ablation of the search at max dim {ABLATION_DIM} (mean over {count} tasks)",
          "", "Table 3 (4 GPUs) and App. G Table 7 (8 GPUs), ours / paper. Cost: embedding cost "
          "in ms (\"-\": some task found no plan that fits); success: tasks placed; time: "
          "planning time per task in s (ours: our search with the analytic cost model, wall "
          "clock, sweep points run in parallel; the paper's: its neural cost models); hit rate: "
          "the computation-cost cache's hits per query, mean over tasks.", ""]
    csv_rows = []
    summary = {}
    for gpus, results in ablation.items():
        rows = []
        for label, _ in ABLATIONS:
            per = results[label]
            costs = [r["cost_ms"] for r in per]
            placed = sum(c is not None for c in costs)
            cost = None if placed < len(per) else sum(costs) / len(per)
            times = [r["planning_s"] for r in per if r["planning_s"] is not None]
            time_s = sum(times) / len(times) if times else None
            rates = [r["hits"] / r["queries"] for r in per if r["queries"]]
            rate = sum(rates) / len(rates) if rates else None
            summary[(gpus, label)] = {"cost": cost, "placed": placed / len(per), "time_s": time_s,
                                      "hit_rate": rate, "costs": costs}
            p_cost, p_success, p_time, p_rate = PAPER_ABLATION[gpus][label]
            rows.append([label, f"{fmt_ms(cost)} / {fmt_ms(p_cost)}",
                         f"{100 * placed / len(per):.1f}% / {p_success:.1f}%",
                         f"{'-' if time_s is None else f'{time_s:.4f}'} / {p_time:.2f}",
                         f"{'-' if rate is None else f'{100 * rate:.1f}%'} / {p_rate:.1f}%"])
            for i, r in enumerate(per):
                csv_rows.append([gpus, ABLATION_DIM, i, label,
                                 None if r["cost_ms"] is None else round(r["cost_ms"], 6),
                                 None if r["planning_s"] is None else round(r["planning_s"], 6),
                                 r["queries"], r["hits"]])
        md += [f"### {gpus} GPUs", "",
               table(["variant", "cost (ms)", "success", "time (s)", "hit rate"], rows), ""]
    rep.write_csv(name, ["gpus", "max_dim", "task", "variant", "embedding_cost_ms",
                         "planning_time_s", "cache_queries", "cache_hits"], csv_rows)
    gpus_run = sorted(ablation)

    def per_gpus(fmt_one):
        return "; ".join(f"{g} GPUs: {fmt_one(g)}" for g in gpus_run)

    # "The performance drops significantly when removing beam search or greedy grid search."
    # Without the beam search (no column splits) Table 3 places 87.0% and Table 7 63.0% of tasks.
    rep.check(name, "without the beam search some tasks find no plan that fits (paper: 87.0% "
              "placed on 4 GPUs, 63.0% on 8)",
              all(summary[(g, "w/o beam search")]["placed"] < 1 for g in gpus_run),
              per_gpus(lambda g: f"{100 * summary[(g, 'w/o beam search')]['placed']:.1f}% placed"),
              rule="under 100% placed on 4 and on 8 GPUs")

    # Without the grid (no max device dim) the cost rises +7.3% and +14.0%: ours must rise by at
    # least 2% of full NeuroShard's mean (our threshold for "significantly"), or leave a task
    # unplaced. Compared over the tasks both placed.
    def grid_rise(g):
        full = summary[(g, "Full NeuroShard")]["costs"]
        nogrid = summary[(g, "w/o greedy grid search")]["costs"]
        pairs = [(a, b) for a, b in zip(full, nogrid) if a is not None and b is not None]
        unplaced = sum(b is None for b in nogrid)
        if not pairs:
            return None, unplaced
        return sum(b for _, b in pairs) / sum(a for a, _ in pairs) - 1, unplaced

    rises = {g: grid_rise(g) for g in gpus_run}
    rep.check(name, "without the greedy grid search the mean cost rises by at least 2% (paper: "
              "+7.3% on 4 GPUs, +14.0% on 8)",
              all(u > 0 or (x is not None and x >= 0.02) for x, u in rises.values()),
              per_gpus(lambda g: ("-" if rises[g][0] is None else f"{100 * rises[g][0]:+.1f}%")
                       + (f", {rises[g][1]} tasks unplaced" if rises[g][1] else "")),
              rule="mean cost +2% or more, or a task unplaced, on 4 and on 8 GPUs")

    # "The sharding takes significantly more time when removing the caching mechanism": 8.9x and
    # 7.9x in the paper; ours at least 2x (our threshold).
    def slowdown(g):
        a, b = summary[(g, "Full NeuroShard")]["time_s"], summary[(g, "w/o caching")]["time_s"]
        return None if not a or b is None else b / a

    slow = {g: slowdown(g) for g in gpus_run}
    rep.check(name, "without the cache the search takes at least 2x as long (paper: 8.9x on 4 "
              "GPUs, 7.9x on 8)",
              all(x is not None and x >= 2 for x in slow.values()),
              per_gpus(lambda g: "-" if slow[g] is None else f"{slow[g]:.1f}x"),
              rule="planning time x2 or more on 4 and on 8 GPUs")

    # "the cache has a more than 95% hit rate": Table 3's 95.4% and Table 7's 93.0%; ours within
    # 5 points of each.
    def rate(g):
        return summary[(g, "Full NeuroShard")]["hit_rate"]

    rep.check(name, "the cache answers within 5 points of the paper's share of queries (paper: "
              "95.4% on 4 GPUs, 93.0% on 8; \"more than 95%\")",
              all(rate(g) is not None
                  and 100 * rate(g) >= PAPER_ABLATION[g]["Full NeuroShard"][3] - 5
                  for g in gpus_run),
              per_gpus(lambda g: "-" if rate(g) is None else f"{100 * rate(g):.1f}%"),
              rule="our hit rate >= the paper's - 5 points on 4 and on 8 GPUs")
    # The figure: per GPU count and variant, the tasks placed and the cache's hit rate (%).
    short = {"w/o beam search": "w/o beam", "w/o greedy grid search": "w/o grid",
             "w/o caching": "w/o cache", "Full NeuroShard": "full"}
    cats = [f"{g} GPUs\n{short[label]}" for g in gpus_run for label, _ in ABLATIONS]
    keys = [(g, label) for g in gpus_run for label, _ in ABLATIONS]
    ours = {"placed %": [100 * summary[k]["placed"] for k in keys],
            "cache hits %": [None if summary[k]["hit_rate"] is None else 100 * summary[k]["hit_rate"]
                             for k in keys]}
    paper = {"placed %": [PAPER_ABLATION[g][label][1] for g in gpus_run for label, _ in ABLATIONS],
             "cache hits %": [PAPER_ABLATION[g][label][3] for g in gpus_run
                              for label, _ in ABLATIONS]}
    rep.figure_bars(name, cats, ours, paper, "% of tasks placed / % of cache queries hit",
                    "NeuroShard Tables 3 and 7: ablation of the search, max dim 128")
    rep.add_section(name, "\n".join(md))


def main():
    def own_arguments(ap):
        ap.add_argument("--tasks", type=int, default=100, help="tasks per setting (paper: 100)")
        ap.add_argument("--backend", choices=["analytic", "simulation"], default="analytic",
                        help="neuroshard's cost backend (simulation: every candidate simulated)")
        ap.add_argument("--table4-tables", type=int, default=PROD["tables"],
                        help="tables of Table 4's production stand-in (default 1000)")
        ap.add_argument("--table4-nodes", type=int, default=PROD["nodes"],
                        help="ZionEX nodes (8 GPUs each) of Table 4 (default 16: 128 GPUs; "
                        "fewer tables on fewer nodes: CI's smoke run)")
        ap.add_argument("--write-examples", action="store_true",
                        help="also rewrite scenarios/papers/neuroshard-table1-{4,8}gpu.yaml")

    rep = Reproduction(__doc__.splitlines()[0], own_arguments)
    count = rep.args.tasks
    if count < 1:
        fail("--tasks: expected at least 1")
    if rep.args.table4_tables < 1 or rep.args.table4_nodes < 1:
        fail("--table4-tables, --table4-nodes: expected at least 1")
    rep.accept_only(["4gpu", "8gpu", "table1", "table3", "table4"])
    pool = make_pool()
    if rep.args.backend != "analytic":
        labels, text = PLACEMENTS[0]
        PLACEMENTS[0] = (labels, text.replace(
            "torchrec: {sharding_types",
            f"neuroshard: {{backend: {rep.args.backend}}}, torchrec: {{sharding_types"))
    if rep.args.write_examples:
        for gpus in (4, 8):
            tasks = make_tasks(pool, gpus, 128, 1)
            path = os.path.join(rep.root, "scenarios", "papers", f"neuroshard-table1-{gpus}gpu.yaml")
            with open(path, "w") as f:
                f.write(scenario_text(pool, gpus, 128, tasks,
                                      "An example: the first task of the setting (the "
                                      "reproduction runs 100)."))
            log(f"wrote {path}")
    # --only takes GPU counts (4gpu, 8gpu) and tables (table1, table3); a kind not named is not
    # filtered.
    only = rep.only or set()

    def wanted(value, kind):
        return not (only & kind) or value in only

    name = "neuroshard-table1"
    scen_dir = os.path.join(rep.experiment_dir(name), "scenarios")
    os.makedirs(scen_dir, exist_ok=True)
    with open(os.path.join(scen_dir, "pool.yaml"), "w") as f:
        f.write(pool_scenario_text(pool))
    mean_rows = sum(p["rows"] for p in pool) / len(pool)
    mean_pooling = sum(p["pooling"] for p in pool) / len(pool)
    md = [f"## {name}: embedding cost (ms, mean over {count} tasks; simulated)", "",
          f"Pool: {len(pool)} synthetic tables, mean rows {mean_rows / 1e6:.2f} M (paper's pool "
          f"4.11 M), mean pooling {mean_pooling:.1f} (15). Per setting, ours beside the paper's "
          "(ours / paper); \"-\": some task did not fit.", ""]
    csv_rows = []
    wins = {}
    fig_ours, fig_paper = {}, {}
    all_cols = {}  # gpus -> max dim -> planner -> per task: (embedding ms, iteration ms) or None
    for gpus in (4, 8):
        if not (wanted(f"{gpus}gpu", {"4gpu", "8gpu"})
                and wanted("table1", {"table1", "table3", "table4"})):
            continue
        cols = {}
        all_cols[gpus] = cols
        for max_dim in MAX_DIMS:
            tasks, results = run_setting(rep, pool, gpus, max_dim, count, scen_dir)
            cols[max_dim] = results
            for label in ROWS:
                for i, v in enumerate(results[label]):
                    csv_rows.append([gpus, max_dim, i, label, len(tasks[i]),
                                     None if v is None else round(v[0], 6),
                                     None if v is None else round(v[1], 6)])
        for label in ("TorchRec", "NeuroShard"):
            key = f"{label}, {gpus} GPUs"
            fig_ours[key] = [(d, mean_or_none(cols[d][label], 0)) for d in MAX_DIMS]
            fig_paper[key] = list(zip(MAX_DIMS, PAPER[gpus][label]))
        rows = []
        for label in ROWS:
            row = [label]
            for j, max_dim in enumerate(MAX_DIMS):
                ours = mean_or_none(cols[max_dim][label], 0)
                paper = PAPER[gpus].get(label, [None] * 6)[j] if label in PAPER[gpus] else "n/a"
                row.append(f"{fmt_ms(ours)} / {paper if paper == 'n/a' else fmt_ms(paper)}")
            rows.append(row)
        imp_row, iter_row = ["NeuroShard over the best baseline"], ["tasks NeuroShard ≤ every baseline (iteration time)"]
        for j, max_dim in enumerate(MAX_DIMS):
            res = cols[max_dim]
            ns = mean_or_none(res["NeuroShard"], 0)
            base = [mean_or_none(res[b], 0) for b in BASELINES]
            base = [b for b in base if b is not None]
            if ns is None or not base:
                imp_row.append(f"- / {PAPER_IMPROVEMENT[gpus][j]}")
            else:
                imp_row.append(f"{100 * (min(base) - ns) / min(base):+.1f}% / "
                               f"{PAPER_IMPROVEMENT[gpus][j]}")
            # Per task: NeuroShard's iteration time at most every baseline's that fits (1e-9
            # relative slack for equal plans).
            ok = total = 0
            for i in range(len(res["NeuroShard"])):
                n = res["NeuroShard"][i]
                others = [res[b][i] for b in BASELINES if res[b][i] is not None]
                total += 1
                if n is not None and all(n[1] <= o[1] * (1 + 1e-9) for o in others):
                    ok += 1
            wins[(gpus, max_dim)] = (ok, total)
            iter_row.append(f"{ok} of {total}")
        md += [f"### {gpus} GPUs (max table dim)", "",
               table(["planner"] + [str(d) for d in MAX_DIMS], rows + [imp_row, iter_row]), ""]
    if all_cols:  # Table 1 ran (not only Table 3 or 4)
        rep.write_csv(name, ["gpus", "max_dim", "task", "planner", "tables", "embedding_cost_ms",
                             "iteration_ms"], csv_rows)
    ok = sum(v[0] for v in wins.values())
    total = sum(v[1] for v in wins.values())
    if total:
        md += [f"NeuroShard's iteration time is at most every baseline's on {ok} of {total} "
               f"tasks ({100 * ok / total:.1f}%; the issue's bar: 95%).", ""]
        rep.check(name, "NeuroShard at least as good as every baseline on >= 95% of tasks",
                  ok >= 0.95 * total, f"{ok} of {total}", rule="at least 95% of tasks",
                  not_counted="a bar of ours (issue 15), not a claim of the paper, which "
                  "reports means per setting")
    if all_cols:
        table1_checks(rep, name, all_cols)
    if fig_ours:
        rep.figure_lines(name, fig_ours, fig_paper, "maximum table dim",
                         f"embedding cost, ms (mean of {count} tasks)",
                         "NeuroShard Table 1 (missing points: some task did not fit)", logx=True)
    if all_cols:
        rep.add_section(name, "\n".join(md))
    ablation = {}
    for gpus in (4, 8):
        if wanted(f"{gpus}gpu", {"4gpu", "8gpu"}) and wanted("table3", {"table1", "table3",
                                                                        "table4"}):
            ablation[gpus] = run_ablation(rep, pool, gpus, count, scen_dir)
    if ablation:
        table3(rep, ablation, count)
    # Table 4 is neither 4 nor 8 GPUs: it runs when named, or when --only names nothing.
    if "table4" in only or not only:
        table4(rep)
    rep.finish("NeuroShard reproduction (seed 002, Tables 1, 3 and 4)",
               "Generated by `scripts/reproduce.sh neuroshard`; see docs/reproductions/neuroshard.md.")


if __name__ == "__main__":
    main()
