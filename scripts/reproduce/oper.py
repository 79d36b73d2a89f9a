"""OPER (USENIX ATC'24, seeds/000) reproduced with shardsim: Fig. 10, Tables 2 and 3, Figs. 8,
9a, 9b, 6 and 7. Run through scripts/reproduce.sh oper; docs/reproductions/oper.md discusses the
result.
Every experiment runs the committed scenarios under scenarios/papers/ unchanged; each also draws
<out>/<experiment>/figure.png when python3-matplotlib is installed."""

import os
import re

from common import CHECK_HEADER, Reproduction, fail, fmt, log, stats, table

MiB = 2.0 ** 20
DATASETS = [("avazu", "Avazu"), ("criteo-kaggle", "Criteo Kaggle"),
            ("criteo-terabyte", "Criteo Terabyte")]
PLANNERS = [("memory_greedy", "MG"), ("access_greedy", "AG"), ("round_robin", "TW"),
            ("torchrec", "TorchRec"), ("oper", "OPER")]

# OPER Table 2: extra memory ratio -> (mean MB, variance) per dataset.
TABLE2_RATIOS = [0, 0.01, 0.02, 0.05, 0.10, 0.15, 0.20]
# Why Table 2's "0% matches the paper's mean" cannot fail (listed apart, not counted).
TABLE2_ZERO_ROW = ("the batch (16384 a GPU) is derived from these 0% rows (set-up), so ours "
                   "equals them by arithmetic")
TABLE2 = {
    "avazu": ([2.50, 0.16, 0.15, 0.13, 0.12, 0.10, 0.10],
              [1.4e-1, 2.0e-5, 6.4e-5, 6.1e-5, 1.0e-4, 1.3e-4, 7.3e-5]),
    "criteo-terabyte": ([13.00, 0.95, 0.84, 0.73, 0.66, 0.57, 0.52],
                        [8.4e-4, 4.2e-3, 1.5e-3, 1.6e-3, 1.2e-3, 2.7e-3, 5.6e-3]),
    "criteo-kaggle": ([3.25, 0.46, 0.30, 0.24, 0.20, 0.19, 0.18],
                      [2.0e-7, 6.9e-2, 8.9e-4, 1.3e-3, 4.6e-5, 2.8e-5, 1.3e-5]),
}
# OPER Table 3 (OPER rows): threshold -> (planning time s, max comm, min comm, DoB).
TABLE3 = [(0.05, 15.8, 48.6, 34.8, 0.716), (0.01, 28.4, 42.3, 33.9, 0.801),
          (0.005, 41.5, 38.4, 33.9, 0.883), (0.001, 120.3, 34.1, 33.8, 0.991),
          (0.0005, 235.2, 34.2, 33.9, 0.991)]


def by_planner(reports):
    return {r["planner"]: r for r in reports}


def row_bytes(report, scenario_dim):
    return scenario_dim * 4  # fp32 tables in every OPER scenario


def off_diagonal(matrix):
    return [v for i, row in enumerate(matrix) for j, v in enumerate(row) if i != j]


def spread(values):
    lo, mean, hi, _ = stats(values)
    return (hi - lo) / mean if mean > 0 else 0.0


# --- Fig. 10 ---------------------------------------------------------------------------------

MODES = [("training", []), ("inference", ["--set", "workload.mode=inference"])]
MODE_NOTE = ("OPER §6.4-6.5 do not say whether these runs were training or inference, and the "
             "two duplicate differently (§4.3: Eq. 4-5's frequency rule, copies on every GPU, vs "
             "Algorithm 1, copies where they cut the most communication), so each is run both "
             "ways: the committed scenarios (training) and the same with "
             "`--set workload.mode=inference`.")
FIG10_NOTE = ("Fig. 10 is checked in training, the variant §6.4 describes (its TorchRec \"employs "
              "data parallelism for small EMTs\", whose replicas train with AllReduce, and OPER's "
              "\"frequency-aware data parallelism\" is Eq. 4-5's training rule; issue 17). The "
              "inference runs are shown beyond the paper, unchecked.")


