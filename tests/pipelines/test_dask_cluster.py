"""The Dask recipe of docs/guides/dask.md end to end: a ``dask scheduler`` and a ``dask worker`` started as separate
programs outside the project, and a stage run through the command line with ``runner: {kind: dask, address: ...}``.

The cluster gets this virtual environment and nothing else: no project folder on its path, no Prefect
variables (each task carries the flow's Prefect settings). It imports ``pipelines`` because the package installs it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import BIN, TINY_PARAMS, _free_port, make_project, tool_env

pytestmark = pytest.mark.slow  # a Prefect server per test worker: these tests spread over the workers

WORKERS = 2


def _cluster_env() -> dict[str, str]:
    """The test's environment without its Prefect variables: the cluster must not need them."""
    env = tool_env()
    for name in ("PREFECT_API_URL", "PREFECT_HOME"):
        env.pop(name, None)
    return env


def _start(command: list[str], folder: Path, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            command, cwd=folder, env=_cluster_env(), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM (dask closes its worker processes), then SIGKILL to the process group it leads if it hangs."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


def _tail(log: Path, lines: int = 40) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.exists() else ""


@pytest.fixture
def dask_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """``(address, folder)`` of a scheduler and ``WORKERS`` single-threaded workers on 127.0.0.1, started in a
    temporary folder; stopped afterwards, also when the test fails."""
    from distributed import Client

    folder = tmp_path_factory.mktemp("dask-cluster")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    worker_args = ["worker", address, "--nthreads", "1", "--nworkers", str(WORKERS), "--no-dashboard"]
    worker_args += ["--local-directory", str(folder / "scratch")]  # not the shared /tmp/dask-scratch-space
    with ExitStack() as stack:
        scheduler_args = ["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]
        stack.callback(_stop, _start([str(BIN / "dask"), *scheduler_args], folder, folder / "scheduler.log"))
        # started second, so stopped first: the workers go before their scheduler
        stack.callback(_stop, _start([str(BIN / "dask"), *worker_args], folder, folder / "worker.log"))
        with Client(address, timeout=60) as client:
            client.wait_for_workers(WORKERS, timeout=120)
        yield address, folder


def test_expert_stage_runs_on_a_dask_cluster_started_outside_the_project(
    prefect_server: str, dask_cluster: tuple[str, Path], tmp_path: Path
) -> None:
    from distributed import Client

    address, folder = dask_cluster
    params = yaml.safe_load(TINY_PARAMS.read_text())
    params["runner"] = {**params["runner"], "kind": "dask", "address": address}
    # no Fairy-Stockfish needed: this test is about where the tasks run
    params["evaluate"]["opponents"] = [o for o in params["evaluate"]["opponents"] if not o.startswith("fairy")]
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    project = make_project(tmp_path / "project", tmp_path / "params.yaml")

    run = subprocess.run(
        [str(BIN / "python"), "-m", "pipelines", "expert", "gardner"],
        cwd=project,
        env=tool_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    logs = f"{run.stdout[-3000:]}\n{run.stderr[-6000:]}\n--- scheduler\n{_tail(folder / 'scheduler.log')}"
    assert run.returncode == 0, logs
    assert (project / "models" / "champion" / "r0" / "gardner.pt").is_file()  # the first replicate by default
    assert (project / "metrics" / "expert" / "gardner-r0.json").is_file()

    # the fanned-out tasks ran in the cluster's worker processes, which imported the installed pipelines
    def executed(dask_worker: Any) -> dict[str, Any]:  # nested: sent by value, the workers cannot import tests/
        return {
            "executed": dask_worker.state.executed_count,
            "pipelines": getattr(sys.modules.get("pipelines"), "__file__", None),
        }

    with Client(address, timeout=60) as client:
        workers = client.run(executed)
    assert len(workers) == WORKERS
    assert sum(w["executed"] for w in workers.values()) >= 2, (workers, _tail(folder / "worker.log"))
    ran = [w for w in workers.values() if w["executed"]]
    assert all(w["pipelines"] and project not in Path(w["pipelines"]).parents for w in ran), workers
