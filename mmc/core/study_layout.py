"""A study's folder layout and names, written once: the study writes its files by them (``pipelines.paths.Paths``,
``pipelines.tracking``), the web app reads them by them (``mmc.web.study.Study``).

A **project** is a study checkout: the nearest folder at or above the working folder that holds the DVC repository
(``.dvc/``, :func:`project_of`). Its own study, named ``default``, lives in its root; a family's study lives in a
folder of its own (``studies/gomoku``) and is named after it (:func:`study_name`). The project keeps what its studies
share::

    mlflow.db, mlartifacts/                  MLflow's store: every study's runs, each study in its own experiment
    .prefect/                                Prefect's home: the server's database, logs and pid file

and each study's folder its parameters and outputs (``pipelines.paths`` lists every one), among them::

    params.yaml
    data/jobs/{stage}/{name}-r{r}/           every finished job of a stage (the evaluation's: data/jobs/evaluate/{t})
    models/champion/r{r}/{v}.pt              stage expert@{v}-{r}: the expert's champion
    models/starts/r{r}/{k}.pt                stage {k}@{r}: learner {k}'s network ({k}.state/: its rule's state)
    models/adapted/{t}/r{r}/{s}_b{b:03d}.pt  stage adapt@{t}-{r}: start {s} adapted with {b} self-play games

Each checkpoint ``X.pt`` has its config ``X.json`` beside it. A study's MLflow experiment and registered models are
named from its name (:func:`experiment_name`, :func:`model_name`).

Paths and names only: this module opens no file and imports nothing of ``mmc``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DEFAULT_STUDY",
    "DVC_REPO",
    "EXPERIMENT",
    "JOBS",
    "MLFLOW_ARTIFACTS",
    "MLFLOW_DB",
    "MODELS",
    "PARAMS",
    "PREFECT_HOME",
    "STATE_SUFFIX",
    "ModelFile",
    "adapted_folder",
    "adapted_model",
    "champion_model",
    "experiment_name",
    "model_file",
    "model_name",
    "project_of",
    "replicate_name",
    "stage_model",
    "start_model",
    "start_state",
    "study_name",
]

DVC_REPO = ".dvc"
"""The folder that makes a folder a project (:func:`project_of`)."""
PARAMS = "params.yaml"
"""A study's parameters, in its folder."""
JOBS = "data/jobs"
"""Every finished job of a study's stages, in its folder (``{stage}/{name}/{job}.*``)."""
MODELS = "models"
"""A study's checkpoints, in its folder (:func:`champion_model`, :func:`start_model`, :func:`adapted_model`)."""
MLFLOW_DB = "mlflow.db"
"""MLflow's store (sqlite), in the project's folder."""
MLFLOW_ARTIFACTS = "mlartifacts"
"""MLflow's artifacts, in the project's folder."""
PREFECT_HOME = ".prefect"
"""Prefect's home (its server's database, logs and pid file), in the project's folder."""
STATE_SUFFIX = ".state"
"""A learner's folder beside its network, of what its adaptation rule reads (:func:`start_state`)."""
DEFAULT_STUDY = "default"
"""The name of a project's own study; a family study is named after its folder (``gomoku``)."""
EXPERIMENT = "meta-minichess"
"""The default study's MLflow experiment; a family study's is ``{EXPERIMENT}-{family}`` (:func:`experiment_name`)."""

_ADAPTED = re.compile(
    r"^adapted/(?P<target>[a-z0-9_]+)/r(?P<replicate>\d+)/(?P<start>[a-z0-9_-]+)_b(?P<budget>\d+)\.pt$"
)
_START = re.compile(r"^(?P<folder>starts|champion)/r(?P<replicate>\d+)/(?P<name>[a-z0-9_]+)\.pt$")


def project_of(folder: Path) -> Path:
    """The project a study folder belongs to: the nearest folder at or above ``folder`` that holds the DVC
    repository (:data:`DVC_REPO`), else ``folder`` itself; resolved."""
    folder = Path(folder).resolve()
    return next((p for p in (folder, *folder.parents) if (p / DVC_REPO).is_dir()), folder)


