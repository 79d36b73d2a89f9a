"""TorchRec's objects as plain data (docs/python.md, "TorchRec"), duck-typed.

Pure Python with no import of shardsim or TorchRec: shardsim.torchrec builds on it, and
scripts/torchrec_export.py loads this file by path inside a user's TorchRec environment. Every
function takes real TorchRec objects (EmbeddingBagConfig, ParameterConstraints, Topology,
ShardingPlan, ParameterSharding, ShardingOption) or plain dicts and lists of the same fields.
"""
from __future__ import annotations

import math

PLAN_FORMAT = "shardsim-torchrec-1"

SHARDING_TYPES = ("data_parallel", "table_wise", "column_wise", "table_column_wise", "row_wise",
                  "table_row_wise")
KERNELS = ("dense", "fused", "fused_uvm", "fused_uvm_caching")
# TorchRec's defaults where a field is unset (torchrec/distributed/planner/constants.py).
DEFAULT_POOLING_FACTOR = 1.0
DEFAULT_BATCH_SIZE = 512
GIB = 1024 ** 3


class ConversionError(ValueError):
    """A TorchRec object shardsim cannot take, naming the table (or object) and the field."""

    def __init__(self, where: str, field: str, problem: str, hint: str = ""):
        self.where, self.field, self.problem, self.hint = where, field, problem, hint
        super().__init__(f"{where}: {field}: {problem}" + (f" ({hint})" if hint else ""))


def _get(obj, *names, default=None):
    """The first of ``names`` that ``obj`` has, as an attribute or a key."""
    for n in names:
        if isinstance(obj, dict):
            if n in obj:
                return obj[n]
        elif hasattr(obj, n):
            return getattr(obj, n)
    return default


def _enum_name(v) -> str:
    """'table_wise' from a str, an Enum whose value or name is it, or 'ShardingType.TABLE_WISE'."""
    if v is None:
        return ""
    if hasattr(v, "value") and isinstance(v.value, str):
        v = v.value
    elif hasattr(v, "name") and not isinstance(v, str):
        v = v.name
    s = str(v)
    return s.split(".")[-1].lower()


def _number(where, field, v, integer=False, positive=True):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ConversionError(where, field, f"expected a finite number, found {v!r}")
    if integer and int(v) != v:
        raise ConversionError(where, field, f"expected a whole number, found {v!r}")
    if positive and v <= 0:
        raise ConversionError(where, field, f"expected a number > 0, found {v!r}")
    return int(v) if integer else float(v)


def tables_of(tables_or_ebc) -> list:
    """EmbeddingBagConfigs from a list of them, an EmbeddingBagCollection, or dicts."""
    if hasattr(tables_or_ebc, "embedding_bag_configs"):
        configs = tables_or_ebc.embedding_bag_configs
        return list(configs() if callable(configs) else configs)
    if isinstance(tables_or_ebc, dict) and "tables" in tables_or_ebc:
        return list(tables_or_ebc["tables"])
    return list(tables_or_ebc)


# ParameterConstraints fields shardsim takes; any other field set to a non-default value is an
# error naming it.
_CONSTRAINT_FIELDS = {"sharding_types", "compute_kernels", "pooling_factors", "num_poolings",
                      "feature_names"}
_CONSTRAINT_DEFAULTS = {"min_partition": None, "batch_sizes": None, "is_weighted": False,
                        "cache_params": None, "enforce_hbm": None, "stochastic_rounding": None,
                        "bounds_check_mode": None, "pooling_factors": None, "num_poolings": None,
                        "sharding_types": None, "compute_kernels": None, "feature_names": None,
                        "output_dtype": None, "device_group": None, "key_value_params": None}


def _constraint_fields(c) -> dict:
    if c is None:
        return {}
    if isinstance(c, dict):
        return dict(c)
    return {k: getattr(c, k) for k in dir(c) if not k.startswith("_") and not callable(getattr(c, k))}


