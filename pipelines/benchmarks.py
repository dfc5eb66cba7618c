"""Frozen, versioned benchmarks: the study's definition under a name, so that a number names what it measured.

A benchmark (``chess-v1``, ``kinarow-v1``, ``jump-v1``) is a study profile frozen as a file of this package,
``pipelines/frozen/{name}.yaml``: every key of a ``params.yaml`` that decides a result (the training task
distribution, the held-out targets, the budgets, the network, the seeds and replicates, the evaluation and the
rating) less the execution keys (:data:`EXECUTION_KEYS`: where and how wide it runs). Its hash
(:attr:`Benchmark.hash`, a SHA-256 of the definition as canonical JSON) is what a row (``pipelines.rows``) claims; a
test pins every frozen hash, so a changed definition is a new version with a new name, never an edit.

A study names the benchmark it runs with the ``benchmark`` key of its ``params.yaml`` (``null``: its own
definition). Then only the execution keys may differ, and learners may be added (a learner the benchmark does not
have: its ``learners`` section and its name in ``adapt.starts``): :func:`check_study` refuses any other difference in
one line naming the key, before any work starts. :func:`matching` finds the benchmark a study's definition equals when
it names none (the committed studies were frozen as they stood).

    python -m pipelines benchmarks           # list them
    python -m pipelines benchmarks NAME      # describe one: its tasks, targets, budgets, evaluation, hash, rows
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from pipelines.study_config import SECTIONS, flatten

__all__ = [
    "EXECUTION_KEYS",
    "FROZEN",
    "Benchmark",
    "BenchmarkError",
    "benchmarks",
    "check_study",
    "definition",
    "definition_hash",
    "describe",
    "get_benchmark",
    "matching",
]

FROZEN = Path(__file__).resolve().parent / "frozen"
"""The frozen benchmarks (``{name}.yaml``) and their official rows (``rows/{name}.json``), shipped with the package."""
EXECUTION_KEYS = ("benchmark", "device", "runner")
"""The top-level keys of a ``params.yaml`` that never change a result on one kind of machine and may differ from the
benchmark a study names: the name itself, the device, the task runner (its kind, workers and Dask address)."""
_NAME = re.compile(r"^(?P<base>[a-z0-9_]+)-v(?P<version>\d+)$")


class BenchmarkError(ValueError):
    """An unknown benchmark or version; the message is one line."""


@dataclass(frozen=True)
class Benchmark:
    """One frozen benchmark: its name (``kinarow-v1``), game family, what it asks, where it was frozen from and the
    definition (a ``params.yaml`` less :data:`EXECUTION_KEYS`)."""

    name: str
    family: str
    description: str
    frozen_from: str
    params: dict[str, Any] = field(repr=False)

    @property
    def hash(self) -> str:
        return definition_hash(self.params)

    @property
    def learners(self) -> list[str]:
        return [name for name in self.params["learners"] if name != "budget"]

    def study_params(self, *, device: str = "cpu", runner: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """A complete ``params.yaml`` mapping that runs this benchmark: the definition with ``benchmark`` naming it
        and the execution keys given (a process pool of 2 workers unless ``runner`` says otherwise)."""
        execution = {"kind": "process", "workers": 2, "address": None, **(runner or {})}
        given = {**copy.deepcopy(self.params), "benchmark": self.name, "device": device, "runner": execution}
        return {key: given[key] for key in SECTIONS}  # in a params file's order


def definition(params: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of a parsed ``params.yaml`` that decide a result: all but :data:`EXECUTION_KEYS`."""
    return {key: value for key, value in params.items() if key not in EXECUTION_KEYS}


