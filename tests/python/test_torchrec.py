"""TorchRec in and out (docs/python.md, "TorchRec"): import, export, parity with the real
TorchRec v0.3.2 planner's plans (tests/data/torchrec/), and the PerfModel adapter."""
import enum
import json
from types import SimpleNamespace

import pytest

import shardsim
from shardsim import torchrec as tr


def load(root, kind, name):
    suffix = ".torchrec.json" if kind == "outputs" else ".json"
    return json.loads((root / "tests/data/torchrec" / (name + suffix)).read_text())


MODELS = ["a_criteo26", "b_200t16g"]


def scenario_of(model, version="v0_3_2"):
    return tr.from_torchrec(model=tr.model_dict(
        model["tables"], topology=model["topology"], batch_size=model["batch_size"],
        dense=model["dense_layers"], optimizer=model["optimizer"], name=model["name"]),
        torchrec_version=version)


@pytest.mark.parametrize("name", MODELS)
def test_from_torchrec_gives_the_model_the_planner_plans(root, name):
    model = load(root, "models", name)
    sc = scenario_of(model)
    s = sc.summary()
    assert s["cluster"]["num_gpus"] == model["topology"]["world_size"]
    assert s["cluster"]["gpus_per_node"] == model["topology"]["local_world_size"]
    assert s["tables"] == len(model["tables"])


@pytest.mark.parametrize("name", MODELS)
def test_v0_3_2_plans_as_torchrec_v0_3_2(root, name):
    model, want = load(root, "models", name), load(root, "outputs", name)
    sc = scenario_of(model, "v0_3_2")
    got = tr.to_parameter_sharding(shardsim.plan(sc, "torchrec"), sc, use_torchrec=False)
    same_ranks = 0
    for table, w in want["tables"].items():
        g = got[table]
        assert (g.sharding_type, g.compute_kernel) == (w["sharding_type"], w["compute_kernel"]), \
            table
        same_ranks += sorted(g.ranks) == sorted(w["ranks"])
    assert same_ranks >= 0.95 * len(want["tables"])


@pytest.mark.parametrize("name", MODELS)
def test_torchrecs_own_plan_is_simulated_next_to_shardsims(root, name):
    model, want = load(root, "models", name), load(root, "outputs", name)
    sc = scenario_of(model).set("workload.iterations", 2).set("placement.planner",
                                                              ["torchrec", "table_wise"])
    theirs = tr.plan_from_torchrec(want, sc)
    reports = shardsim.run(sc) + shardsim.simulate(sc, theirs, names=["torchrec-v0.3.2"])
    assert [r.planner for r in reports] == ["torchrec", "table_wise", "torchrec-v0.3.2"]
    assert reports[-1].fits_in_memory and reports[-1].qps > 0
    text = shardsim.text(reports)
    assert "torchrec-v0.3.2" in text.split("brief:")[1].split("\n\n")[0]


@pytest.mark.parametrize("planner", ["table_wise", "row_wise", "column_wise", "table_row_wise",
                                     "data_parallel", "hybrid", "neuroshard", "torchrec"])
def test_export_then_import_gives_the_same_plan(root, planner):
    sc = shardsim.Scenario.from_yaml(str(root / "scenarios/default.yaml"))
    p = shardsim.plan(sc, planner)
    per_table = tr.to_parameter_sharding(p, sc, use_torchrec=False)
    back = tr.plan_from_torchrec({"ebc": per_table}, sc)
    norm = lambda plan: {t: sorted(json.dumps(s, sort_keys=True) for s in shards)
                         for t, shards in plan.tables.items()}
    assert norm(back) == norm(p)


@pytest.mark.parametrize("planner", ["oper", "two_d"])
def test_plans_torchrec_cannot_express_are_refused_with_the_reason(root, planner):
    sc = shardsim.Scenario.from_yaml(str(root / "scenarios/default.yaml"))
    if planner == "two_d":
        sc = sc.set("placement.options", {"two_d": {"groups": 2}})
    p = shardsim.plan(sc, planner)
    with pytest.raises(shardsim.UnsupportedPlanError, match="cannot express table"):
        tr.to_parameter_sharding(p, sc, use_torchrec=False)


def small(root):
    return scenario_of(load(root, "models", "a_criteo26"))


def test_bad_torchrec_plans_name_the_table_and_shard(root):
    want = load(root, "outputs", "a_criteo26")
    sc = small(root)
    bad = json.loads(json.dumps(want["tables"]))
    bad["C1"]["shards"][0]["rank"] = 99
    with pytest.raises(shardsim.InputError, match="rank 99"):
        tr.plan_from_torchrec(bad, sc)
    bad = json.loads(json.dumps(want["tables"]))
    del bad["C3"]
    with pytest.raises(shardsim.InputError, match="'C3'.*not in the plan"):
        tr.plan_from_torchrec(bad, sc)
    bad = json.loads(json.dumps(want["tables"]))
    s = bad["C1"]["shards"][0]
    bad["C1"]["shards"].append(dict(s))
    with pytest.raises(shardsim.InputError, match="overlaps"):
        tr.plan_from_torchrec(bad, sc)


class Kind(enum.Enum):  # as TorchRec's ShardingType / EmbeddingComputeKernel / PoolingType
    TABLE_WISE = "table_wise"
    FUSED = "fused"
    SUM = "SUM"


def test_duck_typed_objects_and_unsupported_fields(root):
    tables = [SimpleNamespace(name=f"t{i}", num_embeddings=1000 * (i + 1), embedding_dim=16,
                              feature_names=[f"f{i}"], pooling=Kind.SUM) for i in range(4)]
    topo = SimpleNamespace(world_size=8, local_world_size=8, compute_device="cuda",
                           hbm_cap=40 * 2**30, ddr_cap=128 * 2**30)
    constraints = {"t0": SimpleNamespace(sharding_types=[Kind.TABLE_WISE], compute_kernels=None,
                                         pooling_factors=[3.0, 1.0], min_partition=None)}
    m = tr.model_dict(tables, constraints, topo, batch_size=256)
    assert m["tables"][0]["pooling"] == 4.0 and m["tables"][1]["pooling"] == 1.0
    assert m["tables"][0]["sharding_types"] == ["table_wise"]
    sc = tr.from_torchrec(tables, constraints, topo, batch_size=256)
    assert sc.summary()["cluster"]["num_gpus"] == 8
    with pytest.raises(shardsim.InputError, match="table 't1'.*min_partition"):
        tr.model_dict(tables, {"t1": SimpleNamespace(min_partition=8)}, topo)
    with pytest.raises(shardsim.InputError, match="local_world_size"):
        tr.model_dict(tables, None, SimpleNamespace(world_size=8, local_world_size=3))


def test_perf_model_rates_proposals_by_simulation(root):
    sc = small(root).set("workload.batch_per_gpu", 65536)  # past the host-bound batch
    names = [t["name"] for t in load(root, "models", "a_criteo26")["tables"]]
    rows = {t["name"]: t["rows"] for t in load(root, "models", "a_criteo26")["tables"]}

    def option(name, rank):
        return SimpleNamespace(name=name, sharding_type=Kind.TABLE_WISE, compute_kernel="fused",
                               shards=[SimpleNamespace(rank=rank, offset=[0, 0],
                                                       size=[rows[name], 128])])
    spread = [option(n, i % 8) for i, n in enumerate(names)]
    piled = [option(n, 0) for n in names]
    model = tr.SimulatedPerfModel(sc)
    a, b = model.rate(spread), model.rate(piled)
    assert 0 < a < b and model.rated == 2
