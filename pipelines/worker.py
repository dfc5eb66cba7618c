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
- **The command** (:func:`pipelines.handover.hand_over`, the first thing ``python -m pipelines`` does for a stage)
  reads the worker's record (``.mmc-worker/worker.json`` in the study's folder). It hands the stage over only if
  the worker is **fresh**: the code it runs (``mmc``, ``pipelines`` and the installed game packages, hashed as
  files) is the code on disk now, and it talks to the same Prefect server. Otherwise, or with no worker, the stage
  runs in its own process as before; a stale worker is never used. Params are no part of freshness: the worker
  holds none, each stage reads ``params.yaml`` when it starts, in the worker as in a process of its own.

DVC stays the graph: ``dvc repro`` runs the same commands, a stage run alone runs in its own process, and a
kill of the worker (``kill -9``) fails the stage it was running and nothing else: every finished job of that
stage is kept (``pipelines.jobs``), and ``make study`` again resumes. ``MMC_WORKER=off`` runs every stage in its
own process.

This module is the worker's side; the command's and the driver's (:func:`pipelines.handover.running` starts and stops
the worker) are :mod:`pipelines.handover`, which imports no stage.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pipelines.handover import OFF, SHARED_ENV, code_fingerprint, read_record, receive, record_path, send

__all__ = ["PRELOAD", "serve"]

PRELOAD = ("torch._dynamo", "pipelines.jobs")
"""What each process of the worker's pool imports when it starts (``pipelines.runners.keep_pool``): torch's compiler
(the first optimizer of a process imports it: 1.5 s) and the jobs' code (torch, numpy and ``mmc``: what every job
needs)."""


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
        # its processes start importing beside this one
        warming = runners.keep_pool(workers, PRELOAD) if workers else []
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
            if read_record(root) and read_record(root)["pid"] == os.getpid():  # type: ignore[index]
                record.unlink()
        listener.close()
        Path(address).unlink(missing_ok=True)
        folder.rmdir()
        runners.drop_pool()


def _run_one(connection: socket.socket, fingerprint: str) -> bool:
    """Run the stage a command sent; whether the worker may run another."""
    connection.settimeout(None)
    request, fds = receive(connection, fds=2)
    if request is None or len(fds) != 2 or request.get("fingerprint") != fingerprint:
        for fd in fds:
            os.close(fd)
        return True
    started = time.monotonic()
    answered = threading.Event()
    watch = threading.Thread(target=_die_with, args=(connection, answered), daemon=True)
    code = _run_stage(request, fds, watch)
    answered.set()
    send(connection, {"exit": code})
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
