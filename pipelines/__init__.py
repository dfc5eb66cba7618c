"""The study pipeline: Prefect flows around ``mmc``, their outputs tracked by DVC, their runs recorded in MLflow.

Only this package reads ``params.yaml``, touches the file system, talks to MLflow and declares Prefect flows
and tasks (``mmc`` stays pure). The command line is ``python -m pipelines`` (see ``pipelines/__main__.py``);
``dvc.yaml`` calls it once per stage and variant, ``make study`` runs the driver around ``dvc repro``.

Modules:

- ``config``: ``params.yaml`` -> frozen, typed configs; one-line errors naming the key.
- ``study_rules``: the study's rules across sections; ``check_players`` (the engine opponents can play).
- ``paths``: every artifact path (mirrors ``dvc.yaml``) and the code each stage depends on.
- ``files``: atomic writes and file hashes.
- ``jobs``: the stages' runner: each ``mmc`` job a Prefect task run, fingerprinted from its inputs, kept on disk.
- ``records``: the records as dataclasses (a job's ``.done.json``, one row type per CSV).
- ``metrics``: every MLflow metric name.
- ``stage``: the stage skeleton (logger, MLflow child run, job store, params) every stage flow opens.
- ``starts``: what a learner is given, the starting models of adaptation on disk and their learners' adaptation
  rules (the starts' rules are ``mmc.starts``).
- ``expert``, ``learn`` (every learner's stage: joat, multitask, metafocus, installed ones), ``adapt``, ``evaluate``,
  ``study_report``: the stage
  flows; no stage module imports another.
- ``runners``: the Prefect task runner (process pool, Dask, threads).
- ``tracking``: MLflow runs, parent run, metrics, artifacts, the model registry.
- ``plots``: loss and arena curves as PNG for MLflow.
- ``services``: the local Prefect server and MLflow UI (start, stop).
- ``study``: the driver: one MLflow parent run around ``dvc repro``.
- ``worker``: the warm stage worker the driver starts; each stage command hands its work to it while it is fresh.
- ``timing``: where the time went: each stage's parts (logged to its run), the study's split (printed, reported).
- ``report``: the report renderer (papermill + nbconvert, offline HTML).

Importing the package sets the environment defaults every entry point needs before Prefect or MLflow is
imported: telemetry off, Prefect's home under the project and its API on the local server. A variable that
is already set wins.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_PREFECT_API_URL = "http://127.0.0.1:4200/api"
"""Where the study's Prefect server answers unless ``PREFECT_API_URL`` says otherwise."""

TELEMETRY_OFF = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "MLFLOW_DISABLE_TELEMETRY": "true",
    "DVC_NO_ANALYTICS": "1",
    "DO_NOT_TRACK": "1",
}
"""Environment that switches off the usage reports of Prefect, MLflow and DVC."""


def environment_defaults(root: Path) -> dict[str, str]:
    """The variables :func:`set_environment_defaults` sets for a project at ``root``."""
    return {
        **TELEMETRY_OFF,
        "PREFECT_HOME": str(root.resolve() / ".prefect"),
        "PREFECT_API_URL": DEFAULT_PREFECT_API_URL,
        # Prefect's own console logs stay readable under DVC; the server keeps the full record.
        "PREFECT_LOGGING_LEVEL": "INFO",
    }


def set_environment_defaults(root: Path) -> None:
    """Set every variable of :func:`environment_defaults` that is not set yet."""
    for name, value in environment_defaults(root).items():
        os.environ.setdefault(name, value)


set_environment_defaults(Path.cwd())

__all__ = ["DEFAULT_PREFECT_API_URL", "TELEMETRY_OFF", "environment_defaults", "set_environment_defaults"]