def fig10(rep):
    name = "oper-fig10"
    log(f"{name}: MG, AG, TW, TorchRec, OPER on 8 GPUs")
    csv_rows, md = [], [f"## {name}: placement optimality (OPER §6.4, Fig. 10)", "",
                        "Per GPU: embedding memory (weights + optimizer state, Eq. 1) and lookup "
                        "workload (lookups served x row bytes, Eq. 2's data volume); per GPU pair: "
                        "forward communication (Eq. 3's bytes). Every plan is evaluated with "
                        "one-sided, per-embedding communication, as OPER's model evaluates them. "
                        "The paper's figure is not in the text; its claims are checked below. "
                        + MODE_NOTE + " " + FIG10_NOTE, ""]
    checks, fig = [], {label: [] for _, label in PLANNERS}
    for mode, extra in MODES:
        for key, title in DATASETS:
            reports = by_planner(rep.run(f"scenarios/papers/{name}/{key}.yaml", *extra))
            dim = 64 if key == "criteo-terabyte" else 16
            rows, s = [], {}
            for planner, label in PLANNERS:
                r = reports[planner]
                mem = [g["weights_bytes"] + g["optimizer_bytes"] for g in r["per_gpu"]]
                work = [g["lookups"] * row_bytes(r, dim) for g in r["per_gpu"]]
                comm = off_diagonal(r["comm_bytes"]["fwd"])
                s[label] = {"mem": mem, "work": work, "comm": comm}
                m, w, c = stats(mem), stats(work), stats(comm)
                rows.append([label, fmt(m[2] / 1e9), fmt(m[1] / 1e9), fmt(m[0] / 1e9),
                             fmt(w[2] / 1e6), fmt(w[1] / 1e6), fmt(w[0] / 1e6),
                             fmt(c[2] / 1e6), fmt(c[1] / 1e6), fmt(c[0] / 1e6)])
                csv_rows.append([mode, key, label, m[2], m[1], m[0], w[2], w[1], w[0], c[2],
                                 c[1], c[0]])
            md += [f"### {title}, {mode}" + ("" if mode == "training" else
                                              " (beyond the paper: not checked)"), "",
                   table(["planner", "mem max GB", "mean", "min", "work max MB", "mean", "min",
                          "comm max MB", "mean", "min"], rows), ""]
            sp = {k: {q: spread(v[q]) for q in v} for k, v in s.items()}
            if mode == "training":
                for k in fig:
                    fig[k].append(stats(s[k]["comm"])[1] / 1e6)
            if mode != "training":
                continue  # Fig. 10 is §6.4's training variant (FIG10_NOTE)
            mean_comm = {k: stats(v["comm"])[1] for k, v in s.items()}
            gap = {k: stats(v["comm"])[2] - stats(v["comm"])[0] for k, v in s.items()}
            others = ["AG", "TW", "TorchRec"]
            t = f"{title}, {mode}"
            checks.append(rep.check(name, f"{t}: MG has the most balanced memory",
                                    sp["MG"]["mem"] <= min(sp[k]["mem"] for k in sp) + 1e-9,
                                    "(max-min)/mean: " + ", ".join(
                                        f"{k} {sp[k]['mem']:.3f}" for k in sp),
                                    rule="MG's (max-min)/mean memory <= every planner's"))
            checks.append(rep.check(name, f"{t}: OPER's memory balance is near MG's, better "
                                    "than AG, TW, TorchRec",
                                    sp["OPER"]["mem"] < min(sp[k]["mem"] for k in others),
                                    f"OPER {sp['OPER']['mem']:.3f}, MG {sp['MG']['mem']:.3f}",
                                    rule="OPER's memory spread < AG's, TW's and TorchRec's"))
            checks.append(rep.check(name, f"{t}: AG and OPER balance the workload best, MG "
                                    "worst",
                                    max(sp["AG"]["work"], sp["OPER"]["work"]) <
                                    min(sp["TW"]["work"], sp["TorchRec"]["work"]) and
                                    sp["MG"]["work"] >= max(sp[k]["work"] for k in sp),
                                    ", ".join(f"{k} {sp[k]['work']:.3f}" for k in sp),
                                    rule="AG's and OPER's work spread < TW's and TorchRec's; "
                                    "MG's the largest"))
            checks.append(rep.check(name, f"{t}: OPER has the least communication",
                                    mean_comm["OPER"] <= min(mean_comm.values()),
                                    "mean MB per pair: " + ", ".join(
                                        f"{k} {mean_comm[k] / 1e6:.3f}" for k in mean_comm),
                                    rule="OPER's mean MB a pair <= every planner's"))
            checks.append(rep.check(name, f"{t}: OPER has the lowest communication spread",
                                    gap["OPER"] <= min(gap.values()),
                                    "max-min MB: " + ", ".join(
                                        f"{k} {gap[k] / 1e6:.3f}" for k in gap),
                                    rule="OPER's max-min MB a pair <= every planner's"))
            checks.append(rep.check(name, f"{t}: MG's communication is the least balanced",
                                    sp["MG"]["comm"] >= max(sp[k]["comm"] for k in sp),
                                    "(max-min)/mean: " + ", ".join(
                                        f"{k} {sp[k]['comm']:.3f}" for k in sp),
                                    rule="MG's (max-min)/mean communication >= every planner's"))
    rep.write_csv(name, ["mode", "dataset", "planner", "memory_max_bytes", "memory_mean_bytes",
                         "memory_min_bytes", "workload_max_bytes", "workload_mean_bytes",
                         "workload_min_bytes", "comm_pair_max_bytes", "comm_pair_mean_bytes",
                         "comm_pair_min_bytes"], csv_rows)
    rep.figure_bars(name, [t for _, t in DATASETS], fig, None, "mean forward MB per GPU pair",
                    "OPER Fig. 10: communication per GPU pair (training)")
    md += ["Trend checks (OPER §6.4's claims):", "", *CHECK_HEADER, *checks, ""]
    rep.add_section(name, "\n".join(md))


# --- Table 2 ---------------------------------------------------------------------------------

def pair_stats_mib(report):
    comm = [v / MiB for v in off_diagonal(report["comm_bytes"]["fwd"])]
    _, mean, _, var = stats(comm)
    return mean, var


