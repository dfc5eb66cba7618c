"""The command's and the driver's side of the warm stage worker (:mod:`pipelines.worker`): the worker's record and
code fingerprint, and the messages on its socket.

- A stage command (``python -m pipelines expert gardner 0``) hands its stage over (:func:`hand_over`, the first
  thing ``python -m pipelines`` does for a stage) when the study's worker runs and is fresh, and otherwise runs it
  itself.
- The study driver (:func:`pipelines.study.run_study`) starts the worker and stops it (:func:`running`).

The worker's own side, which runs ``python -m pipelines`` in its process, is :mod:`pipelines.worker`; this module
imports none of the stages, so a command reads the worker's record before any import of torch, Prefect or MLflow.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = [
    "OFF",
    "SHARED_ENV",
    "STAGES",
    "code_fingerprint",
    "hand_over",
    "read_record",
    "receive",
    "record_path",
    "running",
    "send",
]

STAGES = frozenset({"expert", "learn", "adapt", "evaluate", "report"})
"""The commands of ``python -m pipelines`` that are stages (``dvc.yaml``), and so may run in the worker."""

SHARED_ENV = ("PREFECT_API_URL", "PREFECT_HOME")
"""Variables the worker's Prefect client read when it started: a stage whose own differ runs in its own process."""

CODE = Path(__file__).resolve().parents[1]
"""The folder that holds the ``mmc`` and ``pipelines`` packages this process runs."""

OFF = "MMC_WORKER"
"""``MMC_WORKER=off`` in a stage's environment: run it in its own process even if a worker is up."""

OFF_VALUES = ("off", "0", "no", "false")

_HEADER = struct.Struct("!I")


def record_path(root: Path) -> Path:
    """Where the worker of the study at ``root`` records its pid, socket and code fingerprint."""
    return root / ".mmc-worker" / "worker.json"


def code_fingerprint() -> str:
    """A SHA-256 over the code a stage runs: every file of ``mmc`` and ``pipelines`` under :data:`CODE` and of the
    installed packages that add games, players or learners (``mmc.games``, ``mmc.players``, ``mmc.learners``), and the
    interpreter. Any edit, added or removed file changes it (tens of milliseconds: no import)."""
    digest = hashlib.sha256(sys.executable.encode())
    files = [p for package in ("mmc", "pipelines") for p in sorted((CODE / package).rglob("*.py"))]
    for dist in _plugin_distributions():
        digest.update(f"{dist.metadata['Name']}=={dist.version}".encode())
        files += sorted(Path(str(dist.locate_file(f))) for f in dist.files or () if f.suffix == ".py")
    for path in files:
        with contextlib.suppress(OSError):
            digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _plugin_distributions() -> list[metadata.Distribution]:
    found: dict[str, metadata.Distribution] = {}
    for group in ("mmc.games", "mmc.players", "mmc.learners"):
        for point in metadata.entry_points(group=group):
            if point.dist is not None:
                found[point.dist.metadata["Name"]] = point.dist
    return [found[name] for name in sorted(found)]


# The command's side ---------------------------------------------------------------------------------------------


def hand_over(argv: list[str], command: str) -> int | None:
    """Run stage ``command`` (``argv``: the arguments of ``python -m pipelines``) in the study's warm worker; its
    exit status, or ``None`` when there is no fresh worker to run it (the caller then runs it itself)."""
    if command not in STAGES or os.environ.get(OFF, "").lower() in OFF_VALUES:
        return None
    record = read_record(Path.cwd())
    if record is None:
        return None
    if (why := _stale(record)) is not None:
        print(f"pipelines: the warm stage worker (pid {record['pid']}) is not used: {why}; this stage runs in a "
              "process of its own", file=sys.stderr, flush=True)  # fmt: skip
        return None
    try:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(record["socket"])
    except OSError:
        return None  # a record left by a worker that is gone
    with connection:
        sys.stdout.flush()
        sys.stderr.flush()
        request = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "fingerprint": record["fingerprint"]}
        send(connection, request, fds=[sys.stdout.fileno(), sys.stderr.fileno()])
        answer = receive(connection)
        if answer is None:
            print(f"pipelines: the warm stage worker (pid {record['pid']}) ended during this stage; every job it "
                  "finished is kept, and `make study` again resumes", file=sys.stderr)  # fmt: skip
            return 1
        if "busy" in answer:
            return None
        return int(answer["exit"])


def read_record(root: Path) -> dict[str, Any] | None:
    try:
        record = json.loads(record_path(root).read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and {"pid", "socket", "fingerprint", "env"} <= record.keys() else None


def _stale(record: dict[str, Any]) -> str | None:
    """Why the worker of ``record`` must not run a stage of this process; ``None`` if it may."""
    if record["fingerprint"] != code_fingerprint():
        return "the code changed since it started"
    for name in SHARED_ENV:
        if record["env"].get(name) != os.environ.get(name):
            return f"it started with another {name}"
    return None


def send(connection: socket.socket, message: dict[str, Any], fds: list[int] | None = None) -> None:
    data = json.dumps(message).encode()
    payload = _HEADER.pack(len(data)) + data
    if fds:
        socket.send_fds(connection, [payload], fds)
    else:
        connection.sendall(payload)


def receive(connection: socket.socket, *, fds: int = 0) -> Any:
    """One message (``None`` when the other side closed first); with ``fds``, ``(message, fds)``."""
    received: list[int] = []
    buffer = b""
    while len(buffer) < _HEADER.size or len(buffer) < _HEADER.size + _HEADER.unpack(buffer[: _HEADER.size])[0]:
        if fds and not received:
            chunk, received, _, _ = socket.recv_fds(connection, 1 << 16, fds)
        else:
            chunk = connection.recv(1 << 16)
        if not chunk:
            return (None, received) if fds else None
        buffer += chunk
    message = json.loads(buffer[_HEADER.size :])
    return (message, received) if fds else message


# The driver's side ----------------------------------------------------------------------------------------------


@contextlib.contextmanager
def running(root: Path, workers: int, env: dict[str, str]) -> Iterator[dict[str, Any] | None]:
    """A warm worker for the study at ``root`` while the block runs, started with the stages' environment ``env``
    (its record; ``None`` if it is off or did not start, and then every stage runs in its own process); stopped at
    the end with its pool. ``workers``: its process pool's size (``runner.workers``; 0: no pool)."""
    record = record_path(root)
    _stop(record)  # one left by a driver that was killed
    if env.get(OFF, "").lower() in OFF_VALUES:
        yield None
        return
    record.parent.mkdir(parents=True, exist_ok=True)
    log = record.parent / "worker.log"
    command = [sys.executable, "-m", "pipelines.worker", "--root", str(root), "--workers", str(workers),
               "--parent", str(os.getpid())]  # fmt: skip
    with open(log, "ab") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=root, env=env,
            start_new_session=True,
        )  # fmt: skip
    deadline = time.monotonic() + 30
    while read_record(root) is None and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield read_record(root)
    finally:
        record.unlink(missing_ok=True)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)  # it stops its pool and ends
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # whatever of its group is left


def _stop(record: Path) -> None:
    """End the worker ``record`` names (its whole process group: the pool too), if it still runs."""
    found = read_record(record.parent.parent) if record.is_file() else None
    record.unlink(missing_ok=True)
    if found is None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(int(found["pid"]), signal.SIGTERM)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            os.killpg(int(found["pid"]), 0)
            time.sleep(0.1)
        os.killpg(int(found["pid"]), signal.SIGKILL)
