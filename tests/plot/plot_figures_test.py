#!/usr/bin/env python3
"""ctest `plot.figures`: what scripts/plot.py draws, checked on the matplotlib Axes of
constructed reports (no shardsim run): the sweep's lines and panels and their data, the comm
colour bar's plain ticks, the report figures' file names, every planner in compare, diff's bars
and % changes, bad input. Each case also writes its PNG into OUT_DIR (default: a temp dir).

  plot_figures_test.py [OUT_DIR]     # exit 77 (ctest SKIP_RETURN_CODE) without matplotlib
"""
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import plot  # noqa: E402

SKIP = 77
OUT = None  # set in main()
UNFIT = "does not fit (on the x axis)"  # the legend entry of the crosses
PLAIN = re.compile(r"^[0-9]+(\.[0-9]+)?$")


def make_report(planner, qps=1e6, iteration_s=2e-3, point="", gpus=4, comm_bytes=33.5e6):
    """A simulated report with what the figures read; GPU i sends comm_bytes * (i + 1) / 2 to
    every other GPU, forward and backward alike."""
    row = [[0.0 if i == j else comm_bytes * (i + 1) / 2 for j in range(gpus)]
           for i in range(gpus)]
    return {
        "scenario": "constructed", "planner": planner, "sweep_point": point,
        "qps": qps, "iteration_time_s": {"mean": iteration_s, "p99": 1.1 * iteration_s},
        "fits_in_memory": True, "critical_gpu": 0, "num_gpus": gpus,
        "memory_bytes": {"max": 4e9}, "comm_total_bytes": 2 * sum(map(sum, row)),
        "imbalance_ratio": 1.05,
        "scenario_values": {"cluster.nodes": 1, "model.precision.comms": "fp32"},
        "per_gpu": [{"gpu": g, "node": 0, "memory_capacity_bytes": 40e9, "weights_bytes": 3e9,
                     "reserved_bytes": 1e9,
                     "time_shares_s": {"embedding": 2e-4, "dense_compute": 5e-4,
                                       "communication": 3e-4, "comm_wait": 0.0, "host": 0.0,
                                       "idle": iteration_s - 1e-3}} for g in range(gpus)],
        "breakdown_s": {"bottom_mlp_fwd": {"exposed": 4e-4}, "alltoall_fwd": {"exposed": 6e-4},
                        "top_mlp_bwd": {"exposed": iteration_s - 1e-3}},
        "comm_bytes": {"granularity": "gpu", "fwd": row, "bwd": row},
    }


def sweep_reports():
    """cluster.nodes x workload.batch_per_gpu x placement.planner, 12 points; QPS = nodes x
    batch x (1 table_wise, 2 row_wise); (4 nodes, 4096, row_wise) does not fit."""
    out = []
    for nodes in (1, 2, 4):
        for batch in (1024, 4096):
            for k, planner in enumerate(("table_wise", "row_wise")):
                point = f"cluster.nodes={nodes},workload.batch_per_gpu={batch}," \
                        f"placement.planner={planner}"
                r = make_report(planner, qps=nodes * batch * (k + 1), point=point,
                                iteration_s=1e-3 * batch / 1024)
                if (nodes, batch, planner) == (4, 4096, "row_wise"):
                    r["iteration_time_s"], r["qps"], r["fits_in_memory"] = None, None, False
                out.append(r)
    return out


def drawn_lines(ax):
    """{label: (xs, ys)} of the lines a legend shows (unfit crosses are "_unfit")."""
    return {ln.get_label(): (list(ln.get_xdata()), list(ln.get_ydata()))
            for ln in ax.get_lines()
            if not ln.get_label().startswith("_") and ln.get_label() != UNFIT}


def png(name):
    return os.path.join(OUT, name)


