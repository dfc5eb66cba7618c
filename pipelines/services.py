"""The local servers behind the UIs: a Prefect server (flow and task runs) and the MLflow UI (runs, models).

Both bind 127.0.0.1 only, run in a session of their own (so that killing ``dvc repro`` leaves them up) and
write a pid file and a log: ``.prefect/server.pid|log`` (Prefect's home, its sqlite database included) and
``.mlflow-ui/ui.pid|log``. A pid file is JSON: ``pid``, ``command``, ``url`` (the address clients use: the
Prefect API's, ``http://127.0.0.1:4200/api``; the MLflow UI's) and ``port``. :func:`stop` ends only what these
functions started (the pid files say what).

Each study's servers are its own: two studies on one machine never share one by accident. A study's own server
is the one its pid file names, while that process runs (``pipelines.running_server``) and answers. Its address:

- Prefect: chosen when ``pipelines`` is imported, before Prefect is (``pipelines.prefect_address``): an explicit
  ``PREFECT_API_URL`` as it is, else the study's own server's, else port 4200 if free, else the first free port
  above it. :func:`ensure_prefect` starts the server there unless it answers (an explicit address only when it is
  127.0.0.1:PORT) and, when 4200 was held, says in one line on stderr by whom
  (``pipelines: port 4200 is held by another Prefect server (/other/project/.prefect), not this study's; this
  study's server takes port 4201``).
- MLflow UI: the same at :func:`start_mlflow_ui` (:func:`mlflow_ui_port`): an explicit ``MLFLOW_UI_PORT``, else the
  study's own UI's, else 5000 if free, else the first free port above it.

``MMC_PREFECT_PORT`` and ``MMC_MLFLOW_PORT`` replace 4200 and 5000 as the ports tried first (tests).

Why a real server: without one, Prefect starts a temporary server in every process (seconds each) that
drops task-run records when the process exits.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pipelines
from pipelines import (
    DEFAULT_MLFLOW_PORT,
    DEFAULT_PREFECT_PORT,
    MLFLOW_PORT_ENV,
    PREFECT_PORT_ENV,
    TELEMETRY_OFF,
    choose_port,
    default_port,
    local_url,
    running_server,
)
from pipelines.paths import Paths

__all__ = [
    "ServiceError",
    "answers",
    "ensure_prefect",
    "executable",
    "holder",
    "mlflow_ui_port",
    "start_mlflow_ui",
    "stop",
    "stop_pid_file",
]

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


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` while the block runs: two processes of one study that find no server
    start one, not two (the second waits, then finds it answering)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _start(command: list[str], folder: Path, name: str, env: dict[str, str], cwd: Path, url: str, port: int) -> (
    subprocess.Popen[bytes]
):  # fmt: skip
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
    record = {"pid": process.pid, "command": command, "url": url, "port": port}
    (folder / f"{name}.pid").write_text(json.dumps(record) + "\n")
    return process


def _wait(url: str, seconds: float, what: str, log: Path, ended: Callable[[], int | None]) -> None:
    """Wait until ``url`` answers; :class:`ServiceError` if the server ends first (``ended``: its exit status, or
    ``None`` while it runs) or does not answer within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if answers(url):
            return
        if (status := ended()) is not None:
            raise ServiceError(f"{what} exited with status {status}; see {log}")
        time.sleep(0.5)
    raise ServiceError(f"{what} did not answer at {url} within {seconds:.0f} s; see {log}")


def _local(url: str, what: str) -> tuple[str, int]:
    parts = urlsplit(url)
    if parts.hostname not in LOCAL_HOSTS or parts.port is None:
        raise ServiceError(f"{what} at {url} does not answer, and it is not a 127.0.0.1:PORT address to start one on")
    return "127.0.0.1", parts.port


def _still_running(pid_file: Path) -> Callable[[], int | None]:
    """An ``ended`` for :func:`_wait` that watches a server another process started: -1 once it is gone."""
    return lambda: None if running_server(pid_file) is not None else -1


def ensure_prefect(paths: Paths, api_url: str | None = None, home: Path | None = None, *, wait: float = 120.0) -> bool:
    """Start this study's Prefect server at ``api_url`` (default ``PREFECT_API_URL``, chosen when ``pipelines`` was
    imported: see the module docstring) unless one answers there; whether it did. ``home``: Prefect's home, where
    the pid file is (default ``PREFECT_HOME``, else the project's ``.prefect``)."""
    chosen = api_url is None
    api_url = (api_url or os.environ["PREFECT_API_URL"]).rstrip("/")
    home = home or Path(os.environ.get("PREFECT_HOME", paths.prefect_home))
    pid_file, log = home / "server.pid", home / "server.log"
    with _locked(home / "server.lock"):
        if answers(f"{api_url}/health"):
            return False
        host, port = _local(api_url, "the Prefect API")
        own = running_server(pid_file)
        if own is not None and own["port"] == port:  # still starting: its starter died before it answered
            _wait(f"{api_url}/health", wait, "this study's Prefect server", log, _still_running(pid_file))
            return False
        if own is not None:  # a second server on the same database, and the first one's pid file lost
            raise ServiceError(
                f"this study's Prefect server (pid {own['pid']}) runs on port {own['port']}, and PREFECT_API_URL is "
                f"{api_url}: make stop stops it, or unset PREFECT_API_URL"
            )
        if chosen and pipelines.PREFECT_ADDRESS == "held":
            held = default_port(PREFECT_PORT_ENV, DEFAULT_PREFECT_PORT)
            print(f"pipelines: port {held} is held by {holder(held)}; this study's server takes port {port}",
                  file=sys.stderr, flush=True)  # fmt: skip
        env = {
            **os.environ,
            **TELEMETRY_OFF,
            "PREFECT_HOME": str(home),
            "PREFECT_API_URL": api_url,
            "PREFECT_UI_API_URL": api_url,
        }
        command = [executable("prefect"), "server", "start", "--host", host, "--port", str(port)]
        process = _start(command, home, "server", env, paths.root, api_url, port)
        _wait(f"{api_url}/health", wait, "the Prefect server", log, process.poll)
    return True