def model_dict(tables, constraints=None, topology=None, batch_size=None, dense=None,
               optimizer="rowwise_adagrad", name="torchrec") -> dict:
    """The model as plain data (the format of tests/data/torchrec/models/*.json)."""
    constraints = dict(constraints or {})
    out_tables = []
    names = set()
    for i, t in enumerate(tables_of(tables)):
        tname = _get(t, "name", default=None)
        where = f"table '{tname}'" if tname else f"table {i}"
        if not tname:
            raise ConversionError(where, "name", "every table needs a name")
        if tname in names:
            raise ConversionError(where, "name", "two tables have this name")
        names.add(tname)
        rows = _number(where, "num_embeddings", _get(t, "num_embeddings", "rows"), integer=True)
        dim = _number(where, "embedding_dim", _get(t, "embedding_dim", "dim"), integer=True)
        features = list(_get(t, "feature_names", "features", default=None) or [])
        c = _constraint_fields(constraints.pop(tname, None))
        for field, value in c.items():
            if field in _CONSTRAINT_FIELDS or field not in _CONSTRAINT_DEFAULTS:
                continue
            if value != _CONSTRAINT_DEFAULTS[field]:
                raise ConversionError(where, f"ParameterConstraints.{field}",
                                      f"not supported by shardsim (set to {value!r})",
                                      "leave it unset; docs/python.md lists the fields taken")
        # Lookups per sample: the constraint's pooling factors over the table's features, else a
        # number given with the table (plain data), else TorchRec's default. EmbeddingBagConfig's
        # own `pooling` is the PoolingType (sum, mean), not a number.
        given = _get(t, "pooling", default=None)
        if c.get("pooling_factors"):
            pooling = sum(_number(where, "pooling_factors", p) for p in c["pooling_factors"])
        elif isinstance(given, (int, float)) and not isinstance(given, bool):
            pooling = _number(where, "pooling", given)
        else:
            pooling = DEFAULT_POOLING_FACTOR
        entry = {"name": tname, "rows": rows, "dim": dim, "pooling": pooling, "features": features}
        for key in ("sharding_types", "compute_kernels"):
            if c.get(key):
                entry[key] = [_enum_name(v) for v in c[key]]
                allowed = SHARDING_TYPES if key == "sharding_types" else KERNELS
                for v in entry[key]:
                    if v not in allowed:
                        raise ConversionError(where, f"ParameterConstraints.{key}",
                                              f"unknown value '{v}'",
                                              "one of " + ", ".join(allowed))
        out_tables.append(entry)
    if constraints:
        extra = sorted(constraints)[0]
        raise ConversionError(f"constraints['{extra}']", "name", "no table of that name",
                              "constraints are keyed by table name")
    if not out_tables:
        raise ConversionError("tables", "tables", "the model has no tables")
    return {"name": name, "batch_size": int(batch_size or _get(topology, "batch_size",
                                                               default=None) or DEFAULT_BATCH_SIZE),
            "optimizer": optimizer, "topology": topology_dict(topology),
            "dense_layers": dense_layers(dense), "tables": out_tables}


def topology_dict(topology) -> dict:
    """Topology(world_size, compute_device, hbm_cap, ddr_cap, local_world_size) as plain data."""
    if topology is None:
        raise ConversionError("topology", "topology", "a Topology is needed (world size, caps)",
                              "Topology(world_size=8, compute_device='cuda')")
    world = _number("topology", "world_size", _get(topology, "world_size"), integer=True)
    local = _get(topology, "local_world_size", default=None)
    local = world if local is None else _number("topology", "local_world_size", local, True)
    if world % local:
        raise ConversionError("topology", "local_world_size",
                              f"{local} does not divide the world size {world}")
    device = _enum_name(_get(topology, "compute_device", default="cuda")) or "cuda"
    if device != "cuda":
        raise ConversionError("topology", "compute_device", f"'{device}' is not simulated",
                              "shardsim simulates GPUs: compute_device='cuda'")
    out = {"world_size": world, "local_world_size": local, "compute_device": device}
    devices = _get(topology, "devices", default=None)
    hbm = _get(topology, "hbm_cap", "hbm_cap_bytes", default=None)
    ddr = _get(topology, "ddr_cap", "ddr_cap_bytes", default=None)
    if devices and hbm is None:  # a real Topology: per-device storage
        hbm = devices[0].storage.hbm
        ddr = devices[0].storage.ddr
    if _get(topology, "hbm_cap_gib", default=None) is not None:
        hbm = topology["hbm_cap_gib"] * GIB
    if _get(topology, "ddr_cap_gib", default=None) is not None:
        ddr = topology["ddr_cap_gib"] * GIB
    if hbm is not None:
        out["hbm_cap_gib"] = _number("topology", "hbm_cap", hbm) / GIB
    if ddr is not None:
        out["ddr_cap_gib"] = _number("topology", "ddr_cap", ddr, positive=False) / GIB
    return out


