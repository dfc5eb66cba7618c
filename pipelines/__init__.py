"""The study pipeline: Prefect flows around ``mmc``, their outputs tracked by DVC, their runs recorded in MLflow.

Only this package reads ``params.yaml``, touches the file system, talks to MLflow and declares Prefect flows
and tasks (``mmc`` stays pure). The command line is ``python -m pipelines`` (see ``pipelines/__main__.py``);
``dvc.yaml`` calls it once per stage and variant, ``make study`` runs the driver around ``dvc repro``.

Modules:

- ``config``: ``params.yaml`` -> frozen, typed configs; one-line errors naming the key.
- ``study_config``: those configs (``StudyConfig`` and its sections' plans) and what each section is.
- ``study_rules``: the study's rules across sections; ``check_players`` (the engine opponents can play).
- ``paths``: every artifact path (mirrors ``dvc.yaml``) and the code each stage depends on.
- ``files``: atomic writes and file hashes.
- ``jobs``: the stages' runner: each ``mmc`` job a Prefect task run, fingerprinted from its inputs, kept on disk.
- ``records``: the records as dataclasses (a job's ``.done.json``, one row type per CSV).
- ``metrics``: every MLflow metric name.
- ``stage``: the stage skeleton (logger, MLflow child run, job store, params) every stage flow opens.
- ``starts``: what a learner is given, the starting models of adaptation on disk and their learners' adaptation
  rules (the starts' rules are ``mmc.evaluation.starts``).
- ``expert``, ``learn`` (every learner's stage: joat, multitask, metafocus, installed ones), ``adapt``, ``evaluate``,
  ``study_report``: the stage
  flows; no stage module imports another.
- ``runners``: the Prefect task runner (process pool, Dask, threads).
- ``tracking``: MLflow runs, parent run, metrics, artifacts, the model registry.
- ``plots``: loss and arena curves as PNG for MLflow.
- ``services``: the study's own Prefect server and MLflow UI (their ports, start, stop).
- ``study``: the driver: one MLflow parent run around ``dvc repro``.
- ``worker``: the warm stage worker the driver starts; each stage command hands its work to it while it is fresh.
- ``handover``: the command's and the driver's side of that worker (hand a stage over; start and stop it).
- ``timing``: where the time went: each stage's parts (logged to its run), the study's split (printed, reported).
- ``report``: the report renderer (papermill + nbconvert, offline HTML).
- ``benchmarks``: the frozen, versioned benchmarks (``frozen/NAME.yaml``) and the check of a study that names one.
- ``rows``: a study's row on its benchmark (numbers refitted from the recorded games, provenance, hashes), the
  check of a row, the official rows (``frozen/rows/``).
- ``project``: ``python -m pipelines init``: a study anywhere, from the package alone (``template/``).
- ``studies``: the family studies' ``dvc.yaml`` (and a study anywhere's), generated from the project's.

Importing the package sets the environment defaults every entry point needs before Prefect or MLflow is
imported: telemetry off, Prefect's home under the project (``.prefect/`` beside ``.dvc/``, as
``mmc.core.study_layout`` lays it out) and ``PREFECT_API_URL``, the address of the study's own Prefect server
(:func:`prefect_address`). A variable that is already set wins.

Each study's servers are its own. Prefect reads ``PREFECT_API_URL`` once, when it is imported, so the address is
chosen here, once per process, from files and a socket bind (no HTTP):

1. ``PREFECT_API_URL`` set in the environment: that server, as it is (shared on purpose; a driver also passes the
   address it chose to ``dvc`` and the stages through this variable).
2. Else the server this study's pid file names (``.prefect/server.pid``), while its process runs.
3. Else port 4200 (``MMC_PREFECT_PORT`` overrides it: tests) if nothing listens there.
4. Else the first free port above it: 4200 is held by another program (another study's server, as a rule).
   ``pipelines.services.ensure_prefect`` starts this study's server there and says in one line who holds 4200.

The MLflow UI's port is chosen the same way, when the UI is started (``pipelines.services.mlflow_ui_port``).
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

from mmc.core.study_layout import PREFECT_HOME, project_of

DEFAULT_PREFECT_PORT = 4200
"""The port a study's Prefect server takes when nothing holds it (:func:`prefect_address`)."""

DEFAULT_MLFLOW_PORT = 5000
"""The port a study's MLflow UI takes when nothing holds it (``pipelines.services.mlflow_ui_port``)."""

PREFECT_PORT_ENV = "MMC_PREFECT_PORT"
"""Overrides :data:`DEFAULT_PREFECT_PORT`: the tests' studies try a free port first, not a developer's 4200."""

MLFLOW_PORT_ENV = "MMC_MLFLOW_PORT"
"""Overrides :data:`DEFAULT_MLFLOW_PORT`, as :data:`PREFECT_PORT_ENV` does."""

