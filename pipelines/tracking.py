"""MLflow: one parent run per study invocation, a child run per stage and variant, the model registry.

The store is ``sqlite:///<project>/mlflow.db`` (an absolute URI: DVC may run a stage from elsewhere, and a
relative one would silently open a new, empty database) with artifacts under ``<project>/mlartifacts``.
Everything of the default study goes to the experiment ``meta-minichess``; a family's study (``studies/gomoku``)
to its own, ``meta-minichess-gomoku``, in the same store, and its registered models are named after it
(``gomoku-joat``), so one MLflow UI shows every study and no study's model replaces another's.

How a stage (a separate process started by DVC) finds its parent run:

1. ``MMC_MLFLOW_PARENT_RUN_ID`` set: the driver (``python -m pipelines study``, run by ``make study``) opened
   the parent, runs ``dvc repro`` inside it and closes it with the final status.
2. Else ``DVC_EXP_NAME`` set (``dvc exp run``): the parent is the run tagged ``mmc.dvc_exp=<name>``, made by
   the experiment's first stage; each stage marks it running while it works and finished (or failed) after.
3. Else (a bare ``dvc repro``, or a stage run by hand): no parent; the stage's run is a top-level run.

Child runs are tagged with the git commit, the DVC stage (``expert@gardner``), the Prefect flow-run id, the
variant and the process id (so that :func:`close_orphans` can tell a run whose process was killed).
"""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mlflow
import numpy as np
import torch
import yaml
from mlflow.entities import RunStatus
from mlflow.tracking import MlflowClient

from mmc.core import study_layout
from mmc.core.study_layout import EXPERIMENT
from pipelines.config import flatten
from pipelines.paths import Paths

__all__ = [
    "EXPERIMENT",
    "PARENT_ENV",
    "StageRun",
    "close_orphans",
    "configure",
    "experiment_name",
    "git_commit",
    "model_name",
    "open_parent",
    "process_alive",
    "stage_run",
]

PARENT_ENV = "MMC_MLFLOW_PARENT_RUN_ID"
"""Environment variable with the parent run's id, set by the study driver for the stages."""
EXPERIMENT_KIND = "mlflow.experimentKind"
"""The experiment tag that tells MLflow's UI what kind of work the experiment holds (training runs here)."""
_PARAM_BATCH = 100  # MLflow's limit of params per log_batch call


def experiment_name(paths: Paths) -> str:
    """The study's MLflow experiment (``mmc.core.study_layout.experiment_name``, the rule the web app reads it by)."""
    return study_layout.experiment_name(paths.study)


def model_name(paths: Paths, name: str) -> str:
    """The registered model ``name`` (``joat``, ``expert-gardner``) of the study
    (``mmc.core.study_layout.model_name``)."""
    return study_layout.model_name(paths.study, name)


def configure(paths: Paths) -> tuple[MlflowClient, str]:
    """Point MLflow at the project's store; the client and the study's experiment id (made if missing)."""
    mlflow.set_tracking_uri(paths.mlflow_uri)
    client = MlflowClient(paths.mlflow_uri)
    name = experiment_name(paths)
    experiment = client.get_experiment_by_name(name)
    if experiment is not None:
        return client, experiment.experiment_id
    paths.mlflow_artifacts.mkdir(parents=True, exist_ok=True)
    # MLflow 3's UI opens an experiment without this tag on its (empty) GenAI overview, not on the runs.
    tags = {EXPERIMENT_KIND: "custom_model_development"}
    return client, client.create_experiment(name, artifact_location=paths.mlflow_artifacts.as_uri(), tags=tags)