def table2(rep):
    name = "oper-table2"
    log(f"{name}: extra memory ratio 0-20%")
    md = [f"## {name}: extra memory for duplicated embeddings (OPER §6.5, Table 2)", "",
          "Mean and variance of the forward communication per GPU pair per iteration (the 56 "
          "off-diagonal pairs of 8 GPUs), in MiB and MiB² (the paper's \"MB\" is MiB: its 0% "
          "row is exactly batch · tables · row bytes / 8 with batch 16384). " + MODE_NOTE, ""]
    csv_rows, checks = [], []
    reductions = {mode: [] for mode, _ in MODES}
    fig_ours, fig_paper = {}, {}
    for key, title in DATASETS:
        paper_mean, paper_var = TABLE2[key]
        ours = {}
        for mode, extra in MODES:
            ours[mode] = [pair_stats_mib(r)
                          for r in rep.sweep(f"scenarios/papers/{name}/{key}.yaml", *extra)]
        rows = []
        for i, ratio in enumerate(TABLE2_RATIOS):
            (tm, tv), (im, iv) = ours["training"][i], ours["inference"][i]
            rows.append([f"{ratio:.0%}", fmt(paper_mean[i]), fmt(paper_var[i]), fmt(tm), fmt(tv),
                         fmt(im), fmt(iv)])
            csv_rows.append([key, ratio, paper_mean[i], paper_var[i], tm, tv, im, iv])
        md += [f"### {title}", "",
               table(["extra memory", "paper mean", "paper var", "training mean", "var",
                      "inference mean", "var"], rows), ""]
        fig_ours[title] = [(r, m) for r, (m, _) in zip(TABLE2_RATIOS, ours["training"])]
        fig_paper[title] = list(zip(TABLE2_RATIOS, paper_mean))
        paper_red = paper_mean[0] / paper_mean[1]
        for mode, _ in MODES:
            means = [m for m, _ in ours[mode]]
            red = means[0] / means[1]
            reductions[mode].append((red, paper_red))
            t = f"{title}, {mode}"
            checks.append(rep.check(name, f"{t}: 0% matches the paper's mean",
                                    abs(means[0] / paper_mean[0] - 1) < 0.05,
                                    f"ours {means[0]:.3f}, paper {paper_mean[0]:.2f}",
                                    rule="within 5% of the paper's",
                                    not_counted=TABLE2_ZERO_ROW))
            checks.append(rep.check(name, f"{t}: 1% cuts the mean by a large factor (>= 5x)",
                                    red >= 5, f"ours {red:.1f}x, paper {paper_red:.1f}x",
                                    rule="our 0% mean / 1% mean >= 5"))
            checks.append(rep.check(name, f"{t}: more memory, less communication",
                                    all(b <= a * (1 + 1e-9) for a, b in zip(means, means[1:])),
                                    " > ".join(f"{m:.3f}" for m in means),
                                    rule="no step from 0% to 20% raises our mean"))
            later, paper_later = means[1] / means[-1], paper_mean[1] / paper_mean[-1]
            checks.append(rep.check(name, f"{t}: 1% -> 20% still helps, but less than 0 -> 1% "
                                    "(diminishing returns)",
                                    1.1 <= later < red,
                                    f"ours {later:.2f}x vs {red:.1f}x; paper {paper_later:.2f}x "
                                    f"vs {paper_red:.1f}x",
                                    rule="1.1 <= our 1% / 20% mean < our 0% / 1% mean"))
    for mode, _ in MODES:
        avg = sum(o for o, _ in reductions[mode]) / len(reductions[mode])
        avg_paper = sum(p for _, p in reductions[mode]) / len(reductions[mode])
        checks.append(rep.check(name, f"{mode}: on average 1% extra memory cuts communication "
                                "more than 10x", avg > 10,
                                f"ours {avg:.1f}x, paper {avg_paper:.1f}x",
                                rule="our mean over the datasets of 0% / 1% > 10"))
    rep.write_csv(name, ["dataset", "extra_memory_ratio", "paper_mean_MiB", "paper_var_MiB2",
                         "training_mean_MiB", "training_var_MiB2", "inference_mean_MiB",
                         "inference_var_MiB2"], csv_rows)
    rep.figure_lines(name, fig_ours, fig_paper, "extra memory ratio",
                     "mean forward MiB per GPU pair", "OPER Table 2: extra memory (training)",
                     logy=True)
    md += ["The paper's variances move without a trend (Kaggle: 2e-7 at 0%, 7e-2 at 1%); they are "
           "listed, not checked.", "", "Trend checks:", "", *CHECK_HEADER, *checks, ""]
    rep.add_section(name, "\n".join(md))


# --- Table 3 ---------------------------------------------------------------------------------

def received(report):
    """Forward bytes each GPU receives (fetches) per iteration."""
    m = report["comm_bytes"]["fwd"]
    return [sum(m[j][i] for j in range(len(m)) if j != i) for i in range(len(m))]


def sent(report):
    """Forward bytes each GPU sends (serves to the GPUs that fetch from it) per iteration."""
    m = report["comm_bytes"]["fwd"]
    return [sum(m[i][j] for j in range(len(m)) if j != i) for i in range(len(m))]


TABLE3_READING = (
    "The reading chosen for Table 3 (issue 17): its minimum communication is nearly the same at "
    "every threshold (34.8, 33.9, 33.9, 33.8, 33.9) while the maximum falls, which is what a "
    "placement *without duplication* shows when each GPU's communication is what it *sends*: "
    "the total traffic is fixed and only its spread over the GPUs changes with the partition "
    "granularity (with duplication, Table 2 shows the traffic itself falling 10x at 1% extra "
    "memory). So the scenario runs OPER with `extra_memory_ratio: 0` and the table reports the "
    "bytes each GPU serves. Without copies, training and inference place alike, so it is run "
    "once (training).")


def table3(rep):
    name = "oper-table3"
    log(f"{name}: partition threshold 5% .. 0.05%")
    ours, csv_rows = [], []
    for r in rep.sweep(f"scenarios/papers/{name}/criteo-kaggle.yaml", "--timings"):
        got = [b / 1e6 for b in sent(r)]
        ours.append((r["planning_time_s"], max(got), min(got), min(got) / max(got)))
    table_rows = []
    for (thr, p_time, p_max, p_min, p_dob), o in zip(TABLE3, ours):
        table_rows.append([f"{thr:.2%}", f"{p_time} s", fmt(p_max), fmt(p_min), f"{p_dob:.1%}",
                           f"{o[0] * 1e3:.1f} ms", fmt(o[1]), fmt(o[2]), f"{o[3]:.1%}"])
        csv_rows.append([thr, p_time, p_max, p_min, p_dob, *o])
    dobs = [x[3] for x in ours]
    maxes = [x[1] for x in ours]
    mins = [x[2] for x in ours]
    times = [x[0] for x in ours]
    checks = [
        rep.check(name, "a lower threshold gives a higher DoB (5% .. 0.1%)",
                  all(b >= a - 0.005 for a, b in zip(dobs[:3], dobs[1:4])),
                  " -> ".join(f"{d:.1%}" for d in dobs),
                  rule="each DoB >= the previous one - 0.5 points, 5% to 0.1%"),
        rep.check(name, "0.1% reaches a near-optimal DoB (>= 95%; paper 99.1%)",
                  dobs[3] >= 0.95, f"ours {dobs[3]:.1%}", rule="our DoB at 0.1% >= 95%"),
        rep.check(name, "a lower threshold gives less maximum communication",
                  all(b <= a * 1.01 for a, b in zip(maxes[:4], maxes[1:4])),
                  " -> ".join(f"{m:.2f}" for m in maxes),
                  rule="each maximum <= the previous one + 1%, 5% to 0.1%"),
        rep.check(name, "the minimum communication stays within 5% across thresholds "
                  "(paper 33.8-34.8)", max(mins) <= 1.05 * min(mins),
                  " -> ".join(f"{m:.2f}" for m in mins),
                  rule="our largest minimum <= 1.05 x our smallest"),
        rep.check(name, "planning time grows as the threshold falls",
                  times[-1] > times[0], f"{times[0] * 1e3:.1f} ms at 5%, "
                  f"{times[-1] * 1e3:.1f} ms at 0.05%",
                  rule="our planning time at 0.05% > at 5%"),
        rep.check(name, "plans the 0.1% task in under 1 s (issue goal; paper 120 s)",
                  times[3] < 1.0, f"{times[3] * 1e3:.1f} ms", rule="under 1 s",
                  not_counted="a goal of ours, not a claim of the paper (its planner "
                  "takes 120 s)"),
    ]
    rep.write_csv(name, ["threshold", "paper_time_s", "paper_max_comm", "paper_min_comm",
                         "paper_dob", "time_s", "max_sent_MB", "min_sent_MB", "dob"], csv_rows)
    rep.figure_lines(name, {"ours": [(thr, o[3]) for (thr, *_), o in zip(TABLE3, ours)]},
                     {"OPER": [(thr, dob) for thr, _, _, _, dob in TABLE3]},
                     "partition threshold", "degree of balance (min / max)",
                     "OPER Table 3: partition granularity", logx=True)
    md = [f"## {name}: partition granularity (OPER §6.5, Table 3)", "",
          "Criteo-Kaggle-shaped task, 8 GPUs, no duplication, no back-off "
          "(`balance_target: 0`, so each threshold is used as given). Communication per GPU: the "
          "forward bytes it sends per iteration (the rows other GPUs fetch from it), in MB; the "
          "paper does not give its unit. DoB = min / max. Planning time is wall clock here (the "
          "paper's includes its Python front end). " + TABLE3_READING, "",
          table(["threshold", "paper time", "max", "min", "DoB", "our time", "max MB",
                 "min MB", "DoB"], table_rows), "",
          "Trend checks:", "", *CHECK_HEADER, *checks, ""]
    rep.add_section(name, "\n".join(md))


