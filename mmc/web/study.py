"""What the web app reads from a study's project folder: the models under ``models/``, the game records under
``data/jobs/`` and the MLflow store ``mlflow.db`` (its experiment, runs and tags, and the model registry), by
reading the files directly: ``mmc`` never imports the study's tools (MLflow, Prefect), it opens the sqlite store
read-only. Every path a request names is looked up among the files found here; none is opened as given. Where
each file lies, and how a study and its MLflow experiment are named, is ``mmc.core.study_layout``'s to say.

A registered model (``joat@r0``: name and alias) is resolved through the registry: the alias names a version,
the version the run that logged it, and that run's tags (``mmc.stage``, ``variant``, ``replicate``, set by
``pipelines.tracking.stage_run``) the checkpoint the stage wrote under ``models/`` (``expert`` ->
``champion/r{R}/{variant}.pt``; ``learn`` (a learner's stage, its name the variant tag) ->
``starts/r{R}/{variant}.pt``). The registered artifact itself is a pickled ``torch.nn.Module``, which ``mmc`` never
unpickles (checkpoints load with ``weights_only=True``). With no such alias in the registry, ``NAME@rN`` falls back
to the same layout by name.

A family's study (``studies/gomoku`` of a project, ``pipelines.studies``) is served from its folder
(``mmc serve --project studies/gomoku``): its models and records are there, the MLflow store is the project's (the
nearest folder above that holds the DVC repository), its runs are those of its own experiment
(``meta-minichess-gomoku``) and its registered models carry its name (``gomoku-joat@r0``, asked for as ``joat@r0``).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmc.core.study_layout import (
    JOBS,
    MLFLOW_DB,
    MODELS,
    STATE_SUFFIX,
    champion_model,
    experiment_name,
    model_file,
    model_name,
    project_of,
    stage_model,
    start_model,
    study_name,
)
from mmc.evaluation.starts import EXPERT_PREFIX, model_label

__all__ = [
    "RECORD_SUFFIXES",
    "ModelError",
    "Run",
    "Study",
    "player_name",
    "self_play_prefix",
]

RECORD_SUFFIXES = (".pgn",)
"""Game record files (``mmc.play.records``) as the study writes them."""
_REGISTRY = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+)@(?P<alias>[A-Za-z0-9_-]+)$")
_REPLICATE = re.compile(r"^r(?P<replicate>\d+)$")
FLOW_RUN_TAG = "prefect_flow_run_id"
"""The tag ``pipelines.tracking.stage_run`` puts on a stage's MLflow run: the Prefect flow run that ran it."""
MAX_RECORD_FILES = 5000
"""The most record files listed (a study writes a few hundred)."""


class ModelError(ValueError):
    """A model name that is not a checkpoint under the project's ``models/`` folder."""


