"""shardsim: how should these embedding tables be sharded, and what will it cost?

The Python door to shardsim's C++ library (docs/python.md). Everything runs in-process: no
subprocess, no temporary files. A ten-line tour::

    import shardsim
    sc = shardsim.Scenario.from_yaml("scenarios/default.yaml")
    for r in shardsim.run(sc, planners=["table_wise", "row_wise"]):
        print(r.planner, r.qps, r.fits_in_memory)
    best = shardsim.plan(sc, "table_wise")
    best.to_file("plan.yaml")
"""
from __future__ import annotations

import copy
import difflib
import json
import math
import os
from typing import Any, Iterable, Mapping, Sequence

from . import _shardsim as _native
from ._errors import DoesNotFitError, InputError, ShardsimError, UnsupportedPlanError

__all__ = [
    "Scenario", "Report", "Plan", "run", "sweep", "plan", "simulate", "size", "collective",
    "presets", "text", "csv",
    "report_fields", "report_json_schema", "set_verbosity",
    "ShardsimError", "InputError", "DoesNotFitError", "UnsupportedPlanError",
]

__version__ = _native.version
set_verbosity = _native.set_verbosity


def _yaml_value(value: Any, key: str) -> str:
    """A Python value as the YAML text of an override (JSON is YAML); non-finite numbers refused."""
    _check_finite(value, key)
    if isinstance(value, str):
        return json.dumps(value)
    return json.dumps(value, allow_nan=False)


def _check_finite(value: Any, key: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{key}: {value} is not a finite number", key=key,
                         problem=f"{value} is not a finite number",
                         hint="give a finite number")
    if isinstance(value, Mapping):
        for k, v in value.items():
            _check_finite(v, f"{key}.{k}" if key else str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_finite(v, f"{key}[{i}]")


class Scenario:
    """A validated scenario: a document (YAML text or file) and the overrides set on it.

    Immutable: ``set`` returns a new Scenario. Every constructor validates as the command line
    does, and raises InputError (file, line, key, hint) for a bad one.
    """

    def __init__(self, text: str | None, file: str, overrides: Sequence[tuple[str, str]] = ()):
        self._text = text
        self._file = file
        self._overrides = tuple(overrides)
        self._loaded = _native.NativeScenario(self._text, self._file, list(self._overrides))
        self._summary = None

    @classmethod
    def from_yaml(cls, path_or_text: str | os.PathLike) -> "Scenario":
        """A scenario file, or YAML text (anything that is not the path of an existing file)."""
        s = os.fspath(path_or_text)
        if "\n" not in s and os.path.isfile(s):
            return cls(None, s)
        if "\n" not in s and (s.endswith((".yaml", ".yml")) and ":" not in s):
            raise InputError(f"{s}: no such scenario file", file=s,
                             problem="no such scenario file",
                             hint="check the path; YAML text must hold a mapping")
        return cls(s, "<yaml>")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], name: str = "<dict>") -> "Scenario":
        """A scenario from a dict of the scenario file's keys (docs/scenario.md)."""
        if not isinstance(d, Mapping):
            raise InputError(f"{name}: expected a mapping of scenario keys, found "
                             f"{type(d).__name__}", file=name)
        _check_finite(dict(d), "")
        return cls(json.dumps(d, allow_nan=False), name)

    @classmethod
    def default(cls) -> "Scenario":
        """The built-in default scenario (scenarios/default.yaml)."""
        return cls(None, "")

    def set(self, key: str, value: Any) -> "Scenario":
        """A copy with ``key`` (a dotted path, as ``--set``) set to ``value``, validated."""
        if not isinstance(key, str) or not key:
            raise InputError("set: the key must be a non-empty dotted path", key=str(key),
                             hint="e.g. scenario.set('cluster.nodes', 4)")
        return Scenario(self._text, self._file, self._overrides + ((key, _yaml_value(value, key)),))

    @property
    def source(self) -> str:
        return self._file or "<built-in default>"

    @property
    def overrides(self) -> tuple[tuple[str, str], ...]:
        return self._overrides

    def summary(self) -> dict:
        """The model summary `shardsim validate` prints (docs/report.md), as a dict, with the
        cluster's size under ``cluster``."""
        if self._summary is None:
            self._summary = json.loads(self._loaded.summary_json())
        return copy.deepcopy(self._summary)

    def _args(self):
        return self._text, self._file, list(self._overrides)

    def __repr__(self) -> str:
        sets = "".join(f", {k}={v}" for k, v in self._overrides)
        return f"Scenario({self.source}{sets})"


def _metric_paths() -> dict[str, str]:
    return {f["metric"]: f["path"] for f in _native.report_fields() if f["metric"]}


_FIELDS = _native.report_fields()
_TOP_KEYS = sorted({f["path"].split(".")[0] for f in _FIELDS})
_METRICS = _metric_paths()


def report_fields() -> list[dict]:
    """Every report field: path, unit, section, description and the compare metric it feeds."""
    return copy.deepcopy(_FIELDS)


def report_json_schema() -> dict:
    """The report JSON's JSON Schema (`shardsim schema report`)."""
    return json.loads(_native.report_json_schema())


