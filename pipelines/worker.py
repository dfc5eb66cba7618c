"""The warm stage worker: one long-lived process that runs a study's stages, so that each stage does not pay again
for what every stage needs before its first game.

A stage run as a process of its own (``python -m pipelines expert gardner 0``, what ``dvc repro`` runs) imports
torch, Prefect, MLflow and ``mmc`` (6-7 s of CPU), then starts its task runner's worker processes, which import
the same again and load the compiled kernels: in the tiny study about 15 of a stage's 21 seconds. ``make study``
(the driver, :func:`pipelines.study.run_study`) therefore starts this worker beside the Prefect server, and each
stage command hands its work to it:

- **The worker** (``python -m pipelines.worker``) binds a local socket at once, then imports every stage module
  and starts its process pool (:func:`pipelines.runners.keep_pool`). It runs one stage at a time, each exactly as
  the stage's own process would (``pipelines.__main__.main`` with the command's arguments, working folder and
  environment), writing to the command's own stdout and stderr (passed over the socket), and answers with the
  exit status. It ends when the driver stops it, when the driver is gone, after a stage that failed, and when
  the command that handed it a stage dies (then at once, with its pool: nothing of that stage runs on).
- **The command** (:func:`hand_over`, the first thing ``python -m pipelines`` does for a stage) reads the
  worker's record (``.mmc-worker/worker.json`` in the study's folder). It hands the stage over only if the worker
  is **fresh**: the code it runs (``mmc``, ``pipelines`` and the installed game packages, hashed as files) is the
  code on disk now, and it talks to the same Prefect server. Otherwise, or with no worker, the stage runs in its
  own process as before; a stale worker is never used. Params are no part of freshness: the worker holds none,
  each stage reads ``params.yaml`` when it starts, in the worker as in a process of its own.

DVC stays the graph: ``dvc repro`` runs the same commands, a stage run alone runs in its own process, and a
kill of the worker (``kill -9``) fails the stage it was running and nothing else: every finished job of that
stage is kept (``pipelines.jobs``), and ``make study`` again resumes. ``MMC_WORKER=off`` runs every stage in its
own process.
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
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["STAGES", "code_fingerprint", "hand_over", "record_path", "running", "serve"]

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
    record = _read_record(Path.cwd())
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
        _send(connection, request, fds=[sys.stdout.fileno(), sys.stderr.fileno()])
        answer = _receive(connection)
        if answer is None:
            print(f"pipelines: the warm stage worker (pid {record['pid']}) ended during this stage; every job it "
                  "finished is kept, and `make study` again resumes", file=sys.stderr)  # fmt: skip
            return 1
        if "busy" in answer:
            return None
        return int(answer["exit"])


def _read_record(root: Path) -> dict[str, Any] | None:
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


def _send(connection: socket.socket, message: dict[str, Any], fds: list[int] | None = None) -> None:
    data = json.dumps(message).encode()
    payload = _HEADER.pack(len(data)) + data
    if fds:
        socket.send_fds(connection, [payload], fds)
    else:
        connection.sendall(payload)


def _receive(connection: socket.socket, *, fds: int = 0) -> Any:
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
    while _read_record(root) is None and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield _read_record(root)
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
    found = _read_record(record.parent.parent) if record.is_file() else None
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


# The worker's side ----------------------------------------------------------------------------------------------


def serve(root: Path, workers: int, parent: int | None) -> None:
    """Run stages for the study at ``root`` until stopped (see the module docstring)."""
    fingerprint = code_fingerprint()
    folder = Path(tempfile.mkdtemp(prefix="mmc-worker-"))  # a short path: a socket's is limited to ~100 bytes
    address = str(folder / "socket")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(4)
    listener.settimeout(2.0)
    from pipelines import runners
    from pipelines.tracking import process_alive

    with _pool_output_relayed():
        warming = runners.keep_pool(workers) if workers else []  # its processes start importing beside this one
    _import_stages()
    for future in warming:
        future.result()
    record = record_path(root)
    env = {name: os.environ.get(name) for name in SHARED_ENV}
    _write_json(record, {"pid": os.getpid(), "socket": address, "fingerprint": fingerprint, "env": env})
    print(f"mmc worker {os.getpid()}: ready for {root} ({workers} pool processes)", flush=True)
    signal.signal(signal.SIGTERM, _exit_on_signal)
    try:
        while parent is None or process_alive(parent):
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            with connection:
                if not _run_one(connection, fingerprint):
                    break
    finally:
        with contextlib.suppress(OSError):
            if _read_record(root) and _read_record(root)["pid"] == os.getpid():  # type: ignore[index]
                record.unlink()
        listener.close()
        Path(address).unlink(missing_ok=True)
        folder.rmdir()
        runners.drop_pool()


def _run_one(connection: socket.socket, fingerprint: str) -> bool:
    """Run the stage a command sent; whether the worker may run another."""
    connection.settimeout(None)
    request, fds = _receive(connection, fds=2)
    if request is None or len(fds) != 2 or request.get("fingerprint") != fingerprint:
        for fd in fds:
            os.close(fd)
        return True
    started = time.monotonic()
    answered = threading.Event()
    watch = threading.Thread(target=_die_with, args=(connection, answered), daemon=True)
    code = _run_stage(request, fds, watch)
    answered.set()
    _send(connection, {"exit": code})
    print(f"mmc worker: {' '.join(request['argv'])}: exit status {code} in {time.monotonic() - started:.1f} s",
          flush=True)  # fmt: skip
    return code == 0  # a stage that failed may leave its pool busy or broken: the next one starts afresh


def _run_stage(request: dict[str, Any], fds: list[int], watch: threading.Thread) -> int:
    """``python -m pipelines ARGV`` in this process, in the command's folder and environment, writing to its
    stdout and stderr; its exit status."""
    from pipelines.__main__ import main

    saved_env, saved_cwd, saved_argv = dict(os.environ), os.getcwd(), sys.argv
    os.environ.clear()
    os.environ.update(request["env"])
    os.environ[OFF] = "off"  # main() runs the stage here, never hands it on
    code = 1
    try:
        with _output_to(*fds):
            try:
                os.chdir(request["cwd"])
                sys.argv = [sys.argv[0], *request["argv"]]
                watch.start()
                code = main(list(request["argv"]))
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
            except BaseException:  # the stage's error goes to its command's stderr, as in its own process
                traceback.print_exc()
                code = 1
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)
        sys.argv = saved_argv
    return code


def _die_with(connection: socket.socket, answered: threading.Event) -> None:
    """End this worker and its pool at once if the command that handed it a stage dies (the connection closes
    before the answer): nothing of a stage runs on without the command that ``dvc`` waits for."""
    with contextlib.suppress(OSError):
        connection.recv(1)
    if not answered.is_set():
        os.killpg(os.getpgid(0), signal.SIGKILL)


@contextlib.contextmanager
def _pool_output_relayed() -> Iterator[None]:
    """Within the block, stdout and stderr are a pipe whose lines this worker writes to its own stderr: the pool's
    processes, started in the block, keep it. Their output goes where the worker's stderr goes at the time: during
    a stage, to the stage command's (task runs log as in a stage's own process); between stages, to its log."""
    read, write = os.pipe()

    def relay() -> None:
        with open(read, "rb", buffering=0) as pipe:
            for line in iter(pipe.readline, b""):
                with contextlib.suppress(OSError):
                    os.write(2, line)

    threading.Thread(target=relay, daemon=True).start()
    with _output_to(write, os.dup(write)):
        yield


@contextlib.contextmanager
def _output_to(out: int, err: int) -> Iterator[None]:
    """Within the block, this process's stdout and stderr (file descriptors 1 and 2) are ``out`` and ``err``,
    which it closes; afterwards they are what they were."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    os.dup2(out, 1)
    os.dup2(err, 2)
    os.close(out)
    os.close(err)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved:
            os.close(fd)


def _import_stages() -> None:
    """Import what every stage needs: torch, Prefect, MLflow, mmc and papermill, through the stage modules."""
    import pipelines.__main__
    import pipelines.adapt
    import pipelines.evaluate
    import pipelines.expert
    import pipelines.learn
    import pipelines.study_report  # noqa: F401


def _exit_on_signal(number: int, frame: object) -> None:
    raise SystemExit(128 + number)


def _write_json(path: Path, value: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(value) + "\n")
    temporary.replace(path)


def _main() -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m pipelines.worker", description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, required=True, help="the study's folder (where params.yaml is)")
    parser.add_argument("--workers", type=int, default=2, help="processes in the pool (runner.workers)")
    parser.add_argument("--parent", type=int, help="end when this process (the study driver) is gone")
    args = parser.parse_args()
    os.chdir(args.root)
    serve(args.root.resolve(), args.workers, args.parent)


if __name__ == "__main__":
    _main()
