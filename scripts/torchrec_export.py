#!/usr/bin/env python3
"""Exports a TorchRec model and its ShardingPlan for shardsim's command line (docs/python.md).

Run it inside your own TorchRec environment; it needs neither shardsim's Python module nor a
build, only this checkout's python/shardsim/_torchrec_convert.py (loaded by path).

    python3 scripts/torchrec_export.py SPEC.py OUT.json [--scenario OUT.scenario.json]
            [--preset dgx-a100] [--torchrec-version current|v0_3_2] [--force]

SPEC.py is Python that defines, as TorchRec objects or plain dicts and lists:
    tables       EmbeddingBagConfigs (or `ebc`, an EmbeddingBagCollection)
    topology     Topology(world_size=..., local_world_size=..., compute_device="cuda", ...)
    plan         the ShardingPlan your planner produced (optional)
    constraints  {table name: ParameterConstraints} (optional)
    batch_size   per rank (optional, default 512)
    dense        [[in, out], ...] or {"bottom_mlp": [...], "top_mlp": [...]} (optional)

OUT.json (format shardsim-torchrec-1) holds the model and the plan; `placement: {file: OUT.json}`
in a scenario simulates the plan. --scenario also writes that scenario (shardsim's torchrec
planner beside your plan): `shardsim run OUT.scenario.json`.
Exit codes: 0 written, 1 a SPEC that cannot be converted (the table and field are named),
2 bad arguments or an existing output without --force.
"""
import argparse
import importlib.util
import json
import os
import pathlib
import runpy
import sys

HERE = pathlib.Path(__file__).resolve().parent
CONVERT = HERE.parent / "python" / "shardsim" / "_torchrec_convert.py"


def load_convert():
    spec = importlib.util.spec_from_file_location("shardsim_torchrec_convert", CONVERT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write(path: str, doc: dict, force: bool) -> None:
    if os.path.exists(path) and not force:
        print(f"torchrec_export: {path} exists; pass --force to overwrite it", file=sys.stderr)
        sys.exit(2)
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec", help="Python file defining tables, topology, plan, ...")
    ap.add_argument("out", help="the model and plan JSON to write")
    ap.add_argument("--scenario", help="also write a scenario (JSON) that simulates the plan")
    ap.add_argument("--preset", default="dgx-a100", help="hardware preset (default dgx-a100)")
    ap.add_argument("--torchrec-version", default="current", choices=["current", "v0_3_2"])
    ap.add_argument("--force", action="store_true", help="overwrite existing outputs")
    args = ap.parse_args(argv)

    conv = load_convert()
    ns = runpy.run_path(args.spec)
    tables = ns.get("ebc", ns.get("tables"))
    if tables is None:
        print(f"torchrec_export: {args.spec} defines neither `tables` nor `ebc`", file=sys.stderr)
        return 2
    try:
        model = conv.model_dict(tables, ns.get("constraints"), ns.get("topology"),
                                ns.get("batch_size"), ns.get("dense"),
                                ns.get("optimizer", "rowwise_adagrad"),
                                ns.get("name", pathlib.Path(args.spec).stem))
        doc = {"format": conv.PLAN_FORMAT, "model": model,
               "world_size": model["topology"]["world_size"],
               "local_world_size": model["topology"]["local_world_size"], "tables": {}}
        if ns.get("plan") is not None:
            planned = conv.sharding_plan_dict(ns["plan"], None, model["topology"]["world_size"])
            doc["tables"] = planned["tables"]
        scenario = conv.scenario_dict(model, args.preset, args.torchrec_version)
    except conv.ConversionError as e:
        print(f"torchrec_export: {e}", file=sys.stderr)
        return 1
    write(args.out, doc, args.force)
    print(f"wrote {args.out}: {len(model['tables'])} tables"
          + (f", the plan of {len(doc['tables'])}" if doc["tables"] else ", no plan"))
    if args.scenario:
        if doc["tables"]:
            rel = os.path.relpath(os.path.abspath(args.out),
                                  os.path.dirname(os.path.abspath(args.scenario)))
            scenario["placement"]["file"] = rel
        write(args.scenario, scenario, args.force)
        print(f"wrote {args.scenario}: run it with `shardsim run {args.scenario}`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
