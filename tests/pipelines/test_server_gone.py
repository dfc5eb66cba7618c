"""A stage whose Prefect server goes away while its jobs run stops in one line instead of waiting for ever: once the
server is gone, a process pool's task runs fail before they report a state and their futures never finish (a stage
once waited 1 h 40 min, its worker idle). The stage's finished jobs stay kept."""

from __future__ import annotations

import concurrent.futures
import http.server
import os
import signal
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prefect.futures import PrefectConcurrentFuture

from pipelines.__main__ import _service_error
from pipelines.jobs import ServerGoneError, completed


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/api/health" else 404)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def live_server() -> Iterator[str]:
    """A server that answers Prefect's health check, and nothing else."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api"
    server.shutdown()
    server.server_close()


def _future() -> tuple[PrefectConcurrentFuture[int], concurrent.futures.Future[int]]:
    inner: concurrent.futures.Future[int] = concurrent.futures.Future()
    return PrefectConcurrentFuture(uuid.uuid4(), inner), inner


def test_a_gone_server_stops_the_wait_in_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}/api"
    monkeypatch.setenv("PREFECT_API_URL", url)
    done, inner = _future()
    never, _ = _future()
    inner.set_result(7)
    got = []
    with pytest.raises(ServerGoneError) as raised:
        for future in completed([done, never], tmp_path, every=0.2, recheck=0.1):
            got.append(future)
    assert got == [done]  # what finished before the server went is handed on (and kept by the store)
    assert str(raised.value) == (
        f"the Prefect server at {url} stopped answering with 1 unfinished job of this stage; the jobs finished before "
        f"are kept in {tmp_path}: start the server (make study starts one) and run the stage again"
    )


def test_a_live_server_lets_a_long_job_finish(
    monkeypatch: pytest.MonkeyPatch, live_server: str, tmp_path: Path
) -> None:
    monkeypatch.setenv("PREFECT_API_URL", live_server)
    slow, inner = _future()
    timer = threading.Timer(1.0, inner.set_result, (3,))  # five health checks pass before it finishes
    timer.start()
    assert list(completed([slow], tmp_path, every=0.2, recheck=0.1)) == [slow]
    timer.join()


def test_the_wait_arms_no_alarm_that_interrupts_the_caller_between_two_jobs(
    monkeypatch: pytest.MonkeyPatch, live_server: str, tmp_path: Path
) -> None:
    """A stage saves each finished job between two futures: that work outlives the wait's health-check period, and
    nothing may interrupt it (Prefect's ``as_completed(timeout=...)`` arms a SIGALRM timer in the main thread for as
    long as its generator lives: a study's evaluate stage crashed with ``CancelledError`` while saving a job)."""
    monkeypatch.setenv("PREFECT_API_URL", live_server)
    assert threading.current_thread() is threading.main_thread()
    futures = [_future() for _ in range(3)]
    timers = [threading.Timer(0.1 * (i + 1), inner.set_result, (i,)) for i, (_, inner) in enumerate(futures)]
    for timer in timers:
        timer.start()
    got = []
    for future in completed([f for f, _ in futures], tmp_path, every=0.2, recheck=0.1):
        time.sleep(0.5)  # saving the job's files: longer than the health-check period
        got.append(future.result())
    assert sorted(got) == [0, 1, 2]
    time.sleep(0.5)  # and no alarm is left behind either
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    for timer in timers:
        timer.join()


def test_the_stage_command_names_the_gone_server_under_prefects_own_failure() -> None:
    try:
        try:
            raise ServerGoneError("the Prefect server at http://127.0.0.1:1/api stopped answering")
        except ServerGoneError:
            raise ConnectionError("Prefect could not report the flow's failure") from None
    except ConnectionError as error:
        found = _service_error(error)
    assert isinstance(found, ServerGoneError) and "stopped answering" in str(found)
    assert _service_error(ValueError("a bug")) is None
    try:  # the server went after the stage's jobs: Prefect's own call is refused
        try:
            raise httpx.ConnectError("[Errno 111] Connection refused")
        except httpx.ConnectError as refused:
            raise RuntimeError("Failed to reach API") from refused
    except RuntimeError as error:
        line = _service_error(error)
    assert line == (
        f"the Prefect server at {os.environ['PREFECT_API_URL']} stopped answering ([Errno 111] Connection refused); "
        "the stage's finished jobs are kept: start the server (make study starts one) and run the stage again"
    )
