#!/usr/bin/env python3
"""NeuroShard's Table 4 (§4.5), the production model: a part of the NeuroShard driver
(scripts/reproduce/neuroshard.py, which runs it as `--only table4` or with the rest).

reproduce.sh runs every scripts/reproduce/<paper>.py but common.py and the modules whose name
starts with "_", such as this one. Python 3 standard library only.
"""

import concurrent.futures
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import fail, log, table  # noqa: E402
from _neuroshard_common import BASELINES, embedding_cost_ms, fmt_ms  # noqa: E402

# Table 4 (128 GPUs): embedding cost in ms and training throughput improvement over Random in %
# (None: Random is the reference). AutoShard and DreamShard (RL, with their own cost models) are
# not reproduced here; their rows are the paper's alone.
PAPER_TABLE4 = {
    "Random": (118.3, None), "Size-based": (107.6, 4.0), "Dim-based": (90.8, 13.9),
    "Lookup-based": (102.4, 11.9), "Size-lookup-based": (109.2, 12.8),
    "AutoShard": (86.6, 32.4), "DreamShard": (61.6, 45.3), "TorchRec": (86.4, 34.6),
    "NeuroShard": (55.2, 54.9),
}
# §4.5: "nearly a thousand embedding tables that demand multi-terabyte memory", sharded "to 128
# GPUs" on "a state-of-the-art hardware platform with RDMA network fabrics, which is detailed in
# Mudigere et al. (2022)": Neo's ZionEX. Our stand-in is Neo's model-A itself
# (scenarios/papers/neo-model-a.yaml: 1000 generated tables, 793B parameters, 16 ZionEX nodes,
# local batch 512, fp16 tables), its tables written out by `shardsim validate --tables-out` so that
# they can be split as NeuroShard's column plan splits them.
PROD = {
    "scenario": os.path.join("scenarios", "papers", "neo-model-a.yaml"),
    "tables": 1000,  # model-A's generate.count; --table4-tables N draws N of them (CI)
    "nodes": 16,  # §4.5: 128 GPUs
}
# (label, placement, planned on the sub-tables of NeuroShard's column plan). §4.5: "for the
# baselines except for TorchRec, we first apply the column-wise sharding plan proposed by
# NeuroShard and then run the baselines".
TABLE4_PLANNERS = [
    ("Random", "{planner: random}", True),
    ("Size-based", "{planner: table_wise, options: {cost: size}}", True),
    ("Dim-based", "{planner: table_wise, options: {cost: dim}}", True),
    ("Lookup-based", "{planner: table_wise, options: {cost: lookup}}", True),
    ("Size-lookup-based", "{planner: table_wise, options: {cost: size_lookup}}", True),
    # TorchRec's own reservation (headroom 0.15, its default) replaces the preset's 3 GiB reserve
    # (docs/planners.md, "torchrec"); Table 1's `headroom: 0` matches Table 1's GPUs, which have
    # no reserve, but here it let TorchRec's plan overflow a GPU by 0.43 GB.
    ("TorchRec", "{planner: torchrec, options: {sharding_types: [table_wise, column_wise]}}",
     False),
    ("hybrid (what-if)", "{planner: hybrid}", False),
    ("NeuroShard", "{planner: neuroshard}", False),
]
# The embedding cost is measured as Table 1's (the slowest GPU's lookups and embedding
# communication) on the same plan with the dense part of Table 1's tasks, so that the MLP
# gradient AllReduce and the input AlltoAll stay out of it; the throughput on the whole model.
EMBEDDING_ONLY = ["model.dense_features=13", "model.bottom_mlp=[64, 16]", "model.top_mlp=[64, 1]",
                  "simulation.pipeline={input_alltoall: none}"]


def production_tables(rep, workdir):
    """Model-A's tables as shardsim generates them (`validate --tables-out`), the first
    --table4-tables of them."""
    out = os.path.join(workdir, "model-a-tables.json")
    scenario = os.path.join(rep.root, PROD["scenario"])
    rep.shardsim("validate", scenario, "--tables-out", out, "--force", "--max-memory", "0",
                 "--set", f"model.generate.count={rep.args.table4_tables}")
    with open(out) as f:
        return json.load(f)["tables"]