class SweepFigure(unittest.TestCase):
    def test_one_line_per_second_key_value_one_panel_per_third(self):
        fig, axes = plot.sweep_figure(sweep_reports())
        self.assertEqual(len(axes), 4)  # QPS and time rows x two planner columns
        self.assertEqual([a.get_title() for a in axes[:2]],
                         ["QPS, placement.planner=table_wise", "QPS, placement.planner=row_wise"])
        for col, factor in ((0, 1), (1, 2)):
            lines = drawn_lines(axes[col])
            self.assertEqual(sorted(lines), ["workload.batch_per_gpu=1024",
                                             "workload.batch_per_gpu=4096"])
            for batch in (1024, 4096):
                xs, ys = lines[f"workload.batch_per_gpu={batch}"]
                fits = [1, 2, 4] if (factor, batch) != (2, 4096) else [1, 2]
                self.assertEqual(xs, fits)
                for y, n in zip(ys, fits):
                    self.assertAlmostEqual(y, 1e-6 * n * batch * factor)
            self.assertEqual(axes[col].get_xlabel(), "cluster.nodes")
        xs, ys = drawn_lines(axes[3])["workload.batch_per_gpu=4096"]  # iteration time, row_wise
        self.assertEqual((xs, ys), ([1, 2], [4.0, 4.0]))
        unfit = [ln for ln in axes[1].get_lines() if ln.get_label() == "_unfit"]
        self.assertEqual([list(u.get_xdata()) for u in unfit], [[4]])
        legend = fig.legends[0] if fig.legends else axes[1].get_legend()
        texts = [t.get_text() for t in legend.get_texts()]
        self.assertEqual(texts, ["workload.batch_per_gpu=1024", "workload.batch_per_gpu=4096",
                                 UNFIT])
        self.assertEqual(legend.get_title().get_text(), "workload.batch_per_gpu")
        plot.save(fig, png("sweep-three-keys.png"))

    def test_key_picks_x_and_two_keys_have_one_column(self):
        reports = [r for r in sweep_reports() if r["planner"] == "table_wise"]
        for r in reports:  # two keys: drop the planner from the labels
            r["sweep_point"] = r["sweep_point"].rsplit(",", 1)[0]
        fig, axes = plot.sweep_figure(reports, key="workload.batch_per_gpu")
        self.assertEqual(len(axes), 2)
        lines = drawn_lines(axes[0])
        self.assertEqual(sorted(lines), ["cluster.nodes=1", "cluster.nodes=2", "cluster.nodes=4"])
        self.assertEqual(lines["cluster.nodes=2"][0], [1024, 4096])
        self.assertEqual(lines["cluster.nodes=2"][1], [1e-6 * 2 * 1024, 1e-6 * 2 * 4096])
        plot.save(fig, png("sweep-two-keys.png"))

    def test_planners_as_colours_second_key_as_dashes(self):
        reports = sweep_reports()
        for r in reports:  # the planner not swept: two planners per point
            r["sweep_point"] = r["sweep_point"].rsplit(",", 1)[0]
        fig, axes = plot.sweep_figure(reports)
        self.assertEqual(len(axes), 2)
        lines = {ln.get_label(): ln for ln in axes[0].get_lines()}
        tw1, tw4 = (lines[f"table_wise, workload.batch_per_gpu={b}"] for b in (1024, 4096))
        rw1 = lines["row_wise, workload.batch_per_gpu=1024"]
        self.assertEqual(tw1.get_color(), tw4.get_color())
        self.assertNotEqual(tw1.get_color(), rw1.get_color())
        self.assertEqual(tw1.get_linestyle(), rw1.get_linestyle())
        self.assertNotEqual(tw1.get_linestyle(), tw4.get_linestyle())
        self.assertEqual(list(rw1.get_ydata()), [1e-6 * (n * 1024 * 2) for n in (1, 2, 4)])
        self.assertEqual(axes[0].get_legend().get_title().get_text(),
                         "planner, workload.batch_per_gpu")
        plot.save(fig, png("sweep-planner-colours.png"))

    def test_zipped_key_folds_into_x(self):
        reports = [make_report("table_wise", qps=q, point=f"cluster.nodes={n},"
                               f"workload.batch_per_gpu={b},placement.planner=table_wise")
                   for n, b, q in ((1, 4096, 1e6), (2, 2048, 2e6), (4, 1024, 3e6))]
        fig, axes = plot.sweep_figure(reports)
        self.assertEqual(list(drawn_lines(axes[0])), ["table_wise"])
        self.assertEqual(axes[0].get_xlabel(), "cluster.nodes (with workload.batch_per_gpu)")
        plot.save(fig, png("sweep-zipped.png"))

    def test_labels_with_flow_style_values(self):
        self.assertEqual(plot.sweep_pairs("model.tables[0].rows=5,placement.planner=[a, b],"
                                          "x.y={p: 1, q: 2},s='u,v'"),
                         [("model.tables[0].rows", "5"), ("placement.planner", "[a, b]"),
                          ("x.y", "{p: 1, q: 2}"), ("s", "'u,v'")])

    def test_unknown_key_is_an_error(self):
        with self.assertRaisesRegex(plot.PlotError, "--key cluster.nodez: not a swept key"):
            plot.sweep_figure(sweep_reports(), key="cluster.nodez")