def mlflow_ui_port(paths: Paths) -> tuple[int, str]:
    """The port of this study's MLflow UI and why: ``set`` (``MLFLOW_UI_PORT``), else ``own`` (its running UI's, from
    its pid file), ``default`` (5000, or ``MMC_MLFLOW_PORT``, free) or ``held`` (the first free port above it)."""
    if os.environ.get("MLFLOW_UI_PORT"):
        return int(os.environ["MLFLOW_UI_PORT"]), "set"
    return choose_port(paths.mlflow_ui_dir / "ui.pid", default_port(MLFLOW_PORT_ENV, DEFAULT_MLFLOW_PORT))


def start_mlflow_ui(paths: Paths, port: int | None = None, *, wait: float = 60.0) -> int:
    """Start this study's MLflow UI over the project's store on 127.0.0.1:``port`` (default: :func:`mlflow_ui_port`)
    unless it answers there; the port. When the default port is held, one line on stderr says by whom."""
    pid_file, log = paths.mlflow_ui_dir / "ui.pid", paths.mlflow_ui_dir / "ui.log"
    with _locked(paths.mlflow_ui_dir / "ui.lock"):
        port, why = (port, "set") if port is not None else mlflow_ui_port(paths)
        url = local_url(port)
        if answers(f"{url}/health"):
            return port
        if why == "own":  # still starting: its starter died before it answered
            _wait(f"{url}/health", wait, "this study's MLflow UI", log, _still_running(pid_file))
            return port
        if why == "held":
            held = default_port(MLFLOW_PORT_ENV, DEFAULT_MLFLOW_PORT)
            print(f"pipelines: port {held} is held by {holder(held)}; this study's MLflow UI takes port {port}",
                  file=sys.stderr, flush=True)  # fmt: skip
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
        env = {**os.environ, **TELEMETRY_OFF}
        process = _start(command, paths.mlflow_ui_dir, "ui", env, paths.root, url, port)
        _wait(f"{url}/health", wait, "the MLflow UI", log, process.poll)
    return port


def holder(port: int) -> str:
    """Who listens on 127.0.0.1:``port``, for a message: ``another Prefect server (/other/project/.prefect), not this
    study's``, from the listening process's environment and folder (``/proc``); a vaguer phrase where those cannot
    be read (no ``/proc``, another user's process)."""
    pid = _listener(port)
    unknown = "another server (not this study's)"
    if pid is None:
        return unknown
    process = Path(f"/proc/{pid}")
    try:
        command = (process / "cmdline").read_bytes().decode(errors="replace").replace("\0", " ")
        folder = os.readlink(process / "cwd")
        environ = (process / "environ").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return unknown
    home = next((line.partition("=")[2] for line in environ if line.startswith("PREFECT_HOME=")), None)
    if home and "prefect" in command:
        return f"another Prefect server ({home}), not this study's"
    if "mlflow" in command:
        return f"another MLflow UI (started in {folder}), not this study's"
    return f"another program ({Path(command.split(' ')[0]).name}, pid {pid}, in {folder})"


def _listener(port: int) -> int | None:
    """The pid of a process that listens on TCP ``port`` (``/proc/net/tcp*`` name the socket, ``/proc/PID/fd`` its
    holder); ``None`` if none is found."""
    sockets = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()  # sl, local address (hex ip:port), remote, state (0A: listen), ..., inode
                if fields[3] == "0A" and int(fields[1].rpartition(":")[2], 16) == port:
                    sockets.add(f"socket:[{fields[9]}]")
    if not sockets:
        return None
    with contextlib.suppress(OSError):
        for process in Path("/proc").iterdir():
            if process.name.isdigit():
                with contextlib.suppress(OSError):
                    if any(os.readlink(fd) in sockets for fd in (process / "fd").iterdir()):
                        return int(process.name)
    return None


def stop_pid_file(pid_file: Path, *, grace: float = 10.0) -> bool:
    """Stop the process group whose leader ``pid_file`` names (TERM, then KILL after ``grace``) if that process still
    runs the command it records (a reused pid is left alone); whether one ran."""
    if not pid_file.is_file():
        return False
    record = running_server(pid_file)
    pid_file.unlink()
    if record is None:
        return False
    pid = int(record["pid"])
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