def production_scenario_text(rep, tables, nodes, note):
    """neo-model-a.yaml on `nodes` nodes with its generate: block replaced by `tables`, and its
    own header comments by ours."""
    path = os.path.join(rep.root, PROD["scenario"])
    with open(path) as f:
        lines = f.read().splitlines()
    body = lines[next(i for i, x in enumerate(lines) if x.startswith("name:")):]
    cluster = "cluster: {preset: zionex, nodes: 16}"
    if "  generate:" not in body or cluster not in body:
        fail(f"{path}: expected the lines '  generate:' and '{cluster}'; the Table 4 driver "
             "rewrites them (scripts/reproduce/_neuroshard_table4.py, production_scenario_text)")
    out = []
    skipping = False
    for line in body:
        if line == "  generate:":
            skipping = True
            out.append("  tables:")
            # JSON is YAML's flow style; Python's float repr reads back to the same double.
            out += [f"    - {json.dumps(t)}" for t in tables]
            continue
        if skipping and line.startswith("    "):
            continue
        skipping = False
        if line.startswith("name:"):
            line = "name: neuroshard-table4"
        elif line == cluster:
            line = f"cluster: {{preset: zionex, nodes: {nodes}}}"
        out.append(line)
    return (
        "# NeuroShard Table 4 (seed 002, §4.5): the production model's stand-in, Neo's model-A\n"
        f"# ({PROD['scenario']}, its generated tables written out) on {nodes} ZionEX nodes\n"
        "# (scripts/reproduce/_neuroshard_table4.py; docs/reproductions/neuroshard.md).\n"
        f"# {note}\n" + "\n".join(out) + "\n")


def column_blocks(plan_path):
    """Each table's column blocks in a plan file: {table: [(begin, end), ...]} for the tables
    that a column plan split (the others are absent)."""
    with open(plan_path) as f:
        plan = json.load(f)
    blocks = {}
    for name, shards in plan["tables"].items():
        cols = sorted({tuple(s["cols"]) for s in shards if "cols" in s})
        if cols:
            blocks[name] = cols
    return blocks


def split_tables(tables, blocks):
    """The tables as NeuroShard's column plan leaves them: a split table becomes one table per
    column block (the same rows, pooling and skew; its block's width as dim)."""
    out = []
    for t in tables:
        for begin, end in blocks.get(t["name"], [(0, t["dim"])]):
            name = t["name"] if (begin, end) == (0, t["dim"]) else f"{t['name']}_c{begin}"
            out.append(dict(t, name=name, dim=end - begin))
    return out


def run_in_parallel(commands, jobs):
    """Runs the commands `jobs` at a time; returns each one's (exit code, stdout, stderr), in
    order."""
    def one(cmd):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        return proc.returncode, proc.stdout, proc.stderr

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, commands))


