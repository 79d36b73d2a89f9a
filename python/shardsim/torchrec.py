"""TorchRec in and out (docs/python.md, "TorchRec").

Duck-typed: real TorchRec objects where TorchRec is installed, plain dicts and lists of the same
fields where it is not.

- ``from_torchrec(tables, constraints, topology, batch_size, dense, preset)`` -> Scenario
- ``plan_from_torchrec(sharding_plan, scenario)`` -> Plan (simulate it with shardsim.simulate)
- ``to_parameter_sharding(plan, scenario)`` -> {table: ParameterSharding}
- ``SimulatedPerfModel(scenario)``: TorchRec's PerfModel interface, ``rate(plan) -> float``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from . import Plan, Scenario, _as_scenario, simulate
from . import _torchrec_convert as _conv
from ._errors import InputError, UnsupportedPlanError

__all__ = ["from_torchrec", "model_dict", "plan_from_torchrec", "to_parameter_sharding",
           "to_sharding_plan", "SimulatedPerfModel", "ParameterSharding", "ShardMetadata",
           "ShardingSpec"]


def _input_error(e: _conv.ConversionError) -> InputError:
    return InputError(str(e), file="<torchrec>", key=f"{e.where}: {e.field}", problem=e.problem,
                      hint=e.hint)


def model_dict(tables, constraints: Mapping[str, Any] | None = None, topology=None,
               batch_size: int | None = None, dense=None, optimizer: str = "rowwise_adagrad",
               name: str = "torchrec") -> dict:
    """The model as plain data: tables (rows, dim, pooling, features, allowed sharding types
    and kernels), topology (world, local world, HBM and DDR caps), batch and dense layers."""
    try:
        return _conv.model_dict(tables, constraints, topology, batch_size, dense, optimizer, name)
    except _conv.ConversionError as e:
        raise _input_error(e) from None


def from_torchrec(tables=None, constraints: Mapping[str, Any] | None = None, topology=None,
                  batch_size: int | None = None, dense=None, preset: str = "dgx-a100",
                  optimizer: str = "rowwise_adagrad", name: str = "torchrec",
                  torchrec_version: str = "current", alpha: float = 1.0, iterations: int = 4,
                  warmup: int = 1, seed: int = 42, ebc=None, model: dict | None = None
                  ) -> Scenario:
    """A Scenario of a TorchRec model, planned by shardsim's ``torchrec`` planner by default.

    ``tables``: EmbeddingBagConfigs (or an EmbeddingBagCollection as ``ebc``, or dicts with
    name, num_embeddings, embedding_dim, feature_names). ``constraints``: ParameterConstraints
    per table name (sharding_types, compute_kernels, pooling_factors). ``topology``: TorchRec's
    Topology (world_size, local_world_size, hbm_cap, ddr_cap per device). ``dense``: the dense
    layers as [[in, out], ...] or {bottom_mlp, top_mlp, dense_features}. ``preset``: the
    hardware preset whose links and GPUs are simulated (GPUs per node and the caps come from
    the topology). ``alpha``: the Zipf exponent of every table's accesses (TorchRec has none;
    a GUESS to set from your data). ``model``: model_dict's output instead of the above.
    """
    if model is None:
        model = model_dict(ebc if ebc is not None else tables, constraints, topology, batch_size,
                           dense, optimizer, name)
    try:
        d = _conv.scenario_dict(model, preset, torchrec_version, alpha, iterations, warmup, seed)
    except _conv.ConversionError as e:
        raise _input_error(e) from None
    return Scenario.from_dict(d, name=f"<torchrec model {model.get('name', name)}>")


def plan_from_torchrec(sharding_plan, scenario, module_path: str | None = None,
                       name: str = "torchrec-plan") -> Plan:
    """TorchRec's ShardingPlan (or {module: {table: ParameterSharding}}, or the plain-data
    ``tables`` of tests/data/torchrec/outputs) as a shardsim Plan, checked against the
    scenario: every table once, ranks in the world, shards covering each table exactly once
    (an InputError names the table and shard)."""
    sc = _as_scenario(scenario)
    try:
        doc = _conv.sharding_plan_dict(sharding_plan, module_path, _world(sc))
    except _conv.ConversionError as e:
        raise _input_error(e) from None
    text = sc._loaded.torchrec_to_plan(json.dumps(doc), name)
    return Plan(json.loads(text))


def _world(sc: Scenario) -> int:
    return int(sc.summary()["cluster"]["num_gpus"])


@dataclass
class ShardMetadata:
    """TorchRec's ShardMetadata: offsets and sizes as [rows, columns], and the placement."""
    shard_offsets: list
    shard_sizes: list
    placement: str


@dataclass
class ShardingSpec:
    """TorchRec's EnumerableShardingSpec: the shards."""
    shards: list = field(default_factory=list)