def git_commit(root: Path) -> str:
    """The checked-out commit of ``root``'s git repository, with ``-dirty`` if tracked files changed."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False).stdout.strip()

    commit = git("rev-parse", "HEAD") or "unknown"
    return commit + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def _process_tags(root: Path) -> dict[str, str]:
    commit = git_commit(root)
    return {
        "mlflow.source.git.commit": commit.removesuffix("-dirty"),
        "git_commit": commit,
        "mmc.pid": str(os.getpid()),
        "mmc.host": socket.gethostname(),
    }


def _param_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def log_params(client: MlflowClient, run_id: str, params: Mapping[str, Any]) -> None:
    """Log flat ``params`` (values as JSON text unless strings), in batches MLflow accepts."""
    items = [mlflow.entities.Param(k, _param_value(v)[:6000]) for k, v in params.items()]
    for start in range(0, len(items), _PARAM_BATCH):
        client.log_batch(run_id, params=items[start : start + _PARAM_BATCH])


def open_parent(paths: Paths, name: str, params: Mapping[str, Any], tags: Mapping[str, str]) -> str:
    """Start a parent run (left running: :func:`close_parent` ends it); its id."""
    client, experiment = configure(paths)
    run = client.create_run(experiment, run_name=name, tags={**_process_tags(paths.root), "mmc.kind": "study", **tags})
    log_params(client, run.info.run_id, params)
    return str(run.info.run_id)


def close_parent(
    paths: Paths, run_id: str, status: str, metrics: Mapping[str, float] | None = None,
    tags: Mapping[str, str] | None = None,
) -> None:  # fmt: skip
    """End the parent run with ``status`` (``FINISHED``, ``FAILED``, ``KILLED``), logging ``metrics`` and setting
    ``tags`` first."""
    client, _ = configure(paths)
    for key, value in (metrics or {}).items():
        client.log_metric(run_id, key, value)
    for key, text in (tags or {}).items():
        client.set_tag(run_id, key, text)
    client.set_terminated(run_id, status)


def close_orphans(paths: Paths) -> list[str]:
    """Mark ``KILLED`` the running runs of this host whose process is gone (a ``kill -9``); their ids."""
    client, experiment = configure(paths)
    closed = []
    for run in client.search_runs([experiment], "attributes.status = 'RUNNING'", max_results=1000):
        pid, host = run.data.tags.get("mmc.pid"), run.data.tags.get("mmc.host")
        if pid and host == socket.gethostname() and not process_alive(int(pid)):
            client.set_terminated(run.info.run_id, "KILLED")
            closed.append(run.info.run_id)
    return closed


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (one of another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _experiment_parent(client: MlflowClient, experiment: str, paths: Paths, name: str) -> str:
    """The parent run of the DVC experiment ``name`` (made, with the params file, by its first stage)."""
    runs = client.search_runs([experiment], f"tags.`mmc.dvc_exp` = '{name}'", max_results=1)
    if runs:
        run_id = str(runs[0].info.run_id)
        client.update_run(run_id, status="RUNNING")
        return run_id
    params = yaml.safe_load(paths.params.read_text()) if paths.params.is_file() else {}
    return open_parent(paths, f"exp-{name}", flatten(params or {}), {"mmc.dvc_exp": name})


@dataclass
class StageRun:
    """The child run of one stage and variant; logs through the client (the run is also the active run)."""

    client: MlflowClient
    run_id: str
    paths: Paths

    def log_params(self, params: Mapping[str, Any]) -> None:
        log_params(self.client, self.run_id, params)

    def log_metrics(self, metrics: Mapping[str, float], step: int | None = None) -> None:
        """Log finite ``metrics`` (NaN and infinities are skipped), at ``step`` if given."""
        entities = [
            mlflow.entities.Metric(k, float(v), mlflow.utils.time.get_current_time_millis(), step or 0)
            for k, v in metrics.items()
            if math.isfinite(float(v))
        ]
        if entities:
            self.client.log_batch(self.run_id, metrics=entities)

    def log_artifact(self, path: Path, folder: str | None = None) -> None:
        self.client.log_artifact(self.run_id, str(path), folder)

    def register_model(self, net: torch.nn.Module, name: str, description: str, replicate: int) -> str:
        """Log ``net`` (pickled: the two-headed network is no single-tensor function) and register it as ``name``
        with alias ``r{replicate}`` (in a family's study, ``{study}-{name}``: :func:`model_name`); the new version's
        number. Load it with ``models:/NAME@r0``."""
        name = model_name(self.paths, name)
        info = mlflow.pytorch.log_model(
            net,
            name="model",
            serialization_format="pickle",
            registered_model_name=name,
            pip_requirements=[f"torch=={torch.__version__.split('+')[0]}", f"numpy=={np.__version__}"],
        )
        version = str(info.registered_model_version)
        self.client.set_registered_model_alias(name, f"r{replicate}", version)
        self.client.update_model_version(name, version, description)
        return version


def _parts(variant: str, replicate: int | None, prefix: str) -> list[str]:
    """The names after a stage's in its DVC name (``expert@gardner-0``) and run name (``expert-gardner-r0``); a stage
    run once per replicate with no variant (``metafocus``) has the replicate alone."""
    return [*([variant] if variant else []), *([f"{prefix}{replicate}"] if replicate is not None else [])]


def _dvc_stage(stage: str, variant: str, replicate: int | None) -> str:
    """The DVC stage a run is of: ``expert@gardner-0``; a learner's stage is named by the learner (``joat@0``)."""
    if stage == "learn":
        return f"{variant}@" + "-".join(_parts("", replicate, ""))
    return f"{stage}@" + "-".join(_parts(variant, replicate, ""))


@contextmanager
def stage_run(
    paths: Paths, stage: str, variant: str, flow_run_id: str | None, replicate: int | None = None
) -> Iterator[StageRun]:
    """The child run of ``stage@variant`` (of training replicate ``replicate``, for a training stage) under the
    study's parent run (see the module docstring).

    Ends ``FINISHED``, or ``FAILED`` (``KILLED`` on Ctrl-C) if the body raises; a parent of a DVC experiment
    is marked the same way.
    """
    client, experiment = configure(paths)
    parent = os.environ.get(PARENT_ENV)
    exp_parent = None
    if not parent and os.environ.get("DVC_EXP_NAME"):
        parent = exp_parent = _experiment_parent(client, experiment, paths, os.environ["DVC_EXP_NAME"])
    tags = {
        **_process_tags(paths.root),
        "mmc.kind": "stage",
        "mmc.stage": stage,
        "variant": variant,
        "dvc_stage": os.environ.get("DVC_STAGE", _dvc_stage(stage, variant, replicate)),
        "prefect_flow_run_id": flow_run_id or "",
        **({"replicate": str(replicate)} if replicate is not None else {}),
    }
    if parent:
        tags["mlflow.parentRunId"] = parent
    name = "-".join((*([stage] if stage != "learn" else []), *_parts(variant, replicate, "r")))  # a learner: joat-r0
    run = client.create_run(experiment, run_name=name, tags=tags)
    run_id = str(run.info.run_id)
    status = RunStatus.to_string(RunStatus.FAILED)
    try:
        with mlflow.start_run(run_id=run_id):
            yield StageRun(client, run_id, paths)
            status = RunStatus.to_string(RunStatus.FINISHED)
    except KeyboardInterrupt:
        status = RunStatus.to_string(RunStatus.KILLED)
        raise
    finally:
        client.set_terminated(run_id, status)
        if exp_parent:
            client.set_terminated(exp_parent, status)