def table4(rep):
    """Table 4: every planner on the production model's stand-in, 128 GPUs; the embedding cost
    and the training throughput over Random's. The checks were written before the first run
    (2026-11-28, fifteenth session)."""
    name = "neuroshard-table4"
    d = rep.experiment_dir(name)
    plans = os.path.join(d, "plans")
    os.makedirs(plans, exist_ok=True)
    exe = rep.args.shardsim
    tables = production_tables(rep, d)
    nodes = rep.args.table4_nodes
    full = os.path.join(d, "production.yaml")
    with open(full, "w") as f:
        f.write(production_scenario_text(
            rep, tables, nodes, "The tables as generated (TorchRec, hybrid and NeuroShard plan "
            "these)."))
    start = time.time()

    def plan_cmd(scenario, placement, out):
        return [exe, "plan", scenario, "--set", f"placement={placement}", "--out", out, "--force",
                "--quiet", "--max-memory", "0"]

    # NeuroShard first: its column plan is the baselines' input.
    ns_plan = os.path.join(plans, "neuroshard.json")
    rc, _, err = run_in_parallel([plan_cmd(full, "{planner: neuroshard}", ns_plan)], 1)[0]
    if rc != 0:
        fail(f"neuroshard could not plan {full} (exit {rc}):\n{err.strip()[-2000:]}")
    blocks = column_blocks(ns_plan)
    sub_tables = split_tables(tables, blocks)
    sub = os.path.join(d, "production-columns.yaml")
    with open(sub, "w") as f:
        f.write(production_scenario_text(
            rep, sub_tables, nodes, "The tables as NeuroShard's column plan splits them (the other "
            "baselines plan these, as §4.5 runs them)."))
    slug = {label: label.split(" ")[0].lower().replace("-", "_") for label, _, _ in TABLE4_PLANNERS}
    todo = [(label, sub if on_sub else full, placement) for label, placement, on_sub
            in TABLE4_PLANNERS if label != "NeuroShard"]
    outcomes = run_in_parallel([plan_cmd(s, p, os.path.join(plans, f"{slug[label]}.json"))
                                for label, s, p in todo], rep.args.jobs)
    planned = {"NeuroShard": full}
    for (label, s, _), (rc, _, err) in zip(todo, outcomes):
        if rc == 0:
            planned[label] = s
        elif rc == 3:
            log(f"  {label}: does not fit ({err.strip().splitlines()[-1] if err.strip() else ''})")
        else:
            fail(f"{label}: shardsim plan failed (exit {rc}):\n{err.strip()[-2000:]}")
    log(f"  Table 4: {len(planned)} of {len(TABLE4_PLANNERS)} planners placed the model in "
        f"{time.time() - start:.1f} s ({len(blocks)} tables split into {len(sub_tables)} "
        "sub-tables)")
    # Every plan simulated twice: the whole model (throughput) and the embedding part.
    runs = []
    for label, _, _ in TABLE4_PLANNERS:
        if label not in planned:
            continue
        plan_file = os.path.join(plans, f"{slug[label]}.json")
        for variant, sets in (("whole", []), ("embedding", EMBEDDING_ONLY)):
            cmd = [exe, "run", planned[label], "--set", f"placement={{file: {plan_file}}}",
                   "--format", "json", "--quiet", "--max-memory", "0"]
            for x in sets:
                cmd += ["--set", x]
            runs.append(((label, variant), cmd))
    outcomes = run_in_parallel([cmd for _, cmd in runs], rep.args.jobs)
    reports = {}
    for (key, cmd), (rc, out, err) in zip(runs, outcomes):
        if rc not in (0, 3):
            fail(f"{' '.join(cmd)} failed (exit {rc}):\n{err.strip()[-2000:]}")
        reports[key] = json.loads(out) if out.strip() else None
    log(f"  Table 4: {len(runs)} runs simulated, {time.time() - start:.1f} s in all")

    def cost(label):
        r = reports.get((label, "embedding"))
        return embedding_cost_ms(r) if r and r["fits_in_memory"] else None

    def qps(label):
        r = reports.get((label, "whole"))
        return r["qps"] if r and r["fits_in_memory"] else None

    ours = {label: (cost(label), qps(label)) for label, _, _ in TABLE4_PLANNERS}
    rq = ours["Random"][1]

    def gain(label):
        q = ours[label][1]
        return None if q is None or rq is None else 100 * (q / rq - 1)

    rows, csv_rows = [], []
    # Table 4's rows: the greedy baselines, the RL planners (the paper's alone), TorchRec,
    # the what-if and NeuroShard.
    for label in (BASELINES[:-1] + ["AutoShard", "DreamShard", "TorchRec", "hybrid (what-if)",
                                    "NeuroShard"]):
        p_cost, p_gain = PAPER_TABLE4.get(label, (None, None))
        c, q = ours.get(label, (None, None))
        g = gain(label) if label in ours else None
        mine = label in ours
        rows.append([label,
                     (fmt_ms(c) if mine else "n/a") + f" / {fmt_ms(p_cost) if p_cost else 'n/a'}",
                     ("-" if not mine or g is None or label == "Random" else f"{g:+.1f}%")
                     + " / " + ("-" if p_gain is None else f"+{p_gain:.1f}%"),
                     "n/a" if not mine else ("-" if q is None else f"{q / 1e6:.3f}M")])
        if mine:
            r = reports.get((label, "whole"))
            csv_rows.append([label, None if c is None else round(c, 6),
                             None if q is None else round(q, 3),
                             None if g is None else round(g, 4),
                             None if not r or not r["fits_in_memory"] else r["imbalance_ratio"]])
    rep.write_csv(name, ["planner", "embedding_cost_ms", "qps", "qps_over_random_pct",
                         "imbalance_ratio"], csv_rows)
    run_rows = BASELINES + ["NeuroShard"]
    fitted = [b for b in BASELINES if ours[b][0] is not None]
    ns_cost, ns_qps = ours["NeuroShard"]
    best_cost = min((ours[b][0] for b in fitted), default=None)
    best_qps = max((ours[b][1] for b in BASELINES if ours[b][1] is not None), default=None)

    def listed(index, fmt_one):
        return ", ".join(f"{b} {'-' if ours[b][index] is None else fmt_one(ours[b][index])}"
                         for b in run_rows)

    rep.check(name, "NeuroShard has the lowest embedding cost of the planners run (paper: 55.2 "
              "ms; the next DreamShard 61.6, TorchRec 86.4)",
              ns_cost is not None and all(ours[b][0] is None or ns_cost < ours[b][0]
                                          for b in BASELINES),
              listed(0, lambda x: f"{x:.1f}"), rule="NeuroShard's cost < every baseline's")
    rep.check(name, "NeuroShard trains fastest of the planners run (paper: +54.9% over Random; "
              "the next DreamShard +45.3%, TorchRec +34.6%)",
              ns_qps is not None and all(ours[b][1] is None or ns_qps > ours[b][1]
                                         for b in BASELINES),
              listed(1, lambda x: f"{x / 1e6:.3f}M"), rule="NeuroShard's QPS > every baseline's")
    others = BASELINES[1:]
    rep.check(name, "every baseline's embedding cost is below Random's (paper: 86.4-109.2 ms "
              "against 118.3)",
              ours["Random"][0] is not None and all(ours[b][0] is not None
                                                    and ours[b][0] < ours["Random"][0]
                                                    for b in others),
              listed(0, lambda x: f"{x:.1f}"), rule="each baseline's cost < Random's")
    rep.check(name, "every baseline trains faster than Random (paper: +4.0% to +34.6%)",
              rq is not None and all(ours[b][1] is not None and ours[b][1] > rq for b in others),
              ", ".join(f"{b} {'-' if gain(b) is None else f'{gain(b):+.1f}%'}" for b in others),
              rule="each baseline's QPS > Random's")
    rep.check(name, "TorchRec has the lowest embedding cost of the baselines run (paper: 86.4 ms "
              "against 90.8-118.3)",
              ours["TorchRec"][0] is not None and ours["TorchRec"][0] == best_cost,
              listed(0, lambda x: f"{x:.1f}"), rule="TorchRec's cost = the lowest baseline's")
    margin = (None if ns_cost is None or best_cost is None
              else 100 * (1 - ns_cost / best_cost))
    rep.check(name, "NeuroShard's embedding cost is at least 11.6% below the best baseline's run "
              "(paper: 11.6% below DreamShard, its strongest; 36.1% below TorchRec)",
              margin is not None and margin >= 11.6,
              "-" if margin is None else f"{margin:.1f}% below {fmt_ms(best_cost)} ms",
              rule="NeuroShard's cost <= 0.884 x the best baseline's")
    speedup = (None if ns_qps is None or best_qps is None else 100 * (ns_qps / best_qps - 1))
    rep.check(name, "NeuroShard trains at least 6.6% faster than the best baseline run (paper: "
              "+6.6% over DreamShard; +15.1% over TorchRec)",
              speedup is not None and speedup >= 6.6,
              "-" if speedup is None else f"{speedup:+.1f}% over {best_qps / 1e6:.3f}M",
              rule="NeuroShard's QPS >= 1.066 x the best baseline's")
    order = {t["name"]: i for i, t in enumerate(tables)}  # the model's order
    split = ", ".join(f"{t} into {len(b)}" for t, b in sorted(blocks.items(),
                                                              key=lambda kv: order[kv[0]]))
    scale = "128 GPUs (§4.5)" if nodes == PROD["nodes"] else f"{8 * nodes} GPUs (§4.5: 128)"
    md = [f"## {name}: the production model, {scale}", "",
          "Ours / the paper's. Embedding cost: ms an iteration (the slowest GPU's lookups and "
          "embedding communication, with Table 1's dense part); training throughput: over "
          "Random's, with the whole model; QPS: ours. \"-\": the plan does not fit; \"n/a\": not "
          "reproduced (AutoShard and DreamShard are RL planners). Stand-in: Neo's model-A, "
          f"{len(tables)} tables generated from its GUESSed distributions (`shardsim validate "
          f"--tables-out`; fp16, "
          f"{sum(t['rows'] * t['dim'] * 2 for t in tables) / 1e12:.2f} TB of weights), {nodes} "
          f"ZionEX node{'s' if nodes != 1 else ''}, local batch 512. NeuroShard's column plan "
          f"splits {len(blocks)} tables "
          f"({split or 'none'}); the other baselines but TorchRec plan those "
          f"{len(sub_tables)} sub-tables, as §4.5 runs them.", "",
          table(["planner", "embedding cost (ms)", "throughput over Random", "our QPS"], rows),
          ""]
    rep.add_section(name, "\n".join(md))
    # The figure: both measures relative to Random's (our costs are about a quarter of the
    # paper's in ms, so the ratios are what compares).
    cats = [b for b in run_rows if ours[b][0] is not None and ours[b][1] is not None]
    if ours["Random"][0] is not None and rq is not None:
        short = {"Size-lookup-based": "Size-\nlookup"}
        rep.figure_bars(
            name, [short.get(b, b.replace("-based", "")) for b in cats],
            {"embedding cost / Random's": [ours[b][0] / ours["Random"][0] for b in cats],
             "QPS / Random's": [ours[b][1] / rq for b in cats]},
            {"embedding cost / Random's": [PAPER_TABLE4[b][0] / PAPER_TABLE4["Random"][0]
                                           for b in cats],
             "QPS / Random's": [1 + (PAPER_TABLE4[b][1] or 0) / 100 for b in cats]},
            "relative to Random's",
            f"NeuroShard Table 4: production model, {8 * nodes} GPUs (paper hatched)")