DEFAULT_PREFECT_API_URL = f"http://127.0.0.1:{DEFAULT_PREFECT_PORT}/api"
"""Where a study's Prefect server answers when it took the default port."""

TELEMETRY_OFF = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "MLFLOW_DISABLE_TELEMETRY": "true",
    "DVC_NO_ANALYTICS": "1",
    "DO_NOT_TRACK": "1",
}
"""Environment that switches off the usage reports of Prefect, MLflow and DVC."""


def local_url(port: int, path: str = "") -> str:
    """``http://127.0.0.1:PORT`` followed by ``path`` (``/api`` for a Prefect API)."""
    return f"http://127.0.0.1:{port}{path}"


def running_server(pid_file: Path) -> dict[str, Any] | None:
    """The record of ``pid_file`` (``pid``, ``command``, ``url``, ``port``) while its process still runs that command;
    ``None`` if there is none, or it is gone (a reused pid runs another command). A record written before ``port``
    was recorded gets it from the command's ``--port``."""
    try:
        record = json.loads(pid_file.read_text())
        pid, command = int(record["pid"]), [str(part) for part in record["command"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # another user's process runs there: /proc/PID/cmdline below says whether it is ours
    try:
        running = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
    except OSError:
        running = None  # no /proc (macOS): the pid is all there is to go by
    # A console script runs as `python SCRIPT ARGS`: its arguments end the command line.
    if running is not None and running[len(running) - len(command) + 1 :] != command[1:]:
        return None
    if "port" not in record and "--port" in command[:-1]:
        record["port"] = int(command[command.index("--port") + 1])
    return record if isinstance(record.get("port"), int) else None


def port_free(port: int) -> bool:
    """Whether a server could listen on 127.0.0.1:``port`` now (a bind that nothing else holds; no traffic)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as servers do: a closed connection's wait
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def choose_port(pid_file: Path, default: int) -> tuple[int, str]:
    """The port of a study's server and why: ``own`` (the server ``pid_file`` names runs there), ``default`` (free),
    or ``held`` (``default`` is held by another program: the first free port above it, up to 100 ports, else any)."""
    if (record := running_server(pid_file)) is not None:
        return int(record["port"]), "own"
    if port_free(default):
        return default, "default"
    above = (port for port in range(default + 1, min(default + 101, 65536)) if port_free(port))
    if (port := next(above, None)) is None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
    return port, "held"


def default_port(variable: str, default: int) -> int:
    """``default``, or the port that environment variable ``variable`` names."""
    return int(os.environ.get(variable) or default)


def prefect_address(home: Path) -> tuple[str, str]:
    """The Prefect API URL of the study whose Prefect home is ``home``, and why: ``set`` (``PREFECT_API_URL``), else
    :func:`choose_port`'s reason (see the module docstring)."""
    if os.environ.get("PREFECT_API_URL"):
        return os.environ["PREFECT_API_URL"], "set"
    port, why = choose_port(home / "server.pid", default_port(PREFECT_PORT_ENV, DEFAULT_PREFECT_PORT))
    return local_url(port, "/api"), why


def environment_defaults(root: Path) -> dict[str, str]:
    """The variables :func:`set_environment_defaults` sets for a project at ``root`` (no ``PREFECT_API_URL``: it is
    :func:`prefect_address`'s)."""
    return {
        **TELEMETRY_OFF,
        "PREFECT_HOME": str(root.resolve() / PREFECT_HOME),
        # Prefect's own console logs stay readable under DVC; the server keeps the full record.
        "PREFECT_LOGGING_LEVEL": "INFO",
    }


def set_environment_defaults(root: Path) -> str:
    """Set every variable of :func:`environment_defaults` that is not set yet, then ``PREFECT_API_URL``
    (:func:`prefect_address`); why that address (:data:`PREFECT_ADDRESS`)."""
    for name, value in environment_defaults(root).items():
        os.environ.setdefault(name, value)
    os.environ["PREFECT_API_URL"], why = prefect_address(Path(os.environ["PREFECT_HOME"]))
    return why


PREFECT_ADDRESS = set_environment_defaults(project_of(Path.cwd()))
"""Why this process uses its ``PREFECT_API_URL``: ``set``, ``own``, ``default`` or ``held`` (:func:`prefect_address`;
``held``: ``pipelines.services.ensure_prefect`` says who holds the default port when it starts the server)."""

__all__ = [
    "DEFAULT_MLFLOW_PORT",
    "DEFAULT_PREFECT_API_URL",
    "DEFAULT_PREFECT_PORT",
    "MLFLOW_PORT_ENV",
    "PREFECT_ADDRESS",
    "PREFECT_PORT_ENV",
    "TELEMETRY_OFF",
    "choose_port",
    "default_port",
    "environment_defaults",
    "local_url",
    "port_free",
    "prefect_address",
    "running_server",
    "set_environment_defaults",
]