@dataclass
class ParameterSharding:
    """TorchRec's ParameterSharding, where TorchRec is not installed: the same fields."""
    sharding_type: str
    compute_kernel: str
    ranks: list
    sharding_spec: ShardingSpec | None = None


def _torchrec_json(plan: Plan, sc: Scenario) -> dict:
    try:
        return json.loads(sc._loaded.plan_to_torchrec(plan.to_json(), plan.planner or "plan"))
    except InputError as e:
        if "cannot express" in str(e):
            raise UnsupportedPlanError(e.problem) from None
        raise


def to_parameter_sharding(plan: Plan, scenario, local_world_size: int | None = None,
                          use_torchrec: bool | None = None) -> dict:
    """Every table's ParameterSharding (sharding_type, compute_kernel, ranks, sharding_spec with
    ShardMetadata offsets/sizes and "rank:R/cuda:D" placements) in TorchRec's vocabulary.

    Real TorchRec objects when TorchRec is importable (``use_torchrec``: force or forbid),
    else the dataclasses of this module with the same fields. A plan TorchRec cannot express
    (OPER's hot rows, 2D groups, popularity-rank rows, row and column splits at once) raises
    UnsupportedPlanError with the table and the reason: nothing is dropped silently.
    """
    sc = _as_scenario(scenario)
    doc = _torchrec_json(plan, sc)
    local = local_world_size or doc["local_world_size"]
    make = _torchrec_classes() if use_torchrec is not False else None
    if use_torchrec and make is None:
        raise ImportError("torchrec is not importable here")
    out = {}
    for table, e in doc["tables"].items():
        shards = [(s["offset"], s["size"], f"rank:{s['rank']}/cuda:{s['rank'] % local}")
                  for s in e.get("shards", [])]
        if make is not None:
            out[table] = make(e, shards)
        else:
            spec = ShardingSpec([ShardMetadata(list(o), list(z), p) for o, z, p in shards]) \
                if shards else None
            out[table] = ParameterSharding(e["sharding_type"], e["compute_kernel"],
                                           list(e["ranks"]), spec)
    return out


def _torchrec_classes():
    try:
        from torch.distributed._shard.sharding_spec import EnumerableShardingSpec
        from torch.distributed._shard.metadata import ShardMetadata as TorchShardMetadata
        from torchrec.distributed.types import ParameterSharding as TorchParameterSharding
    except Exception:  # TorchRec (or torch) is not installed
        return None

    def make(e, shards):
        spec = EnumerableShardingSpec([TorchShardMetadata(shard_offsets=list(o),
                                                          shard_sizes=list(z), placement=p)
                                       for o, z, p in shards]) if shards else None
        return TorchParameterSharding(sharding_type=e["sharding_type"],
                                      compute_kernel=e["compute_kernel"], ranks=list(e["ranks"]),
                                      sharding_spec=spec)
    return make


def to_sharding_plan(plan: Plan, scenario, module_path: str = "ebc", **kwargs):
    """A ShardingPlan ({module_path: {table: ParameterSharding}}) to hand to TorchRec's
    DistributedModelParallel; TorchRec's own ShardingPlan class when it is importable."""
    per_table = to_parameter_sharding(plan, scenario, **kwargs)
    try:
        from torchrec.distributed.types import EmbeddingModuleShardingPlan, ShardingPlan
    except Exception:
        return {module_path: per_table}
    return ShardingPlan({module_path: EmbeddingModuleShardingPlan(per_table)})


class SimulatedPerfModel:
    """TorchRec's PerfModel, rated by simulation: ``rate(plan)`` simulates a proposal (a list
    of ShardingOption, partitioned: every shard has a rank) on the scenario and returns its mean
    iteration time in milliseconds, lower is better (float('inf') when it does not fit).

    Hand it to TorchRec's planner as ``EmbeddingShardingPlanner(..., performance_model=
    SimulatedPerfModel(scenario))`` to rank proposals by simulated iteration time instead of
    the sum of per-shard estimates.
    """

    def __init__(self, scenario, metric: str = "iteration_time_mean_s"):
        self.scenario = _as_scenario(scenario)
        if metric not in ("iteration_time_mean_s", "iteration_time_p99_s"):
            raise InputError(f"metric: expected iteration_time_mean_s or iteration_time_p99_s, "
                             f"found {metric!r}", key="metric")
        self.metric = metric
        self.rated = 0

    def rate(self, plan: Sequence[Any]) -> float:
        try:
            doc = _conv.sharding_options_dict(plan)
        except _conv.ConversionError as e:
            raise _input_error(e) from None
        text = self.scenario._loaded.torchrec_to_plan(json.dumps(doc), "proposal")
        report = simulate(self.scenario, Plan(json.loads(text)), names=["proposal"])[0]
        self.rated += 1
        value = getattr(report, self.metric)
        return float("inf") if value is None else value * 1e3