def dense_layers(dense) -> list:
    """[[in, out], ...] from such a list, or from {'bottom_mlp', 'top_mlp', 'dense_features'}."""
    if dense is None:
        return []
    if isinstance(dense, dict):
        return dense_from_mlps(dense)
    layers = [[int(a), int(b)] for a, b in dense]
    return layers


def dense_from_mlps(d: dict) -> list:
    n = int(d.get("dense_features", 13))
    layers = []
    for w in d.get("bottom_mlp", []):
        layers.append([n, int(w)])
        n = int(w)
    top_in = d.get("top_input")
    for w in d.get("top_mlp", []):
        layers.append([int(top_in) if top_in else -1, int(w)])
        top_in = w
    return layers


def mlps_of(layers: list, num_tables: int) -> dict:
    """The bottom and top MLP of DLRM from its layers: the bottom ends where the next layer's
    input is not the previous output (the interaction's output is)."""
    if not layers:
        return {"bottom_mlp": [512, 256, 128], "top_mlp": [1024, 1024, 512, 256, 1],
                "dense_features": 13}
    bottom = [layers[0][1]]
    k = 1
    while k < len(layers) and layers[k][0] == layers[k - 1][1]:
        bottom.append(layers[k][1])
        k += 1
    top = [b for _, b in layers[k:]]
    if not top:
        raise ConversionError("dense", "layers",
                              "no top MLP: every layer takes the previous layer's output",
                              "give dense={'bottom_mlp': [...], 'top_mlp': [...]}")
    return {"bottom_mlp": bottom, "top_mlp": top, "dense_features": layers[0][0]}