def study_name(root: Path, project: Path) -> str:
    """The name of the study in folder ``root`` of ``project`` (both resolved): :data:`DEFAULT_STUDY` for the
    project's own, else its folder's (``gomoku``)."""
    return DEFAULT_STUDY if root == project else root.name


def experiment_name(study: str) -> str:
    """The MLflow experiment of the study named ``study``: :data:`EXPERIMENT` for the default study,
    ``meta-minichess-{study}`` for a family's."""
    return EXPERIMENT if study == DEFAULT_STUDY else f"{EXPERIMENT}-{study}"


def model_name(study: str, name: str) -> str:
    """The registered model ``name`` (``joat``, ``expert-gardner``) of the study named ``study``: ``name`` in the
    default study, ``{study}-{name}`` in a family's."""
    return name if study == DEFAULT_STUDY else f"{study}-{name}"


def replicate_name(name: str, replicate: int) -> str:
    """``name`` of training replicate ``replicate``: ``gardner-r1`` (job folders, files, MLflow runs)."""
    return f"{name}-r{replicate}"


def champion_model(variant: str, replicate: int) -> str:
    """The expert's champion of ``variant`` in replicate ``replicate``, relative to :data:`MODELS`."""
    return f"champion/r{replicate}/{variant}.pt"


def start_model(name: str, replicate: int) -> str:
    """Learner ``name``'s network in replicate ``replicate`` (a start of adaptation), relative to :data:`MODELS`."""
    return f"starts/r{replicate}/{name}.pt"


def start_state(name: str, replicate: int) -> str:
    """The folder of what learner ``name``'s own adaptation rule reads, relative to :data:`MODELS`."""
    return f"starts/r{replicate}/{name}{STATE_SUFFIX}"


def adapted_folder(target: str, replicate: int) -> str:
    """Every start adapted to ``target`` in replicate ``replicate``, relative to :data:`MODELS`."""
    return f"adapted/{target}/r{replicate}"


def adapted_model(target: str, replicate: int, start: str, budget: int) -> str:
    """Start ``start`` adapted to ``target`` with ``budget`` self-play games, relative to :data:`MODELS`."""
    return f"{adapted_folder(target, replicate)}/{start}_b{budget:03d}.pt"


def stage_model(stage: str, name: str, replicate: int) -> str | None:
    """The one checkpoint that stage ``stage`` (``expert``, ``learn``) writes for ``name`` (its variant, its
    learner) in replicate ``replicate``, relative to :data:`MODELS`; ``None`` for a stage that writes no one model."""
    if stage == "expert":
        return champion_model(name, replicate)
    if stage == "learn":
        return start_model(name, replicate)
    return None


@dataclass(frozen=True)
class ModelFile:
    """What a checkpoint's path under :data:`MODELS` says of it (:func:`model_file`)."""

    stage: str
    """The stage that writes it: ``expert``, ``learn`` or ``adapt``."""
    name: str
    """What for: the expert's variant, the learner, or the adaptation's target."""
    replicate: int
    start: str = ""
    """``adapt``: the start adapted."""
    budget: int = 0
    """``adapt``: its self-play games."""

    @property
    def jobs(self) -> str:
        """The folder of the stage's finished jobs, relative to :data:`JOBS` (``adapt/mallet-r1``)."""
        return f"{self.stage}/{replicate_name(self.name, self.replicate)}"


def model_file(path: str) -> ModelFile | None:
    """What the checkpoint ``path`` (relative to :data:`MODELS`: ``adapted/mallet/r1/joat_b000.pt``) is; ``None`` if
    it is none that a stage writes."""
    match = _START.match(path)
    if match:
        stage = "expert" if match["folder"] == "champion" else "learn"
        return ModelFile(stage, match["name"], int(match["replicate"]))
    match = _ADAPTED.match(path)
    if match:
        return ModelFile("adapt", match["target"], int(match["replicate"]), match["start"], int(match["budget"]))
    return None