# --- Fig. 8 ----------------------------------------------------------------------------------

def yaml_number(path, key, section=None):
    """A number from one of our simple YAML config files (key: value, optionally under a
    top-level section), without a YAML library."""
    text = open(path).read()
    if section:
        m = re.search(rf"^{section}:\s*\n((?:[ \t]+.*\n)+)", text, re.M)
        text = m.group(1)
    m = re.search(rf"^\s*{key}:\s*([0-9.eE+-]+)", text, re.M)
    return float(m.group(1))


def fig8(rep):
    name = "oper-fig8"
    log(f"{name}: heterogeneous bandwidth on 2 x 4 GPUs")
    # (a) L[i][j] by docs/model.md "One-sided gets", for a 256-byte row (dim 64, fp32), from the
    # preset and the cost parameters the scenario uses.
    hw = os.path.join(rep.root, "configs/hardware/hpc-a100x4.yaml")
    cost = os.path.join(rep.root, "configs/cost/default.yaml")
    gpn = int(yaml_number(hw, "gpus_per_node"))
    up = yaml_number(hw, "bandwidth_GBps", "scale_up") * 1e9 / (gpn - 1)  # direct NVLink mesh
    nic = yaml_number(hw, "bandwidth_Gbitps", "nic") * 1e9 / 8 * yaml_number(hw, "nics_per_node") / gpn
    eff = yaml_number(cost, "one_sided_bandwidth_efficiency")
    intra = 256 / (up * eff) + yaml_number(cost, "one_sided_scale_up_overhead_s")
    inter = 256 / (nic * eff) + yaml_number(cost, "one_sided_scale_out_overhead_s")
    ratio = inter / intra
    # (b) communication cost of the plans by Eq. 3: C[i][j] = rows GPU i fetches from GPU j
    # times L[i][j]; per GPU pair, and per GPU (Σ_j C[i][j]).
    reports = by_planner(rep.run(f"scenarios/papers/{name}/syn-small.yaml"))
    rows, csv_rows, gaps, pair_gap = [], [], {}, {}
    for planner, label in [("round_robin", "TW"), ("oper", "OPER")]:
        m = reports[planner]["comm_bytes"]["fwd"]
        n = len(m)

        def cost(i, j):
            return m[j][i] / 256 * (intra if i // gpn == j // gpn else inter)
        per_gpu = [sum(cost(i, j) for j in range(n) if j != i) for i in range(n)]
        near = [cost(i, j) for i in range(n) for j in range(n) if i != j and i // gpn == j // gpn]
        far = [cost(i, j) for i in range(n) for j in range(n) if i // gpn != j // gpn]
        lo = min(per_gpu)
        gaps[label] = max(per_gpu) / lo - 1 if lo > 0 else float("inf")
        near_mean, far_mean = sum(near) / len(near), sum(far) / len(far)
        pair_gap[label] = max(near_mean, far_mean) / min(near_mean, far_mean) - 1
        rows.append([label] + [f"{c / lo:.3f}" for c in per_gpu] + [f"{gaps[label]:.1%}",
                     f"{near_mean * 1e3:.2f}", f"{far_mean * 1e3:.2f}",
                     f"{pair_gap[label]:.1%}"])
        csv_rows.append([label, *per_gpu, near_mean, far_mean])
    rep.figure_bars(name, [f"GPU {g}" for g in range(8)],
                    {row[0]: [float(c) for c in row[1:9]] for row in rows}, None,
                    "communication cost (Eq. 3), / lowest GPU",
                    "OPER Fig. 8b: per-GPU communication cost, 2 x 4 A100")
    checks = [
        rep.check(name, "inter-node embeddings cost several times intra-node ones (paper 4.21x)",
                  2 <= ratio <= 8, f"ours {ratio:.2f}x", rule="2x to 8x"),
        rep.check(name, "OPER narrows the intra/inter-node pair cost gap of a coarse plan (TW)",
                  pair_gap["OPER"] < pair_gap["TW"],
                  f"OPER {pair_gap['OPER']:.1%}, TW {pair_gap['TW']:.1%}",
                  rule="OPER's intra/inter gap < TW's"),
        rep.check(name, "OPER evens out intra- and inter-node pair costs (paper ~1% gap)",
                  pair_gap["OPER"] < 0.05, f"ours {pair_gap['OPER']:.1%} (TW "
                  f"{pair_gap['TW']:.1%})", rule="OPER's intra/inter gap < 5%"),
        rep.check(name, "OPER's per-GPU communication cost is balanced (within 5%)",
                  gaps["OPER"] < 0.05, f"ours {gaps['OPER']:.1%} (TW {gaps['TW']:.1%})",
                  rule="OPER's (max-min)/min per-GPU cost < 5%"),
    ]
    rep.write_csv(name, ["plan", *[f"gpu{g}_comm_cost_s" for g in range(8)],
                         "intra_pair_mean_s", "inter_pair_mean_s"],
                  csv_rows + [["L_intra_s", intra], ["L_inter_s", inter]])
    md = [f"## {name}: heterogeneous bandwidth (OPER §6.3, Fig. 8)", "",
          "Syn_Small-shaped model on 2 nodes x 4 A100 (hpc-a100x4: NVLink mesh, Slingshot NICs), "
          "inference.", "",
          f"(a) Per-embedding cost of a 256-byte row (OPER's L, docs/model.md): {intra * 1e9:.2f} ns "
          f"inside a node, {inter * 1e9:.2f} ns across nodes: **{ratio:.2f}x** (paper: about "
          "4.21x).", "",
          "(b) Communication cost by Eq. 3 (C[i][j] = rows GPU i fetches from GPU j x L[i][j]): "
          "per GPU (Σ_j C[i][j]) normalised to the lowest, and the mean cost of an intra-node and "
          "of an inter-node GPU pair per iteration. The paper's \"about a 1% gap\" is read as "
          "the gap between intra- and inter-node connections (the figure is not in the text).",
          "",
          table(["plan", *[f"GPU {g}" for g in range(8)], "gap", "intra pair ms",
                 "inter pair ms", "pair gap"], rows), "",
          "Trend checks:", "", *CHECK_HEADER, *checks, ""]
    rep.add_section(name, "\n".join(md))


# --- Fig. 9a ---------------------------------------------------------------------------------

# OPER §6.3: each optimisation's speedup of the forward lookup and communication, in order.
FIG9A_STEPS = [("all-in-one lookup kernel", 2.11), ("+ OPER model parallelism", 1.79),
               ("+ OPER data parallelism", 2.26)]
# An A100's NVLink rate per direction (12 links x 25 GB/s, the dgx-a100 preset's scale-up): no
# one-sided get, at any efficiency, fetches faster (the floor printed beside the first step).
FIG9A_NVLINK_Bps = 300e9


def serialized_s(report, phases):
    """The critical GPU's serialized time in the given phases of `breakdown_s` (absent: 0)."""
    b = report["breakdown_s"]
    return sum(b[p]["serialized"] for p in phases if p in b)


def forward_embedding_s(report):
    """The critical GPU's forward lookup, with its one-sided gets, and any forward AlltoAll."""
    return serialized_s(report, ("embedding_lookup_fwd", "alltoall_fwd"))


def fig9a(rep):
    name = "oper-fig9a"
    log(f"{name}: speedup breakdown on a DGX A100")
    reports = rep.sweep(f"scenarios/papers/{name}/syn-small.yaml")
    torchrec = next(r for r in reports if r["planner"] == "torchrec")
    oper = [r for r in reports if r["planner"] == "oper"]  # extra memory 0, then 5%
    t = [forward_embedding_s(r) for r in (torchrec, *oper)]
    mp, dp = t[0] / t[1], t[1] / t[2]
    # The first step: TorchRec's plan with TorchRec's kernels and pooled AlltoAlls (its input
    # AlltoAll, lookups and output AlltoAll), against the same plan with OPER's one-sided kernel.
    pooled = rep.sweep(f"scenarios/papers/{name}/syn-small.yaml",
                       "--set", "placement.planner=torchrec",
                       "--set", "placement.options.torchrec.communication=pooled")[0]
    t_pooled = serialized_s(pooled, ("input_alltoall", "embedding_lookup_fwd", "alltoall_fwd"))
    kernel = t_pooled / t[0]
    # The bound no get cost can beat: the critical GPU's fetched bytes at its full NVLink rate.
    fetched_max = max(g["comm_received_bytes"] for g in torchrec["per_gpu"])
    nvlink_Bps = FIG9A_NVLINK_Bps
    floor_s = fetched_max / nvlink_Bps
    served = [max(g["comm_sent_bytes"] for g in r["per_gpu"]) for r in (torchrec, *oper)]
    fetched = [max(g["comm_received_bytes"] for g in r["per_gpu"]) for r in (torchrec, *oper)]
    labels = ["TorchRec's plan", "OPER, no copies", "OPER, 5% extra memory"]
    rows = [["TorchRec's plan, its kernels and pooled AlltoAlls", f"{t_pooled * 1e3:.2f}",
             "1.00x", "-", "-"]]
    rows += [[label + " (one-sided)", f"{s * 1e3:.2f}", f"{t_pooled / s:.2f}x", f"{sv / 1e6:.0f}",
              f"{fe / 1e6:.0f}"] for label, s, sv, fe in zip(labels, t, served, fetched)]
    checks = [
        rep.check(name, "the all-in-one lookup kernel speeds up TorchRec's plan about 2.11x "
                  "(within 30%)", abs(kernel / 2.11 - 1) <= 0.3,
                  f"ours {kernel:.2f}x ({t_pooled * 1e3:.2f} ms pooled, {t[0] * 1e3:.2f} ms "
                  f"one-sided; its gets alone take at least {floor_s * 1e3:.2f} ms at "
                  f"{nvlink_Bps / 1e9:.0f} GB/s)", rule="0.7 <= ours / 2.11 <= 1.3"),
        rep.check(name, "+ OPER's model parallelism speeds up TorchRec's plan about 1.79x "
                  "(within 30%)", abs(mp / 1.79 - 1) <= 0.3, f"ours {mp:.2f}x",
                  rule="0.7 <= ours / 1.79 <= 1.3"),
        rep.check(name, "+ OPER's data parallelism about 2.26x (within 30%)",
                  abs(dp / 2.26 - 1) <= 0.3, f"ours {dp:.2f}x", rule="0.7 <= ours / 2.26 <= 1.3"),
    ]
    rep.write_csv(name, ["plan", "forward_embedding_s", "max_served_bytes", "max_fetched_bytes"],
                  [[label, s, sv, fe] for label, s, sv, fe in zip(labels, t, served, fetched)])
    rep.figure_bars(name, [step for step, _ in FIG9A_STEPS], {"speedup": [kernel, mp, dp]},
                    {"speedup": [paper for _, paper in FIG9A_STEPS]},
                    "speedup of the step (forward lookup + communication)",
                    "OPER Fig. 9a: speedup breakdown, DGX A100, Syn_Small")
    md = [f"## {name}: speedup breakdown (OPER §6.3, Fig. 9a)", "",
          "Syn_Small-shaped model on one DGX A100 (8 GPUs), inference, forward pass: the critical "
          "GPU's embedding lookup with its one-sided gets (every plan is evaluated with OPER's "
          "one-sided communication), from TorchRec's plan to OPER's without copies, then with "
          "§6.1's 5% extra memory for copies (Algorithm 1). The first step, the all-in-one "
          "lookup kernel (2.11x), is TorchRec's plan with TorchRec's kernels and pooled "
          "AlltoAlls against the same plan with OPER's retrieve-based kernel (§8: it fetches "
          "every row and pools locally). Paper: 2.11x, 1.79x, 2.26x (8.5x in all).",
          "",
          table(["plan", "forward lookup + comm ms", "over TorchRec (paper: 1, 2.11, 3.78, 8.5x)",
                 "largest GPU's served MB", "largest GPU's fetched MB"], rows), "",
          "Trend checks:", "", *CHECK_HEADER, *checks, ""]
    rep.add_section(name, "\n".join(md))


# --- Fig. 6 ----------------------------------------------------------------------------------

FIG6_GPUS = [1, 2, 4, 8]
FIG6_PLANNERS = ("round_robin", "torchrec", "oper")
FIG6_BASELINES = [("torchrec", "TorchRec"), ("round_robin", "table-wise (DLRM, HugeCTR)")]
FIG6_TOP = {"inference": 6.4, "training": 3.5}  # §6.2: over TorchRec, 2.4-6.4x and 1.9-3.5x


def simulated_qps(report):
    """The report's QPS, or None where the plan did not fit or was not simulated."""
    return report["qps"] if report.get("fits_in_memory") and report.get("qps") else None


def fig6(rep):
    name = "oper-fig6"
    log(f"{name}: single-node speedups over TorchRec and table-wise on 1-8 GPUs")
    speed = {}  # (mode, dataset, gpus, baseline) -> OPER's QPS / the baseline's, None: no fit
    rows, csv_rows = [], []
    for key, label in DATASETS:
        reports = rep.sweep(f"scenarios/papers/{name}/{key}.yaml")
        by = {(r["mode"], r["num_gpus"], r["planner"]): r for r in reports}
        for mode, _ in MODES:
            for g in FIG6_GPUS:
                qps = {p: simulated_qps(by[(mode, g, p)]) for p in FIG6_PLANNERS}
                for base, _ in FIG6_BASELINES:
                    ok = qps["oper"] and qps[base]
                    speed[(mode, label, g, base)] = qps["oper"] / qps[base] if ok else None
                cells = [fmt(qps[p]) if qps[p] else "does not fit" for p in FIG6_PLANNERS]
                x = [speed[(mode, label, g, b)] for b, _ in FIG6_BASELINES]
                rows.append([mode, label, g, *cells,
                             *[f"{v:.2f}x" if v else "-" for v in x]])
                csv_rows.append([mode, key, g, *[qps[p] for p in FIG6_PLANNERS], *x])
    checks = []
    for mode, _ in MODES:
        for base, base_label in FIG6_BASELINES:
            pts = [(label, g, speed[(mode, label, g, base)]) for _, label in DATASETS
                   for g in FIG6_GPUS if g > 1]
            fit = [(label, g, v) for label, g, v in pts if v is not None]
            vs = [v for *_, v in fit]
            detail = f"{min(vs):.2f}x-{max(vs):.2f}x" if vs else "no setting fits"
            if len(fit) < len(pts):
                detail += f"; {len(pts) - len(fit)} settings do not fit"
            checks.append(rep.check(
                name, f"{mode}: OPER faster than {base_label} in every multi-GPU setting "
                "(2, 4, 8 GPUs, three datasets; \"significant improvement ... in all settings\")",
                len(fit) > 0 and all(v > 1 for v in vs), detail,
                rule="every multi-GPU speedup > 1"))
    for mode, _ in MODES:
        rising, parts = True, []
        for _, label in DATASETS:
            xs = [(g, speed[(mode, label, g, "torchrec")]) for g in FIG6_GPUS]
            xs = [(g, v) for g, v in xs if v is not None]
            ok = len(xs) >= 2 and xs[-1][1] > xs[0][1] and all(
                b >= 0.95 * a for (_, a), (_, b) in zip(xs, xs[1:]))
            rising = rising and ok
            parts.append(f"{label} " + ", ".join(f"{v:.2f}" for _, v in xs))
        checks.append(rep.check(
            name, f"{mode}: OPER's speedup over TorchRec rises with the GPU count (\"as the number "
            "of GPUs increases, we achieve higher speedup\": the most GPUs above the fewest, no "
            "step down by more than 5%; every dataset)", rising, "; ".join(parts),
            rule="per dataset: speedup at the most GPUs > at the fewest, each step >= 0.95x"))
    for mode, _ in MODES:
        top = FIG6_TOP[mode]
        best = max((v for (m, _, _, b), v in speed.items() if m == mode and b == "torchrec"
                    and v is not None), default=None)
        checks.append(rep.check(
            name, f"{mode}: the largest speedup over TorchRec within 30% of the paper's {top}x",
            best is not None and abs(best / top - 1) <= 0.3,
            f"ours {best:.2f}x" if best is not None else "no setting fits",
            rule="0.7 <= our largest / the paper's <= 1.3"))
    rep.write_csv(name, ["mode", "dataset", "gpus", "table_wise_qps", "torchrec_qps", "oper_qps",
                         "speedup_over_torchrec", "speedup_over_table_wise"], csv_rows)
    rep.figure_lines(name, {f"{label}, {mode}": [(g, speed[(mode, label, g, "torchrec")])
                                                 for g in FIG6_GPUS
                                                 if speed[(mode, label, g, "torchrec")]]
                            for mode, _ in MODES for _, label in DATASETS},
                     {"inference 2.4-6.4x (its range, ends at 1 and 8 GPUs)": [(1, 2.4), (8, 6.4)],
                      "training 1.9-3.5x (its range, ends at 1 and 8 GPUs)": [(1, 1.9), (8, 3.5)]},
                     "GPUs (one DGX A100)", "OPER speedup over TorchRec",
                     "OPER Fig. 6: single-node speedup over TorchRec", logx=True)
    md = [f"## {name}: single-node inference and training (OPER §6.2, Fig. 6)", "",
          "The three datasets on one DGX A100 with 1, 2, 4 and 8 GPUs, inference and training: "
          "table-wise whole tables with pooled AlltoAlls (DLRM; HugeCTR's "
          "LocalizedSlotEmbeddingHash), TorchRec's planner with pooled AlltoAlls and OPER's plan "
          "(threshold 0.1%, 5% extra memory) with one-sided gets; samples per second (QPS) of the "
          "end-to-end iteration, and OPER's QPS over each baseline's. The frameworks' kernels are "
          "one cost model, so the system-level gains the paper credits for its one-GPU speedups "
          "are not modelled. The paper's figure is not in the text: its ranges are the claims "
          "(over TorchRec 2.4-6.4x in inference, 1.9-3.5x in training).", "",
          table(["mode", "dataset", "GPUs", "table-wise QPS", "TorchRec QPS", "OPER QPS",
                 "OPER / TorchRec", "OPER / table-wise"], rows), "",
          "Trend checks:", "", *CHECK_HEADER, *checks, ""]
    rep.add_section(name, "\n".join(md))


# --- Fig. 7 ----------------------------------------------------------------------------------

FIG7_DATASETS = [("syn-small", "Syn_Small"), ("syn-large", "Syn_Large")]
FIG7_LOOKUP_X, FIG7_TRAINING_X = 2.76, 1.65  # §6.2: OPER over TorchRec, on average
FIG7_LOOKUP_PHASES = ("input_alltoall", "embedding_lookup_fwd", "alltoall_fwd")


def lookup_s(report):
    """The critical GPU's forward embedding path, serialized: the sparse features' AlltoAll (the
    input distribution of TorchRec's AlltoAll-based lookup), the lookup with any one-sided gets,
    and the pooled AlltoAll."""
    return serialized_s(report, FIG7_LOOKUP_PHASES)


def fig7(rep):
    name = "oper-fig7"
    log(f"{name}: multi-node scaling, OPER vs TorchRec on n x 4 A100 nodes")
    rows, csv_rows, curves, checks = [], [], {}, []
    ratios = {}  # (dataset, metric) -> OPER / TorchRec at each node count
    same = {}    # (dataset, metric) -> both throughputs move the same way at every step
    growth = {}  # (dataset, metric) -> (OPER's, TorchRec's) last / first node count, the counts
    for key, label in FIG7_DATASETS:
        reports = rep.sweep(f"scenarios/papers/{name}/{key}.yaml")
        by = {}
        for r in reports:
            if simulated_qps(r) is None:  # the scenarios are sized to fit (their comments)
                fail(f"{name}: {label} on {r['num_nodes']} nodes, {r['planner']} in {r['mode']}: "
                     f"not simulated ({r.get('fit_error') or 'no QPS'}); every point must fit")
            by[(r["mode"], r["num_nodes"], r["planner"])] = r
        nodes = sorted({n for (_, n, _) in by})
        for metric, mode in (("lookup", "inference"), ("training", "training")):
            tput = {}
            for planner in ("torchrec", "oper"):
                for n in nodes:
                    r = by[(mode, n, planner)]
                    tput[(planner, n)] = (r["global_batch"] / lookup_s(r) if metric == "lookup"
                                          else r["qps"])
            ratio = [tput[("oper", n)] / tput[("torchrec", n)] for n in nodes]
            ratios[(label, metric)] = ratio
            curves[f"{label}, {metric}"] = list(zip(nodes, ratio))
            for n, x in zip(nodes, ratio):
                rows.append([label, metric, f"{n} x 4", fmt(tput[("torchrec", n)]),
                             fmt(tput[("oper", n)]), f"{x:.2f}x"])
                csv_rows.append([label, metric, n * 4, tput[("torchrec", n)],
                                 tput[("oper", n)], x])
            checks.append(rep.check(
                name, f"{label}: OPER's {metric} throughput above TorchRec's at every node "
                "count (\"consistently outperforms TorchRec in all experimental settings\")",
                all(x > 1 for x in ratio),
                ", ".join(f"{n} x 4: {x:.2f}x" for n, x in zip(nodes, ratio)),
                rule="OPER / TorchRec > 1 at every node count"))
            same[(label, metric)] = all((tput[("oper", b)] - tput[("oper", a)]) *
                                        (tput[("torchrec", b)] - tput[("torchrec", a)]) > 0
                                        for a, b in zip(nodes, nodes[1:]))
            growth[(label, metric)] = (
                tput[("oper", nodes[-1])] / tput[("oper", nodes[0])],
                tput[("torchrec", nodes[-1])] / tput[("torchrec", nodes[0])], nodes)
    for metric, paper in (("lookup", FIG7_LOOKUP_X), ("training", FIG7_TRAINING_X)):
        every = [x for (_, m), xs in ratios.items() if m == metric for x in xs]
        mean = sum(every) / len(every)
        checks.append(rep.check(
            name, f"OPER's {metric} throughput on average {paper}x TorchRec's (within 30%)",
            abs(mean / paper - 1) <= 0.3, f"ours {mean:.2f}x (mean of {len(every)} points)",
            rule="0.7 <= our mean / the paper's <= 1.3"))
    for metric in ("lookup", "training"):
        detail = "; ".join(
            f"{label} {g[2][0]} -> {g[2][-1]} nodes: OPER {g[0]:.2f}x, TorchRec {g[1]:.2f}x"
            for _, label in FIG7_DATASETS for g in [growth[(label, metric)]])
        checks.append(rep.check(
            name, f"OPER's {metric} throughput scales like TorchRec's (moves the same way at "
            "every step between node counts, both datasets)",
            all(same[(label, metric)] for _, label in FIG7_DATASETS), detail,
            rule="each node-count step changes OPER's and TorchRec's throughput the same way"))
    rep.write_csv(name, ["dataset", "metric", "gpus", "torchrec_samples_per_s",
                         "oper_samples_per_s", "speedup"], csv_rows)
    xs = sorted({n for pts in curves.values() for n, _ in pts})
    rep.figure_lines(name, curves,
                     {f"lookup, mean {FIG7_LOOKUP_X}x": [(n, FIG7_LOOKUP_X) for n in xs],
                      f"training, mean {FIG7_TRAINING_X}x": [(n, FIG7_TRAINING_X) for n in xs]},
                     "nodes (x 4 A100)", "OPER throughput / TorchRec's",
                     "OPER Fig. 7: multi-node scaling over TorchRec", logx=True)
    md = [f"## {name}: multi-node scaling (OPER §6.2, Fig. 7)", "",
          "Syn_Small and Syn_Large on n x 4 A100 nodes (`hpc-a100x4`), TorchRec's planner with its "
          "pooled AlltoAlls against OPER's plan (threshold 0.1%, 5% extra memory) with its "
          "one-sided gets. Lookup throughput: global batch / the critical GPU's forward "
          "embedding path in inference (input AlltoAll, lookup with its gets, pooled AlltoAll; "
          "serialized); training throughput: the training run's QPS. OPER's fused all-in-one "
          "kernel (§5.1-5.2) is not modelled. The node counts are ours (the figure is not in "
          "the text). Paper: OPER above TorchRec everywhere, a similar scaling trend, on "
          "average 2.76x (lookup) and 1.65x (training).", "",
          table(["dataset", "throughput", "nodes", "TorchRec samples/s", "OPER samples/s",
                 "OPER / TorchRec"], rows), "",
          "Trend checks:", "", *CHECK_HEADER, *checks, ""]
    rep.add_section(name, "\n".join(md))


# --- Fig. 9b ---------------------------------------------------------------------------------

EMBEDDING_PHASES = ["embedding_lookup_fwd", "alltoall_bwd", "embedding_replica_allreduce",
                    "embedding_update_bwd"]


def fig9b(rep):
    name = "oper-fig9b"
    log(f"{name}: three AllReduce variants on 4 x 4 GPUs")
    reports = rep.sweep(f"scenarios/papers/{name}/syn-small.yaml")
    labels = ["local-aggregated sparse", "dense ring", "AllGather sparse"]
    rows, csv_rows, emb, sync = [], [], {}, {}
    for label, r in zip(labels, reports):
        emb[label] = serialized_s(r, EMBEDDING_PHASES)
        sync[label] = serialized_s(r, ["embedding_replica_allreduce"])
        it = r["iteration_time_s"]["mean"]
        rows.append([label, f"{emb[label] * 1e3:.2f}", f"{sync[label] * 1e3:.2f}",
                     f"{it * 1e3:.2f}"])
        csv_rows.append([label, emb[label], sync[label], it])
    local, dense, ag = (emb[l] for l in labels)
    rep.figure_bars(name, labels, {"embedding time": [emb[lb] / local for lb in labels]},
                    {"embedding time": [1.0, 1.37, None]},
                    "embedding training latency / local-aggregated",
                    "OPER Fig. 9b: replica gradient synchronisation")
    checks = [
        rep.check(name, "local-aggregated beats dense AllReduce (paper 1.37x)", local < dense,
                  f"ours {dense / local:.2f}x", rule="our local-aggregated time < dense"),
        rep.check(name, "local-aggregated beats AllGather-based sparse AllReduce", local < ag,
                  f"ours {ag / local:.2f}x", rule="our local-aggregated time < AllGather-based"),
    ]
    rep.write_csv(name, ["allreduce", "embedding_s", "replica_sync_s", "iteration_s"], csv_rows)
    md = [f"## {name}: gradient synchronisation of duplicated rows (OPER §5.3, Fig. 9b)", "",
          "Syn_Small-shaped model on 4 nodes x 4 A100, training, OPER's plan (5% extra memory). "
          "Embedding training latency per iteration: the critical GPU's lookup kernel (with its "
          "gets), gradient puts, replica synchronisation and update, serialized.", "",
          table(["AllReduce", "embedding ms (serialized)", "of which sync ms", "iteration ms"], rows), "",
          "Trend checks:", "", *CHECK_HEADER, *checks, ""]
    rep.add_section(name, "\n".join(md))


def main():
    rep = Reproduction(__doc__)
    experiments = [("oper-fig10", fig10), ("oper-table2", table2), ("oper-table3", table3),
                   ("oper-fig8", fig8), ("oper-fig9a", fig9a), ("oper-fig9b", fig9b),
                   ("oper-fig6", fig6), ("oper-fig7", fig7)]
    rep.accept_only([name for name, _ in experiments])
    for name, fn in experiments:
        if rep.wanted(name):
            fn(rep)
    rep.finish("OPER reproduced with shardsim",
               "OPER: Optimality-Guided Embedding Table Parallelization (USENIX ATC'24), "
               "`seeds/000`. Generated by `scripts/reproduce.sh oper`; scenarios under "
               "`scenarios/papers/oper-*`. The paper's numbers are beside ours; where a trend "
               "differs, docs/reproductions/oper.md says why.")


if __name__ == "__main__":
    main()
