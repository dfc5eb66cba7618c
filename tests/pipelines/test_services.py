"""Each study's servers are its own (``pipelines.services``): the port a server takes (its own, the default, the next
free), and the MLflow UI's when its default is held. Two real studies side by side, the second one's Prefect server
on a port of its own and each one's flow runs in its own server only: ``test_anywhere.py``.

The studies here never try 4200 or 5000 (a developer's study may run there): ``MMC_PREFECT_PORT`` and
``MMC_MLFLOW_PORT`` make a free port the default. Their subprocesses run without ``PREFECT_API_URL``,
``PREFECT_HOME`` and ``MLFLOW_UI_PORT`` (which conftest sets for this process), so that ``pipelines`` chooses the
address as it does for a user.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipelines import choose_port, running_server
from pipelines.paths import Paths
from pipelines.services import mlflow_ui_port, start_mlflow_ui, stop_pid_file
from tests.pipelines.conftest import TINY_PARAMS, tool_env

CHOSEN = ("PREFECT_API_URL", "PREFECT_HOME", "MLFLOW_UI_PORT", "MMC_PREFECT_PORT", "MMC_MLFLOW_PORT")
"""The variables that would choose a study's addresses for it: unset in its environment."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _study(folder: Path) -> Path:
    """A study folder: its own project (``.dvc/``) with the tiny params."""
    (folder / ".dvc").mkdir(parents=True)
    shutil.copy2(TINY_PARAMS, folder / "params.yaml")
    return folder


def _env(prefect_port: int, mlflow_port: int) -> dict[str, str]:
    env = {name: value for name, value in tool_env().items() if name not in CHOSEN}
    return {**env, "MMC_PREFECT_PORT": str(prefect_port), "MMC_MLFLOW_PORT": str(mlflow_port)}


def _gone(pid: int, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.2)
    return False


@contextlib.contextmanager
def _listening() -> Iterator[int]:
    """A port that another program (a plain HTTP server in this process) holds while the block runs."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def test_a_port_is_the_own_servers_the_default_or_the_next_free(tmp_path: Path) -> None:
    pid_file = tmp_path / "server.pid"
    with _listening() as held:
        assert choose_port(pid_file, held)[1] == "held" and choose_port(pid_file, held)[0] > held
    assert choose_port(pid_file, held) == (held, "default")
    sleeper = subprocess.Popen(["sleep", "60"])
    cmdline = Path(f"/proc/{sleeper.pid}/cmdline")
    deadline = time.monotonic() + 10  # a process's command line shows a moment after Popen returns (under load)
    while cmdline.exists() and not cmdline.read_bytes() and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        pid_file.write_text(json.dumps({"pid": sleeper.pid, "command": ["sleep", "60"], "port": 4321}))
        assert choose_port(pid_file, held) == (4321, "own")
        # The same pid running another command is not the study's server (a pid reused after a reboot).
        pid_file.write_text(json.dumps({"pid": sleeper.pid, "command": ["/x/prefect", "server", "--port", "4321"]}))
        assert running_server(pid_file) is None and choose_port(pid_file, held) == (held, "default")
    finally:
        sleeper.kill()
        sleeper.wait()
    assert running_server(pid_file) is None


@pytest.mark.slow  # an MLflow UI: seconds to start
def test_the_mlflow_ui_takes_another_port_when_its_default_is_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    paths = Paths(_study(tmp_path / "study"))
    monkeypatch.delenv("MLFLOW_UI_PORT", raising=False)
    with _listening() as held:
        monkeypatch.setenv("MMC_MLFLOW_PORT", str(held))
        try:
            port = start_mlflow_ui(paths)
            record = json.loads((paths.mlflow_ui_dir / "ui.pid").read_text())
            assert port != held and record["port"] == port and record["url"] == f"http://127.0.0.1:{port}"
            err = capfd.readouterr().err
            assert f"pipelines: port {held} is held by another " in err and f"MLflow UI takes port {port}\n" in err
            assert start_mlflow_ui(paths) == port and mlflow_ui_port(paths) == (port, "own")
            assert "is held by" not in capfd.readouterr().err
        finally:
            stop_pid_file(paths.mlflow_ui_dir / "ui.pid")
    assert _gone(int(record["pid"]))
