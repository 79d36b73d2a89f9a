"""The Python API against the CLI and the report schema (docs/python.md)."""
import json
import os
import signal
import subprocess
import threading
import time

import pytest

import shardsim


def test_default_scenario_runs_and_equals_the_cli(root, cli):
    sc = shardsim.Scenario.from_yaml(str(root / "scenarios/default.yaml"))
    reports = shardsim.run(sc)
    assert [r.planner for r in reports] == ["table_wise", "row_wise", "data_parallel"]
    assert all(r.qps > 0 for r in reports)
    out = subprocess.run([cli, "run", str(root / "scenarios/default.yaml"), "--format", "json",
                          "--quiet"], check=True, capture_output=True, text=True).stdout
    assert [r.to_dict() for r in reports] == json.loads(out)["reports"]


def test_every_schema_field_is_an_attribute(root):
    r = shardsim.run(shardsim.Scenario.from_yaml(str(root / "scenarios/default.yaml")),
                     planners="table_wise")[0]
    d = r.to_dict()
    for f in shardsim.report_fields():
        top = f["path"].split(".")[0]
        assert hasattr(r, top), top
        if top in d:
            assert getattr(r, top) == d[top]
        if f["metric"]:
            node = d
            for part in f["path"].split("."):
                node = node[part]
            assert getattr(r, f["metric"]) == node
    assert r.schema_version == shardsim._native.report_schema_version
    with pytest.raises(AttributeError, match="did you mean 'qps'"):
        r.qpss


def test_set_validates_and_returns_a_copy(root):
    sc = shardsim.Scenario.from_yaml(str(root / "scenarios/default.yaml"))
    four = sc.set("cluster.nodes", 4)
    assert four.summary()["cluster"]["num_gpus"] == 32
    assert sc.summary()["cluster"]["num_gpus"] == 16
    with pytest.raises(shardsim.InputError) as e:
        sc.set("cluster.nodes", 0)
    assert e.value.key == "cluster.nodes"
    with pytest.raises(shardsim.InputError) as e:
        sc.set("cluster.nodez", 2)
    assert "did you mean" in str(e.value)


def test_bad_input_raises_input_error_with_file_line_key():
    text = "name: x\ncluster: {preset: dgx-a100, nodes: 1}\nmodel:\n  tables:\n" \
           "    - {name: a, rows: 1000, dim: 30, pooling: 2}\n" \
           "  bottom_mlp: [8]\n  top_mlp: [8, 1]\nworkload: {batch_per_gpu: 64}\n" \
           "placement: {planner: table_wise}\n"
    with pytest.raises(shardsim.InputError) as e:
        shardsim.Scenario.from_yaml(text)
    assert e.value.line == 5 and e.value.key.endswith("dim")
    assert e.value.hint


def test_a_nan_is_refused_at_its_key():
    d = {"name": "n", "cluster": {"preset": "dgx-a100"},
         "model": {"tables": [{"name": "a", "rows": 10, "dim": 8, "pooling": float("nan")}],
                   "bottom_mlp": [8], "top_mlp": [1]},
         "workload": {"batch_per_gpu": 8}, "placement": {"planner": "table_wise"}}
    with pytest.raises(shardsim.InputError) as e:
        shardsim.Scenario.from_dict(d)
    assert e.value.key == "model.tables[0].pooling"


def test_plans_round_trip_through_simulate_and_files(root, tmp_path):
    sc = shardsim.Scenario.from_yaml(str(root / "scenarios/default.yaml"))
    p = shardsim.plan(sc, "row_wise")
    assert p.planner == "row_wise" and p.fits and p.shards
    own = shardsim.run(sc, planners="row_wise")[0]
    again = shardsim.simulate(sc, p)[0]
    assert again.planner == "row_wise"
    assert again.iteration_time_s == own.iteration_time_s
    path = tmp_path / "p.json"
    p.to_file(path)
    with pytest.raises(shardsim.InputError, match="force=True"):
        p.to_file(path)
    assert shardsim.Plan.from_file(path).tables == p.tables


def test_a_bad_plan_is_an_input_error(root):
    sc = shardsim.Scenario.from_yaml(str(root / "scenarios/default.yaml"))
    tables = shardsim.plan(sc, "table_wise").tables
    first = next(iter(tables))
    tables[first] = [{"gpu": 99}]
    with pytest.raises(shardsim.InputError, match="99"):
        shardsim.simulate(sc, shardsim.Plan.from_dict({"tables": tables}))


def test_sweep_gives_every_point(root):
    sc = shardsim.Scenario.from_yaml(str(root / "scenarios/default.yaml"))
    sc = sc.set("sweep", {"cluster.nodes": [1, 2]}).set("workload.iterations", 2)
    reports = shardsim.sweep(sc, planners="table_wise", jobs=2)
    assert [r.sweep_point for r in reports] == ["cluster.nodes=1", "cluster.nodes=2"]
    assert reports[0].num_gpus == 8 and reports[1].num_gpus == 16


def _long_scenario(root, iterations):
    sc = shardsim.Scenario.from_yaml(str(root / "scenarios/default.yaml"))
    return sc.set("workload.iterations", iterations).set("workload.trace.mode", "sampled")


def test_the_gil_is_released_while_simulating(root):
    sc = _long_scenario(root, 3)
    done = threading.Event()
    ticks = 0

    def work():
        shardsim.run(sc, planners="row_wise")
        done.set()

    t = threading.Thread(target=work)
    t.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.005)
    t.join()
    assert ticks > 20  # the main thread ran while the other simulated


def test_ctrl_c_stops_a_long_run(root):
    sc = _long_scenario(root, 100)  # about 20 s on 2 cores, uncancelled
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        shardsim.run(sc, planners=["row_wise", "table_wise", "data_parallel"])
    assert time.monotonic() - start < 5


def test_the_readme_example_runs(root):
    text = (root / "README.md").read_text()
    start = text.index("```python\n") + len("```python\n")
    code = text[start:text.index("```", start)]
    scope = {}
    exec(compile(code, "README.md", "exec"), scope)
    assert scope["best"].planner in ("torchrec", "hybrid", "neuroshard")
    assert scope["sharding"]["t0"].sharding_type in ("table_wise", "row_wise", "column_wise",
                                                      "table_row_wise", "data_parallel")


def test_size_finds_the_fewest_gpus(root):
    sc = shardsim.Scenario.from_yaml(str(root / "scenarios/default.yaml"))
    sc = sc.set("workload.iterations", 2).set("placement.planner", ["table_wise"])
    one = shardsim.run(sc.set("cluster.nodes", 1))[0].qps
    got = shardsim.size(sc, target_qps=one * 1.5, max_nodes=8)
    assert got["answer"]["nodes"] > 1 and got["answer"]["qps"] >= one * 1.5
    assert any(p["nodes"] == 1 and not p["passes"] for p in got["probes"])
    with pytest.raises(shardsim.InputError):
        shardsim.size(sc)


def test_collective_times_grow_with_size():
    pts = shardsim.collective("allreduce", "dgx-a100", nodes=2, sizes=[1 << 10, 1 << 30])
    assert pts[0]["time_s"] < pts[1]["time_s"] and pts[1]["busbw_Bps"] > 0
    with pytest.raises(shardsim.InputError, match="did you mean|one of"):
        shardsim.collective("allreduce_typo", "dgx-a100")