@dataclass(frozen=True)
class Study:
    """A study's folder: a project (the root of a study checkout) or a family study's folder in one; nothing in it
    needs to exist."""

    root: Path

    @property
    def project(self) -> Path:
        """The project the study belongs to (``mmc.core.study_layout.project_of``)."""
        return project_of(self.root)

    @property
    def name(self) -> str:
        """The study's name (``mmc.core.study_layout.study_name``)."""
        return study_name(self.root.resolve(), self.project)

    @property
    def prefix(self) -> str:
        """What the study puts before its registered models' names: nothing, or ``{family}-`` in a family study."""
        return model_name(self.name, "")

    @property
    def experiment(self) -> str:
        """The study's MLflow experiment."""
        return experiment_name(self.name)

    @property
    def models_dir(self) -> Path:
        return self.root / MODELS

    @property
    def jobs_dir(self) -> Path:
        return self.root / JOBS

    def models(self) -> list[str]:
        """Every checkpoint under ``models/`` with its config beside it, as a path relative to ``models/``."""
        base = self.models_dir.resolve()
        if not base.is_dir():
            return []
        found = []
        for weights in sorted(base.rglob("*.pt")):
            if any(part.endswith(STATE_SUFFIX) for part in weights.relative_to(base).parts):
                continue  # a learner's adaptation rule's state (MetaFocus's meta-model), no network
            if weights.with_suffix(".json").is_file() and weights.resolve().is_relative_to(base):
                found.append(weights.relative_to(base).as_posix())
        return found

    def model_path(self, name: str) -> Path:
        """The checkpoint that ``name`` stands for: a path relative to ``models/`` (``champion/r0/gardner.pt``) or
        a registered model by name and alias (``joat@r0``, ``expert-gardner@r1``: see the module docstring);
        :class:`ModelError` unless it resolves to an existing checkpoint inside ``models/``."""
        name = name.strip()
        match = _REGISTRY.match(name)
        if match:
            name = self._registered(match["name"], match["alias"]) or _by_layout(match["name"], match["alias"])
        base = self.models_dir.resolve()
        path = (base / name).resolve()
        if not path.is_relative_to(base) or path.suffix != ".pt" or not path.is_file():
            raise ModelError(f"no model {name!r} under the project's models/ folder (pick one of the listed models)")
        if not path.with_suffix(".json").is_file():
            raise ModelError(f"model {name!r} has no config file beside it")
        return path

    def _registered(self, name: str, alias: str) -> str | None:
        """The checkpoint (relative to ``models/``) of registered model ``name`` at ``alias``, from the run that
        logged the version the alias names; None if the registry has no such alias or its run no stage tags."""
        rows = self._query(
            "SELECT v.run_id FROM registered_model_aliases a JOIN model_versions v "
            "ON v.name = a.name AND v.version = a.version WHERE a.name = ? AND a.alias = ?",
            (self.prefix + name, alias),
        )
        if not rows or not rows[0][0]:
            return None
        run = self.runs().get(str(rows[0][0]))
        return None if run is None else run.checkpoint()

    def registered(self) -> dict[str, Run]:
        """Every registered model alias (``joat@r0``) and the run that logged its version, by name@alias."""
        rows = self._query(
            "SELECT a.name, a.alias, v.run_id FROM registered_model_aliases a JOIN model_versions v "
            "ON v.name = a.name AND v.version = a.version ORDER BY a.name, a.alias"
        )
        runs = self.runs()
        return {
            f"{name.removeprefix(self.prefix)}@{alias}": runs[str(run_id)]
            for name, alias, run_id in rows
            if str(run_id) in runs
        }

    def runs(self) -> dict[str, Run]:
        """The MLflow runs of the study's stages (tag ``mmc.kind`` = ``stage``, in the study's experiment), oldest
        first, by run id."""
        rows = self._query(
            "SELECT r.run_uuid, r.name, r.experiment_id, r.status, t.key, t.value FROM runs r "
            "JOIN tags t ON t.run_uuid = r.run_uuid WHERE r.lifecycle_stage = 'active' "
            "AND r.run_uuid IN (SELECT run_uuid FROM tags WHERE key = 'mmc.kind' AND value = 'stage') "
            "AND r.experiment_id IN (SELECT experiment_id FROM experiments WHERE name = ?) "
            "ORDER BY r.start_time, r.run_uuid",
            (self.experiment,),
        )
        tags: dict[str, dict[str, str]] = {}
        heads: dict[str, tuple[Any, ...]] = {}
        for run_id, name, experiment, status, key, value in rows:
            heads.setdefault(run_id, (name, experiment, status))
            tags.setdefault(run_id, {})[key] = value or ""
        runs = {}
        for run_id, (name, experiment, status) in heads.items():
            t = tags[run_id]
            replicate = t.get("replicate", "")
            runs[run_id] = Run(
                run_id=run_id, name=str(name or ""), experiment_id=str(experiment), status=str(status or ""),
                stage=t.get("mmc.stage", ""), variant=t.get("variant", ""),
                replicate=int(replicate) if replicate.isdigit() else None, flow_run_id=t.get(FLOW_RUN_TAG, ""),
            )  # fmt: skip
        return runs

    def model_runs(self, models: list[str]) -> dict[str, Run]:
        """The run that produced each model of ``models`` (paths relative to ``models/``) that one did: the
        newest stage run whose tags name the stage, variant and replicate that write that path."""
        wanted: dict[tuple[str, str, int], list[str]] = {}
        for model in models:
            key = _producer(model)
            if key is not None:
                wanted.setdefault(key, []).append(model)
        found: dict[str, Run] = {}
        for run in self.runs().values():  # oldest first: the newest run wins
            key = (run.stage, run.variant or run.stage, run.replicate if run.replicate is not None else -1)
            for model in wanted.get(key, []):
                found[model] = run
        return found

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Rows of ``sql`` on the project's ``mlflow.db`` opened read-only; none if the store or a table is missing."""
        db = self.project / MLFLOW_DB
        if not db.is_file():
            return []
        try:
            connection = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
            try:
                return connection.execute(sql, args).fetchall()
            finally:
                connection.close()
        except sqlite3.Error:
            return []

    def record_files(self) -> dict[str, Path]:
        """Game record files under ``data/jobs/``, by their path relative to it."""
        base = self.jobs_dir.resolve()
        if not base.is_dir():
            return {}
        files: dict[str, Path] = {}
        for path in sorted(base.rglob("*")):
            if path.suffix in RECORD_SUFFIXES and path.is_file() and path.resolve().is_relative_to(base):
                files[path.relative_to(base).as_posix()] = path
                if len(files) >= MAX_RECORD_FILES:
                    break
        return files

    def experiment_id(self) -> str | None:
        """The study's MLflow experiment's id, read from the project's ``mlflow.db`` (sqlite, read-only); None if
        absent."""
        rows = self._query("SELECT experiment_id FROM experiments WHERE name = ?", (self.experiment,))
        return str(rows[0][0]) if rows else None