class Report:
    """One (scenario, planner, sweep point) result.

    Every report field is an attribute (``r.qps``, ``r.iteration_time_s["mean"]``), and so is
    every ``compare`` metric (``r.iteration_time_mean_s``, ``r.memory_max_bytes``). ``to_dict()``
    is the CLI's report JSON, written by the same code.
    """

    def __init__(self, native):
        self._native = native
        self._dict = None

    def _data(self) -> dict:
        if self._dict is None:
            self._dict = json.loads(self._native.json())
        return self._dict

    def to_dict(self) -> dict:
        """The report JSON as a dict (a fresh copy)."""
        return copy.deepcopy(self._data())

    def text(self) -> str:
        """The text report the CLI prints for this report."""
        return self._native.text()

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        d = self._data()
        if name in d:
            return d[name]
        if name in _METRICS:
            node = d
            for part in _METRICS[name].split("."):
                node = node.get(part) if isinstance(node, dict) else None
            return node
        if name in _TOP_KEYS:  # a field this report does not carry (e.g. no price given)
            return None
        close = difflib.get_close_matches(name, list(d) + list(_METRICS), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise AttributeError(f"a report has no field '{name}'{hint}")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(_TOP_KEYS) | set(_METRICS))

    def __repr__(self) -> str:
        d = self._data()
        it = (d.get("iteration_time_s") or {}).get("mean")
        timing = f", iteration {it * 1e3:.3f} ms, qps {d['qps']:,.0f}" if it else ""
        return (f"Report({d['scenario']} / {d['planner']}{timing}, "
                f"fits {d['fits_in_memory']})")


def _reports(natives) -> list[Report]:
    return [Report(n) for n in natives]


def text(reports: Sequence[Report]) -> str:
    """The text report of several reports, with the comparison table the CLI prints."""
    return _native.reports_text([r._native for r in reports])


def csv(reports: Sequence[Report]) -> str:
    """The summary CSV (one row per report)."""
    return _native.reports_csv([r._native for r in reports])


def _with_planners(scenario: Scenario, planners) -> Scenario:
    if planners is None:
        return scenario
    if isinstance(planners, str):
        planners = [planners]
    names = list(planners)
    if not names:
        raise InputError("planners: give at least one planner name", key="placement.planner")
    return scenario.set("placement.planner", names)


def run(scenario: Scenario, planners: Iterable[str] | str | None = None, jobs: int = 1,
        timings: bool = False) -> list[Report]:
    """Simulates the scenario with its planners (or ``planners``): one Report per planner.

    A sweep block is ignored, as by `shardsim run` (use ``sweep``). The GIL is released while it
    runs; Ctrl-C stops it (KeyboardInterrupt).
    """
    sc = _with_planners(_as_scenario(scenario), planners)
    return _reports(_native.run(*sc._args(), False, _jobs(jobs), bool(timings)))


def sweep(scenario: Scenario, planners: Iterable[str] | str | None = None, jobs: int = 1,
          timings: bool = False) -> list[Report]:
    """Every point of the scenario's sweep block, as `shardsim sweep`: reports in point order."""
    sc = _with_planners(_as_scenario(scenario), planners)
    return _reports(_native.run(*sc._args(), True, _jobs(jobs), bool(timings)))


def _jobs(jobs) -> int:
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise InputError(f"jobs: expected an integer >= 1, found {jobs!r}", key="jobs")
    return jobs


def _as_scenario(s) -> Scenario:
    if isinstance(s, Scenario):
        return s
    if isinstance(s, Mapping):
        return Scenario.from_dict(s)
    if isinstance(s, (str, os.PathLike)):
        return Scenario.from_yaml(s)
    raise InputError(f"expected a Scenario, a dict or a path, found {type(s).__name__}")