class CommFigure(unittest.TestCase):
    def check_plain(self, report, unit, name):
        fig, (ax,) = plot.new_figure(1)
        plot.draw_comm(ax, report)
        fig.canvas.draw()
        cb = fig.axes[1]
        self.assertEqual(cb.yaxis.get_offset_text().get_text(), "")
        labels = [t.get_text() for t in cb.get_yticklabels() if t.get_text()]
        self.assertGreaterEqual(len(labels), 3, labels)
        for label in labels:
            self.assertRegex(label, PLAIN)
        self.assertEqual([t.get_text() for t in cb.get_yticklabels(minor=True) if t.get_text()],
                         [])
        self.assertTrue(cb.get_ylabel().startswith(f"{unit} per iteration"), cb.get_ylabel())
        plot.save(fig, png(name))

    def test_colour_bar_is_plain_in_mb(self):  # 16.75 to 67 MB
        self.check_plain(make_report("table_wise"), "MB", "comm-mb.png")

    def test_colour_bar_narrow_range(self):  # 33.5 to 35 MB: few 1-2-5 values inside
        r = make_report("table_wise", gpus=2)
        r["comm_bytes"]["fwd"] = r["comm_bytes"]["bwd"] = [[0, 16.75e6], [17.5e6, 0]]
        self.check_plain(r, "MB", "comm-narrow.png")

    def test_colour_bar_in_gb(self):
        self.check_plain(make_report("table_wise", comm_bytes=3e9), "GB", "comm-gb.png")


class ReportFileNames(unittest.TestCase):
    def write(self, reports, name):
        path = os.path.join(OUT, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"reports": reports}, f)
        return path

    def figures(self, argv):
        out = os.path.join(OUT, f"names-{os.path.basename(argv[1])}-{len(argv)}")
        self.assertEqual(plot.main([*argv, "--out", out]), 0)
        return sorted(os.listdir(out))

    def test_planner_suffix_with_and_without_planner_flag(self):
        path = self.write([make_report(p) for p in ("table_wise", "row_wise", "data_parallel")],
                          "three.json")
        names = self.figures(["report", path, "--planner", "row_wise"])
        self.assertEqual(names, ["breakdown-row_wise.png", "comm-row_wise.png",
                                 "gpus-row_wise.png"])
        self.assertEqual(len(self.figures(["report", path])), 9)
        one = self.write([make_report("table_wise")], "one.json")
        self.assertIn("gpus-table_wise.png", self.figures(["report", one]))

    def test_sweep_point_in_the_name(self):
        path = self.write([make_report("table_wise", point="cluster.nodes=2,model.x=[1, 2]")],
                          "point.json")
        self.assertIn("gpus-table_wise-cluster.nodes2-model.x_1-2_.png",
                      self.figures(["report", path]))

    def test_unknown_planner_is_exit_2(self):
        path = self.write([make_report("table_wise")], "unknown.json")
        self.assertEqual(plot.main(["report", path, "--planner", "nope", "--out", OUT]), 2)


def comparison():
    pairs = []
    for planner, change in (("table_wise", 0.0), ("row_wise", 0.1), ("data_parallel", -0.2)):
        metrics = [{"metric": "iteration_time_mean_s", "baseline": 2e-3,
                    "candidate": 2e-3 * (1 + change), "change": change,
                    "verdict": "regressed" if change > 0 else "improved" if change else "ok"}]
        pairs.append({"scenario": "constructed", "planner": planner, "sweep_point": "",
                      "verdict": "ok", "metrics": metrics})
    return {"pairs": pairs}


class CompareFigure(unittest.TestCase):
    def test_every_planner_has_a_panel(self):
        fig, axes = plot.compare_figure(comparison())
        self.assertEqual([a.get_title() for a in axes],
                         ["planner table_wise: ok", "planner row_wise: ok",
                          "planner data_parallel: ok"])
        widths = [[p.get_width() for p in a.patches] for a in axes]
        self.assertEqual(widths[0], [])  # nothing moved
        self.assertAlmostEqual(widths[1][0], 10.0)
        self.assertAlmostEqual(widths[2][0], -20.0)
        plot.save(fig, png("compare-three-planners.png"))


