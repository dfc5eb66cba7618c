"""Pipeline tests use real parts: a Prefect server of their own, MLflow on sqlite and DVC in temporary git repos.

The Prefect environment is set here, before anything imports Prefect: a temporary ``PREFECT_HOME`` and a free
local port for this test process. The server starts on first use (the ``prefect_server`` fixture: one per test
worker that runs a test needing it) and stops at the end of the session. Nothing is written into the repository:
projects are copied into temporary folders (:func:`make_project`).

The tiny profile's whole study (``python -m pipelines study``, minutes) runs once per session, in the
``tiny_study`` fixture: every test that reads a study's outputs reads that one (they share the ``pipelines`` xdist
group, which ``--dist loadgroup`` runs on one worker), and a test that changes or breaks it works on a copy
(:func:`copy_project`).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


PREFECT_HOME = Path(tempfile.mkdtemp(prefix="mmc-test-prefect-"))
os.environ["PREFECT_HOME"] = str(PREFECT_HOME)
os.environ["PREFECT_API_URL"] = f"http://127.0.0.1:{_free_port()}/api"
for _name, _value in {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "MLFLOW_DISABLE_TELEMETRY": "true",
    "DVC_NO_ANALYTICS": "1",
    "DO_NOT_TRACK": "1",
}.items():
    os.environ[_name] = _value
os.environ.pop("MMC_MLFLOW_PARENT_RUN_ID", None)
os.environ.pop("DVC_EXP_NAME", None)

REPO = Path(__file__).resolve().parents[2]
TINY_PARAMS = Path(__file__).with_name("params-tiny.yaml")
BIN = Path(sys.executable).parent


@pytest.fixture(scope="session")
def prefect_server() -> Iterator[str]:
    """The API URL of this test process's Prefect server (started on first use, stopped at the end)."""
    from pipelines import services
    from pipelines.paths import Paths

    services.ensure_prefect(Paths(PREFECT_HOME), home=PREFECT_HOME)
    yield os.environ["PREFECT_API_URL"]
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    APILogWorker.drain_all()  # send what this process still holds before its server goes away
    EventsWorker.drain_all()
    services.stop_pid_file(PREFECT_HOME / "server.pid")
    shutil.rmtree(PREFECT_HOME, ignore_errors=True)


def tool_env() -> dict[str, str]:
    """The environment for a subprocess: this virtual environment's tools first on PATH (``python``, ``dvc``)."""
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


STUDY_OUTPUTS = ("dvc.lock", "metrics/", "plots/", "reports/evaluation.csv", "reports/study.html")
"""What a study writes that git does not ignore, at the top of the checkout or of a family's folder
(``studies/NAME/``): a test's project never takes them from the checkout (after ``make study``, its ``dvc.lock``
would make the project's DVC think its stages had run)."""


def project_files(names: Iterable[str]) -> list[str]:
    """The files of ``names`` (paths relative to the checkout) that a test's project copies: all but a study's
    outputs (:data:`STUDY_OUTPUTS`)."""

    def output(name: str) -> bool:
        inner = name.split("/", 2)[2] if name.startswith("studies/") and name.count("/") >= 2 else name
        return any(inner == out or (out.endswith("/") and inner.startswith(out)) for out in STUDY_OUTPUTS)

    return [name for name in names if name and not output(name)]


def make_project(dest: Path, params: Path = TINY_PARAMS) -> Path:
    """A git repository at ``dest`` holding this working tree (tracked and untracked, not ignored files, less a
    study's outputs: :func:`project_files`) with ``params`` as its params.yaml, committed. Numba's caches are copied
    with their timestamps, so the copy's compiled code loads instead of compiling again."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, capture_output=True, check=True
        )
        .stdout.decode()
        .split("\0")
    )
    for name in project_files(listed):
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name, follow_symlinks=False)  # links stay links, as in a clone
    for cache in (REPO / "mmc").rglob("__pycache__"):
        shutil.copytree(cache, dest / cache.relative_to(REPO), dirs_exist_ok=True)
    shutil.copy2(params, dest / "params.yaml")
    git = ["git", "-c", "user.email=test@example.com", "-c", "user.name=test"]
    subprocess.run([*git, "init", "-q"], cwd=dest, check=True)
    subprocess.run([*git, "add", "-A"], cwd=dest, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "project"], cwd=dest, check=True)
    return dest


def copy_project(source: Path, dest: Path) -> Path:
    """A copy of the project at ``source`` (its git repository, DVC cache, outputs and MLflow store) at ``dest``, so
    that a test may change or break it; the MLflow runs keep the artifact folder of ``source``'s experiment."""
    shutil.copytree(source, dest, symlinks=True)
    return dest


@dataclass(frozen=True)
class TinyStudy:
    """The tiny profile's study, run to its end by ``python -m pipelines study`` (what ``make study`` runs)."""

    project: Path
    """The temporary project (a git repository of this working tree with the tiny params.yaml): read it only."""
    stdout: str
    """What the driver printed."""


@pytest.fixture(scope="session")
def tiny_study(prefect_server: str, tmp_path_factory: pytest.TempPathFactory) -> TinyStudy:
    """The tiny study of this test session, run once and shared by the tests that read a study's outputs (the
    ``pipelines`` xdist group keeps them on one worker, beside this worker's Prefect server)."""
    project = make_project(tmp_path_factory.mktemp("tiny-study") / "project")
    # 2 replicates of every stage, 3 targets: 15 minutes on 2 AMD EPYC cores beside the other test worker
    done = subprocess.run(
        [sys.executable, "-m", "pipelines", "study"], cwd=project, env=tool_env(), capture_output=True, text=True,
        timeout=2400,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return TinyStudy(project, done.stdout)