class Plan:
    """A placement: every table's shards (rows, columns, GPUs, storage), as a plan file holds.

    ``tables`` maps each table to its shards, each a dict with ``rows`` ([begin, end) or absent:
    all), ``cols`` (likewise), ``gpu`` or ``gpus`` (replicas), and optionally ``storage``.
    """

    def __init__(self, document: Mapping[str, Any], yaml_text: str | None = None,
                 fit_error: str = ""):
        self._doc = dict(document)
        self._yaml = yaml_text
        self.fit_error = fit_error

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Plan":
        doc = {"format": "shardsim-plan-1", **dict(d)}
        return cls(doc)

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> "Plan":
        """A plan file: JSON, or YAML (with PyYAML, python3-yaml) as `shardsim plan` writes them."""
        p = os.fspath(path)
        with open(p, encoding="utf-8") as f:
            text = f.read()
        try:
            return cls(json.loads(text))
        except json.JSONDecodeError:
            pass
        try:
            import yaml  # PyYAML: optional
        except ImportError:
            raise InputError(f"{p}: not JSON, and reading YAML needs PyYAML (python3-yaml)",
                             file=p, hint="write the plan as JSON: shardsim plan --out plan.json")
        return cls(yaml.safe_load(text), yaml_text=text)

    @property
    def planner(self) -> str:
        return self._doc.get("planner", "")

    @property
    def num_gpus(self) -> int:
        return self._doc.get("num_gpus", 0)

    @property
    def tables(self) -> dict[str, list[dict]]:
        return copy.deepcopy(self._doc.get("tables", {}))

    @property
    def fits(self) -> bool:
        return not self.fit_error

    @property
    def shards(self) -> list[dict]:
        """Every shard, with its table's name under ``table``."""
        return [{"table": t, **s} for t, shards in self.tables.items() for s in shards]

    def to_dict(self) -> dict:
        return copy.deepcopy(self._doc)

    def to_json(self) -> str:
        return json.dumps(self._doc, indent=2) + "\n"

    def _text(self) -> str:
        return self.to_json()

    def to_file(self, path: str | os.PathLike, force: bool = False) -> None:
        """Writes the plan (.json: JSON, otherwise YAML as shardsim writes it); an existing file is
        an InputError unless ``force``."""
        p = os.fspath(path)
        if os.path.exists(p) and not force:
            raise InputError(f"{p}: exists; pass force=True to overwrite it", file=p,
                             problem="the file exists", hint="pass force=True to overwrite it")
        text = self.to_json() if p.lower().endswith(".json") or self._yaml is None else self._yaml
        tmp = f"{p}.tmp.{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, p)

    def __repr__(self) -> str:
        n = sum(len(s) for s in self._doc.get("tables", {}).values())
        return f"Plan({self.planner or 'unnamed'}: {n} shards on {self.num_gpus} GPUs)"


def plan(scenario: Scenario, planner: str | None = None) -> Plan:
    """The plan ``planner`` (default: the scenario's first) makes for the scenario, as `run`
    would simulate it (the same planning path). A plan over a GPU's memory comes back with
    ``fit_error`` set; a planner that cannot place the tables raises DoesNotFitError."""
    sc = _as_scenario(scenario)
    name, plan_json, plan_yaml, fit_error = sc._loaded.plan(planner or "")
    return Plan(json.loads(plan_json), yaml_text=plan_yaml, fit_error=fit_error)


def simulate(scenario: Scenario, plans: Sequence[Plan] | Plan,
             names: Sequence[str] | None = None) -> list[Report]:
    """Simulates plans made elsewhere (a Plan, e.g. imported from TorchRec) on the scenario: one
    Report per plan, named by ``names`` (default: each plan's planner, or ``plan<i>``)."""
    sc = _as_scenario(scenario)
    if isinstance(plans, Plan):
        plans = [plans]
    plans = list(plans)
    if names is None:
        names = [p.planner or f"plan{i}" for i, p in enumerate(plans)]
    if len(names) != len(plans):
        raise InputError(f"simulate: {len(plans)} plans but {len(names)} names")
    texts = [p._text() for p in plans]
    return _reports(sc._loaded.run_plans(texts, list(names)))


def size(scenario: Scenario, target_qps: float | None = None,
         max_iteration_ms: float | None = None, presets: Sequence[str] | None = None,
         max_nodes: int = 128, jobs: int = 1, margin_pct: float | None = None) -> dict:
    """The fewest GPUs that meet the target, as `shardsim size`: a dict with ``answer``
    (preset, nodes, gpus, planner, qps; None when nothing meets it) and every ``probe`` made.
    ``margin_pct`` sizes for the target + that many percent (``size --margin``); None, as
    there: the measured median error of whole-iteration predictions (0 for none)."""
    sc = _as_scenario(scenario)
    if target_qps is None and max_iteration_ms is None:
        raise InputError("size: give target_qps or max_iteration_ms", key="target_qps",
                         hint="e.g. shardsim.size(sc, target_qps=1e7)")
    for name, v in (("target_qps", target_qps), ("max_iteration_ms", max_iteration_ms)):
        if v is not None and (not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0):
            raise InputError(f"{name}: expected a number > 0, found {v!r}", key=name)
    if margin_pct is not None and (not isinstance(margin_pct, (int, float)) or
                                   not math.isfinite(margin_pct) or margin_pct < 0):
        raise InputError(f"margin_pct: expected a percentage >= 0, found {margin_pct!r}",
                         key="margin_pct", hint="e.g. margin_pct=15 sizes for the target + 15%")
    return _native.size(*sc._args(), target_qps,
                        None if max_iteration_ms is None else max_iteration_ms / 1e3,
                        list(presets or []), int(max_nodes), _jobs(jobs),
                        None if margin_pct is None else float(margin_pct))


def collective(op: str, preset: str, nodes: int = 1,
               sizes: Iterable[float] = (8, 1 << 20, 1 << 30)) -> list[dict]:
    """The cost model's time of one collective (allreduce, allgather, reduce_scatter,
    alltoall, sendrecv) over a preset's cluster, per size in bytes: time_s, algbw_Bps, busbw_Bps
    as nccl-tests reports them (`shardsim collective`)."""
    return _native.collective(op, preset, int(nodes), [float(s) for s in sizes])


def presets() -> dict[str, str]:
    """The built-in hardware presets and what each describes (`shardsim hw show NAME`)."""
    return {name: _native.describe_preset(name) for name in _native.presets()}