class DiffFigure(unittest.TestCase):
    def runs(self):
        a = [make_report(p, qps=q, iteration_s=t)
             for p, q, t in (("table_wise", 2e6, 2e-3), ("row_wise", 1e6, 4e-3),
                             ("only_a", 1e6, 1e-3))]
        b = copy.deepcopy(a[:2])
        b[0]["qps"] = 2.2e6  # +10%
        b[1]["qps"] = 0.75e6  # -25%
        b[1]["iteration_time_s"] = None  # not simulated: n/a
        b[1]["scenario_values"]["model.precision.comms"] = "fp16"
        return a, b

    def test_bars_carry_the_values_and_changes(self):
        a, b = self.runs()
        fig, axes = plot.diff_figure(a, b, ("A: base", "B: fp16"))
        self.assertEqual(len(axes), len(plot.DIFF_METRICS))
        qps = axes[0]
        self.assertEqual(qps.get_title(), "QPS")
        self.assertEqual([t.get_text() for t in qps.get_xticklabels()], ["table_wise", "row_wise"])
        bars_a, bars_b = qps.containers
        self.assertEqual(bars_a.get_label(), "A: base")
        self.assertEqual([round(p.get_height(), 9) for p in bars_a], [2.0, 1.0])
        self.assertEqual([round(p.get_height(), 9) for p in bars_b], [2.2, 0.75])
        self.assertEqual([t.get_text() for t in qps.texts], ["+10.0%", "-25.0%"])
        it = axes[1]
        self.assertEqual(it.get_ylabel(), "ms")
        self.assertEqual([round(p.get_height(), 9) for p in it.containers[0]], [2.0, 4.0])
        self.assertEqual([t.get_text() for t in it.texts], ["=", "n/a"])
        title = fig._suptitle.get_text()
        self.assertIn("only in A: only_a; only in B: none", title)
        plot.save(fig, png("diff.png"))

    def test_sweep_points_pair_by_planner_and_point(self):
        a = [make_report("tw", qps=1e6, point=f"cluster.nodes={n}") for n in (1, 2)]
        b = [make_report("tw", qps=2e6, point="cluster.nodes=2")]
        pairs, only_a, only_b = plot.diff_pairs(a, b)
        self.assertEqual([k for k, _, _ in pairs], ["tw @ cluster.nodes=2"])
        self.assertEqual((only_a, only_b), (["tw @ cluster.nodes=1"], []))

    def test_no_pair_is_an_error(self):
        with self.assertRaisesRegex(plot.PlotError, "no report pairs"):
            plot.diff_figure([make_report("a")], [make_report("b")])

    def test_command_line_takes_out_folders(self):
        a, b = self.runs()
        for side, reports in (("a", a), ("b", b)):
            os.makedirs(os.path.join(OUT, "diff-" + side), exist_ok=True)
            with open(os.path.join(OUT, "diff-" + side, "report.json"), "w") as f:
                json.dump({"reports": reports}, f)
        out = os.path.join(OUT, "diff-cli")
        self.assertEqual(plot.main(["diff", os.path.join(OUT, "diff-a"),
                                    os.path.join(OUT, "diff-b"), "--out", out]), 0)
        self.assertEqual(os.listdir(out), ["diff.png"])
        self.assertEqual(plot.main(["diff", os.path.join(OUT, "diff-a"), "--out", out]), 2)


def main():
    global OUT
    if not plot.have_matplotlib():
        system = "/usr/bin/python3"  # Debian's has python3-matplotlib (scripts/deps.sh)
        if os.path.realpath(sys.executable) != os.path.realpath(system) and os.access(
                system, os.X_OK):
            return subprocess.run([system, os.path.abspath(__file__), *sys.argv[1:]]).returncode
        print("SKIP: no python3 with matplotlib (install python3-matplotlib: scripts/deps.sh)")
        return SKIP
    OUT = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="plot-figures-")
    shutil.rmtree(OUT, ignore_errors=True)  # figures of an earlier run would pass for these
    os.makedirs(OUT)
    print(f"figures in {OUT}")
    result = unittest.main(argv=[sys.argv[0], "-v"], exit=False).result
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