def definition_hash(params: Mapping[str, Any]) -> str:
    """A SHA-256 of :func:`definition` of ``params`` as canonical JSON (sorted keys): the same definition, written in
    any order or layout, has one hash."""
    text = json.dumps(definition(params), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@cache
def benchmarks() -> dict[str, Benchmark]:
    """Every frozen benchmark, by name."""
    found = {}
    for path in sorted(FROZEN.glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        found[path.stem] = Benchmark(path.stem, data["family"], data["description"], data["frozen_from"],
                                     data["params"])  # fmt: skip
    return found


def get_benchmark(name: str) -> Benchmark:
    """The benchmark ``name``; :class:`BenchmarkError` naming the known ones (or the known versions) if there is
    none."""
    known = benchmarks()
    if name in known:
        return known[name]
    parts = _NAME.match(name)
    versions = sorted(n for n in known if parts and n.startswith(f"{parts['base']}-v"))
    if versions:
        raise BenchmarkError(f"no benchmark {name!r}: {parts['base'] if parts else name} has {', '.join(versions)}")
    raise BenchmarkError(f"no benchmark {name!r} (the benchmarks: {', '.join(known)})")


def check_study(params: Mapping[str, Any], benchmark: Benchmark) -> tuple[str, str] | None:
    """The first key of ``params`` (a parsed ``params.yaml``) that contradicts ``benchmark``, and what is wrong with
    it, or ``None`` if the study runs the benchmark: the same definition but for the execution keys and added
    learners (their ``learners`` sections and their names in ``adapt.starts``)."""
    ours = definition(params)
    known = set(benchmark.learners)
    added = [n for n in ours.get("learners", {}) if n != "budget" and n not in known]
    if added:
        ours = {**ours, "learners": {k: v for k, v in ours["learners"].items() if k not in added}}
        adapt = dict(ours.get("adapt", {}))
        adapt["starts"] = [s for s in adapt.get("starts", []) if s not in added]
        ours["adapt"] = adapt
    mine, theirs = flatten(ours), flatten(benchmark.params)
    allowed = "only device, runner and added learners may differ"
    for key in [*theirs, *(k for k in mine if k not in theirs)]:
        if key not in mine:
            return key, f"is missing: benchmark {benchmark.name} has {theirs[key]!r} ({allowed})"
        if key not in theirs:
            return key, f"is not in benchmark {benchmark.name} ({allowed})"
        if mine[key] != theirs[key]:
            return key, f"is {mine[key]!r}: benchmark {benchmark.name} has {theirs[key]!r} ({allowed})"
    return None


def matching(params: Mapping[str, Any]) -> Benchmark | None:
    """The benchmark ``params`` names (``benchmark``), or else the one whose definition it equals, if any."""
    named = params.get("benchmark")
    if named:
        return get_benchmark(str(named))
    digest = definition_hash(params)
    return next((b for b in benchmarks().values() if b.hash == digest), None)


def describe(benchmark: Benchmark) -> list[str]:
    """What ``benchmark`` decides, as lines for the command line."""
    p = benchmark.params
    meta, adapt, evaluate, rate = p["meta"], p["adapt"], p["evaluate"], p["rate"]
    tasks = meta["train_variants"]
    distribution = (
        f"drawn from {', '.join(tasks['variants'])} less {', '.join(tasks.get('exclude') or []) or 'none'} "
        f"({tasks.get('draw') or 'all'} drawn)"
        if isinstance(tasks, dict)
        else ", ".join(tasks)
    )
    network = p["network"]
    return [
        f"{benchmark.name}: {benchmark.description}",
        f"  family:      {benchmark.family}",
        f"  training:    {distribution}; {meta['tasks']} tasks a meta-generation",
        f"  targets:     {', '.join(adapt['targets'])} (held out: "
        f"{', '.join(t for t in adapt['targets'] if isinstance(tasks, dict) or t not in tasks) or 'none'})",
        f"  learners:    {', '.join(benchmark.learners)}, {p['learners']['budget']} self-play games each; experts "
        f"{', '.join(p['expert']['variants'])} ({p['expert']['generations']} x {p['expert']['games']} games)",
        f"  adaptation:  budgets {', '.join(str(b) for b in adapt['budgets'])} self-play games; starts "
        f"{', '.join(adapt['starts'])}",
        f"  search:      {p['search']['simulations']} simulations in self-play, {evaluate['search']['simulations']} in "
        f"the evaluation",
        f"  network:     {network['blocks']} blocks x {network['filters']} filters",
        f"  seeds:       seed {p['seed']}, replicates {', '.join(str(r) for r in p['replicates'])}",
        f"  evaluation:  {evaluate['games']} games a cell against {', '.join(evaluate['opponents'])}; Elo with "
        f"{rate['anchor']} = 0 on the ladder {', '.join(rate['anchors'])}",
        f"  frozen from: {benchmark.frozen_from}",
        f"  hash:        {benchmark.hash}",
    ]
