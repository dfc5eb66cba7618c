"""The local servers behind the UIs: a Prefect server (flow and task runs) and the MLflow UI (runs, models).

Both bind 127.0.0.1 only, run in a session of their own (so that killing ``dvc repro`` leaves them up) and
write a pid file and a log: ``.prefect/server.pid|log`` (Prefect's home, its sqlite database included) and
``.mlflow-ui/ui.pid|log``. :func:`ensure_prefect` starts the Prefect server only when nothing answers at
``PREFECT_API_URL``; :func:`stop` ends only what these functions started (the pid files say what).

Why a real server: without one, Prefect starts a temporary server in every process (seconds each) that
drops task-run records when the process exits.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from pipelines import TELEMETRY_OFF
from pipelines.paths import Paths

__all__ = ["ServiceError", "answers", "ensure_prefect", "executable", "start_mlflow_ui", "stop", "stop_pid_file"]

LOCAL_HOSTS = ("127.0.0.1", "localhost")


class ServiceError(RuntimeError):
    """A server that cannot be reached or started; the message says which and where its log is."""


def answers(url: str, timeout: float = 2.0) -> bool:
    """Whether ``url`` answers an HTTP GET with a 2xx status."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return 200 <= response.status < 300
    except (urllib.error.URLError, OSError, ValueError):
        return False


def executable(name: str) -> str:
    """A console script of this environment (``.venv/bin/prefect``), else the one on PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else name


def _start(command: list[str], folder: Path, name: str, env: dict[str, str], cwd: Path) -> subprocess.Popen[bytes]:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{name}.log", "ab") as log:
        process = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
    (folder / f"{name}.pid").write_text(json.dumps({"pid": process.pid, "command": command}) + "\n")
    return process


def _wait(process: subprocess.Popen[bytes], url: str, seconds: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if answers(url):
            return
        if process.poll() is not None:
            raise ServiceError(f"{what} exited with status {process.returncode}; see {log}")
        time.sleep(0.5)
    raise ServiceError(f"{what} did not answer at {url} within {seconds:.0f} s; see {log}")


def _local(url: str, what: str) -> tuple[str, int]:
    parts = urlsplit(url)
    if parts.hostname not in LOCAL_HOSTS or parts.port is None:
        raise ServiceError(f"{what} at {url} does not answer, and it is not a 127.0.0.1:PORT address to start one on")
    return "127.0.0.1", parts.port


def ensure_prefect(paths: Paths, api_url: str | None = None, home: Path | None = None, *, wait: float = 120.0) -> bool:
    """Start a Prefect server for ``api_url`` (default ``PREFECT_API_URL``) unless one answers; whether it did."""
    api_url = (api_url or os.environ["PREFECT_API_URL"]).rstrip("/")
    if answers(f"{api_url}/health"):
        return False
    host, port = _local(api_url, "the Prefect API")
    home = home or Path(os.environ.get("PREFECT_HOME", paths.prefect_home))
    env = {
        **os.environ,
        **TELEMETRY_OFF,
        "PREFECT_HOME": str(home),
        "PREFECT_API_URL": api_url,
        "PREFECT_UI_API_URL": api_url,
    }
    command = [executable("prefect"), "server", "start", "--host", host, "--port", str(port)]
    process = _start(command, home, "server", env, paths.root)
    _wait(process, f"{api_url}/health", wait, "the Prefect server", home / "server.log")
    return True


def start_mlflow_ui(paths: Paths, port: int, *, wait: float = 60.0) -> bool:
    """Start the MLflow UI on 127.0.0.1:``port`` over the project's store unless it answers; whether it did."""
    url = f"http://127.0.0.1:{port}"
    if answers(f"{url}/health"):
        return False
    paths.mlflow_artifacts.mkdir(parents=True, exist_ok=True)
    command = [
        executable("mlflow"),
        "ui",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--backend-store-uri",
        paths.mlflow_uri,
        "--default-artifact-root",
        paths.mlflow_artifacts.as_uri(),
    ]
    process = _start(command, paths.mlflow_ui_dir, "ui", {**os.environ, **TELEMETRY_OFF}, paths.root)
    _wait(process, f"{url}/health", wait, "the MLflow UI", paths.mlflow_ui_dir / "ui.log")
    return True


def stop_pid_file(pid_file: Path, *, grace: float = 10.0) -> bool:
    """Stop the process group whose leader ``pid_file`` names (TERM, then KILL after ``grace``); whether one ran."""
    if not pid_file.is_file():
        return False
    pid = int(json.loads(pid_file.read_text())["pid"])
    pid_file.unlink()
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return True
        _reap(pid)
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
    _reap(pid)
    return True


def _reap(pid: int) -> None:
    """Collect ``pid`` if it is our child (a server started by this process), so it does not linger as a zombie."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def stop(paths: Paths, home: Path | None = None) -> list[str]:
    """Stop the Prefect server and MLflow UI started for this project; the names of those that were running."""
    home = home or Path(os.environ.get("PREFECT_HOME", paths.prefect_home))
    stopped = []
    if stop_pid_file(home / "server.pid"):
        stopped.append("Prefect server")
    if stop_pid_file(paths.mlflow_ui_dir / "ui.pid"):
        stopped.append("MLflow UI")
    return stopped