@dataclass(frozen=True)
class Run:
    """One stage's MLflow run, as its tags describe it."""

    run_id: str
    name: str
    experiment_id: str
    status: str
    stage: str
    variant: str
    replicate: int | None
    flow_run_id: str

    def checkpoint(self) -> str | None:
        """The checkpoint this run's stage writes (relative to ``models/``), None for a stage that writes none."""
        if self.replicate is None or not self.variant:
            return None
        return stage_model(self.stage, self.variant, self.replicate)


def _by_layout(name: str, alias: str) -> str:
    """``NAME@rN`` by the ``models/`` layout alone (no registry): ``expert-V`` -> ``champion/rN/V.pt``, any
    other name -> ``starts/rN/NAME.pt``; an alias of another form names no file."""
    match = _REPLICATE.match(alias)
    if match is None:
        return f"{name}@{alias}"
    replicate = int(match["replicate"])
    if name.startswith(EXPERT_PREFIX):
        return champion_model(name.removeprefix(EXPERT_PREFIX), replicate)
    return start_model(name, replicate)


def _producer(model: str) -> tuple[str, str, int] | None:
    """The (stage, variant, replicate) tags of the run that writes ``model`` (relative to ``models/``)."""
    found = model_file(model)
    return None if found is None else (found.stage, found.name, found.replicate)


def player_name(model: str) -> str | None:
    """The name ``model`` plays under in the evaluation's game records (``adapted/mallet/r1/joat_b000.pt`` ->
    ``joat-b0-r1``; a start ``starts/r0/joat.pt`` -> ``joat-b0-r0``, which is its unadapted self)."""
    found = model_file(model)
    if found is None:
        return None
    if found.stage == "adapt":
        return model_label(found.start, found.budget, found.replicate)
    prefix = EXPERT_PREFIX if found.stage == "expert" else ""
    return model_label(f"{prefix}{found.name}", 0, found.replicate)


def self_play_prefix(model: str) -> str | None:
    """The prefix (relative to ``data/jobs/``) of the record files of the self-play that trained ``model``."""
    found = model_file(model)
    if found is None:
        return None
    if found.stage == "adapt":
        return f"{found.jobs}/self-play-{model_label(found.start, found.budget)}"
    return f"{found.jobs}/"