def scenario_dict(model: dict, preset="dgx-a100", torchrec_version="current", alpha=1.0,
                  iterations=4, warmup=1, seed=42) -> dict:
    """The scenario that simulates ``model`` (model_dict's output) with TorchRec's planner."""
    topo = model["topology"]
    local, world = topo["local_world_size"], topo["world_size"]
    overrides = {"gpus_per_node": local}
    if "hbm_cap_gib" in topo:
        overrides["gpu"] = {"hbm_capacity_GiB": topo["hbm_cap_gib"]}
    ddr = topo.get("ddr_cap_gib")
    if ddr:
        overrides["host"] = {"memory_GiB": ddr * local}
    tables = [{"name": t["name"], "rows": t["rows"], "dim": t["dim"], "pooling": t["pooling"],
               "alpha": alpha} for t in model["tables"]]
    options = {"torchrec_version": torchrec_version,
               "host_tables": "always" if ddr else "never",
               "batch_size": model["batch_size"]}
    types = {tuple(t["sharding_types"]) for t in model["tables"] if t.get("sharding_types")}
    if len(types) > 1:
        raise ConversionError("constraints", "ParameterConstraints.sharding_types",
                              "tables allow different sharding types; shardsim's torchrec "
                              "planner takes one list for all tables",
                              "give every table the same sharding_types")
    if types:
        options["sharding_types"] = list(types.pop())
    kernels = {k for t in model["tables"] for k in t.get("compute_kernels", [])}
    if kernels and not kernels & {"fused_uvm", "fused_uvm_caching"}:
        options["host_tables"] = "never"
    return {
        "name": model.get("name", "torchrec"),
        "cluster": {"preset": preset, "nodes": world // local, "overrides": overrides},
        "model": {"tables": tables, **mlps_of(model.get("dense_layers", []), len(tables)),
                  "optimizer": model.get("optimizer", "rowwise_adagrad")},
        "workload": {"batch_per_gpu": model["batch_size"], "iterations": iterations,
                     "warmup": warmup, "seed": seed},
        "placement": {"planner": ["torchrec"], "options": {"torchrec": options}},
    }


def _rank_of(placement, where):
    if isinstance(placement, int):
        return placement
    if hasattr(placement, "rank") and callable(placement.rank):
        return int(placement.rank())
    s = str(placement)
    if s.startswith("rank:"):
        return int(s.split("/")[0].split(":")[1])
    raise ConversionError(where, "placement", f"cannot read a rank from {s!r}",
                          "expected 'rank:R/cuda:D'")


def _shards_of(ps, where) -> list:
    spec = _get(ps, "sharding_spec", default=None)
    shards = _get(ps, "shards", default=None)
    if spec is not None:
        shards = _get(spec, "shards", default=spec)
    out = []
    for k, s in enumerate(shards or []):
        w = f"{where}, shard {k}"
        offset = _get(s, "shard_offsets", "offset")
        size = _get(s, "shard_sizes", "size")
        rank = _get(s, "rank", default=None)
        if rank is None:
            rank = _rank_of(_get(s, "placement"), w)
        if offset is None or size is None or len(offset) != 2 or len(size) != 2:
            raise ConversionError(w, "shard_offsets/shard_sizes", "expected [rows, columns] each")
        out.append({"rank": int(rank), "offset": [int(offset[0]), int(offset[1])],
                    "size": [int(size[0]), int(size[1])]})
    return out


def sharding_plan_dict(sharding_plan, module_path=None, world_size=None) -> dict:
    """A ShardingPlan (or {module: {table: ParameterSharding}}, {"ebc.table": ...},
    {table: ...}) as a plan document of format shardsim-torchrec-1."""
    plan = _get(sharding_plan, "plan", default=sharding_plan)
    if isinstance(plan, dict) and "parameter_sharding" in plan and "tables" in plan:
        plan = plan["tables"]  # tests/data/torchrec/outputs/*.json
    entries = {}
    for key, value in dict(plan).items():
        inner = _get(value, "sharding_type", default=None)
        if inner is None and hasattr(value, "items"):  # a module's {param: ParameterSharding}
            if module_path is not None and key != module_path:
                continue
            for pname, ps in value.items():
                entries[pname.split(".")[-1].removesuffix(".weight")] = ps
        else:
            entries[key.split(".")[-1]] = value
    tables = {}
    for name, ps in entries.items():
        where = f"table '{name}'"
        stype = _enum_name(_get(ps, "sharding_type"))
        kernel = _enum_name(_get(ps, "compute_kernel"))
        if stype not in SHARDING_TYPES:
            raise ConversionError(where, "sharding_type", f"unknown '{stype}'",
                                  "one of " + ", ".join(SHARDING_TYPES))
        if kernel not in KERNELS:
            raise ConversionError(where, "compute_kernel", f"unknown '{kernel}'",
                                  "one of " + ", ".join(KERNELS))
        ranks = _get(ps, "ranks", default=None)
        entry = {"sharding_type": stype, "compute_kernel": kernel}
        shards = _shards_of(ps, where)
        if ranks is None:
            ranks = [s["rank"] for s in shards]
        if stype == "data_parallel" and not ranks and world_size:
            ranks = list(range(world_size))
        entry["ranks"] = [int(r) for r in ranks]
        if stype != "data_parallel":
            entry["shards"] = shards
        tables[name] = entry
    doc = {"format": PLAN_FORMAT, "tables": tables}
    if world_size:
        doc["world_size"] = int(world_size)
    return doc


def sharding_options_dict(options, world_size=None) -> dict:
    """TorchRec's proposal, a list of ShardingOption (name, sharding_type, compute_kernel,
    shards[].rank / .offset / .size), as a plan document of format shardsim-torchrec-1."""
    tables = {}
    for o in options:
        name = _get(o, "name")
        where = f"sharding option of table '{name}'"
        shards = []
        for k, s in enumerate(_get(o, "shards", default=[]) or []):
            rank = _get(s, "rank", default=None)
            if rank is None:
                raise ConversionError(f"{where}, shard {k}", "rank",
                                      "the shard has no rank (the proposal is not partitioned)")
            shards.append({"rank": int(rank), "offset": [int(x) for x in _get(s, "offset")],
                           "size": [int(x) for x in _get(s, "size")]})
        tables[name] = {"sharding_type": _enum_name(_get(o, "sharding_type")),
                        "compute_kernel": _enum_name(_get(o, "compute_kernel")),
                        "ranks": [s["rank"] for s in shards], "shards": shards}
        if tables[name]["sharding_type"] == "data_parallel":
            del tables[name]["shards"]
    doc = {"format": PLAN_FORMAT, "tables": tables}
    if world_size:
        doc["world_size"] = int(world_size)
    return doc
