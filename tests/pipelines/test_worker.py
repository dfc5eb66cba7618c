"""The warm stage worker (``pipelines.worker``, started and used through ``pipelines.handover``): stages handed to it,
a stale one never used, and kills.

The driver's own use of it (every stage of ``make study`` in one worker) is checked on the session's tiny study
(``test_study.py::test_make_study_end_to_end``); its results equal a run without it (BENCHMARKS.md, issue 45).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipelines import handover
from pipelines.files import sha256
from pipelines.paths import Paths

from .conftest import TINY_PARAMS, make_project, tool_env
from .helpers import mlflow_runs, write_params

pytestmark = pytest.mark.slow  # a Prefect server per test worker: these tests spread over the workers


def _stage(project: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipelines", *command], cwd=project, env=tool_env(), capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip


def _stage_pid(project: Path, stage: str) -> str:
    """The process (``mmc.pid``) that ran the newest MLflow run of DVC stage ``stage``."""
    runs = [r for r in mlflow_runs(project) if r.data.tags.get("dvc_stage") == stage]
    return str(max(runs, key=lambda r: r.info.start_time).data.tags["mmc.pid"])


def _gone(pid: int, seconds: float = 30) -> bool:
    """Whether process ``pid`` ends within ``seconds`` (a zombie, ended but not yet collected by its parent, has)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.1)
    return False


def test_a_stage_runs_in_the_warm_worker_only_while_the_code_it_runs_is_unchanged(
    prefect_server: str, tmp_path: Path
) -> None:
    project = make_project(tmp_path / "project")
    paths = Paths(project)
    with handover.running(project, 2, tool_env()) as record:
        assert record is not None and handover.record_path(project).is_file()
        pid = str(record["pid"])

        done = _stage(project, "expert", "gardner", "0")
        assert done.returncode == 0, done.stderr[-3000:]
        assert _stage_pid(project, "expert@gardner-0") == pid
        assert "Task run 'self-play-gardner-gen000-chunk00' - Finished" in done.stderr  # the pool's logs, relayed

        # params are read by each stage, in the worker as in a process of its own: a change needs no new worker
        write_params(project, TINY_PARAMS, {"expert.generations": 1})
        done = _stage(project, "expert", "gardner", "1")
        assert done.returncode == 0, done.stderr[-3000:]
        assert _stage_pid(project, "expert@gardner-1") == pid
        assert json.loads(paths.expert_metrics("gardner", 1).read_text())["generations"] == 1

        # a bad parameter reaches the command as from its own process: one line, exit status 2
        write_params(project, TINY_PARAMS, {"expert.gamez": 1})
        done = _stage(project, "expert", "gardner", "0")
        assert done.returncode == 2 and done.stderr.strip().splitlines()[-1].startswith("params.yaml: expert")
        assert _gone(int(pid)), "a worker whose stage failed ends"

    # the command that handed over a stage is killed: its worker ends at once, and nothing of the stage runs on
    write_params(project, TINY_PARAMS, {"expert.generations": 8, "search.simulations": 8})
    jobs = paths.jobs("expert", "gardner-r1")
    with handover.running(project, 2, tool_env()) as record:
        assert record is not None
        command = subprocess.Popen([sys.executable, "-m", "pipelines", "expert", "gardner", "1"], cwd=project,
                                   env=tool_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        deadline = time.monotonic() + 300
        while not (jobs / "self-play-gardner-gen001-chunk00.done.json").is_file():
            assert command.poll() is None and time.monotonic() < deadline, "the stage ended before it was killed"
            time.sleep(0.02)
        command.kill()
        command.wait()
        assert _gone(int(record["pid"]))
        written = sorted(jobs.iterdir())
        time.sleep(3)
        assert sorted(jobs.iterdir()) == written and not (jobs / "train-gardner-gen007.done.json").exists()

    with handover.running(project, 2, tool_env()) as record:
        assert record is not None
        write_params(project, TINY_PARAMS, {})
        with (project / "mmc" / "alphazero.py").open("a") as code:
            code.write("\n# an edit after the worker started\n")
        done = _stage(project, "expert", "gardner", "0")
        assert done.returncode == 0, done.stderr[-3000:]
        assert f"the warm stage worker (pid {record['pid']}) is not used: the code changed since it started" in (
            done.stderr
        )
        assert _stage_pid(project, "expert@gardner-0") not in (str(record["pid"]), pid)
    assert not handover.record_path(project).exists() and _gone(int(record["pid"]))


def test_a_worker_started_for_another_prefect_server_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    record = {
        "pid": 1,
        "socket": "",
        "fingerprint": handover.code_fingerprint(),
        "env": dict.fromkeys(handover.SHARED_ENV),
    }
    record["env"] |= {name: os.environ.get(name) for name in handover.SHARED_ENV}
    assert handover._stale(record) is None
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:1/api")
    assert handover._stale(record) == "it started with another PREFECT_API_URL"
    assert handover._stale({**record, "fingerprint": "0" * 64}) == "the code changed since it started"


def _children(pid: int) -> dict[int, str]:
    """The processes whose parent is ``pid``, with their command lines."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found[int(stat.parent.name)] = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError, ValueError):
            continue
    return found


def test_kill_9_of_the_worker_and_dvc_mid_stage_loses_nothing_and_the_study_resumes(
    prefect_server: str, tmp_path: Path
) -> None:
    """``make study``'s driver on one stage; once generation 0 is done, kill -9 of its warm worker and of ``dvc``.
    The driver fails with one line; run again, it resumes: the finished jobs are kept byte for byte."""
    project = make_project(tmp_path / "project")
    write_params(project, TINY_PARAMS, {"expert.generations": 4, "search.simulations": 8})
    paths = Paths(project)
    jobs = paths.jobs("expert", "gardner-r0")
    arena = [jobs / f"arena-gardner-gen000-chunk0{c}.done.json" for c in (0, 1)]
    study = [sys.executable, "-m", "pipelines", "study", "repro", "expert@gardner-0"]
    driver = subprocess.Popen(
        study, cwd=project, env=tool_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 300
    while not all(path.is_file() for path in arena):
        assert driver.poll() is None and time.monotonic() < deadline, "the study ended before it was killed"
        time.sleep(0.02)
    pid = int(json.loads(handover.record_path(project).read_text())["pid"])
    pool = list(_children(pid))
    assert len(pool) >= 2  # its process pool (runner.workers), and no more than its resource tracker
    (dvc,) = [child for child, command in _children(driver.pid).items() if "dvc" in command]
    os.kill(pid, signal.SIGKILL)
    os.kill(dvc, signal.SIGKILL)
    out, _ = driver.communicate(timeout=120)
    assert driver.returncode != 0 and "study failed" in out
    assert not (jobs / "train-gardner-gen003.done.json").exists(), "killed too late to test anything"
    assert not handover.record_path(project).exists() and _gone(pid)
    assert all(_gone(child) for child in pool)  # the driver ends the worker's whole process group
    kept = {p: (p.stat().st_mtime_ns, sha256(p)) for p in jobs.iterdir() if p.is_file() and "-gen000" in p.name}
    assert len(kept) == 2 * 3 + 3 + 2 * 2  # self-play chunks (npz, pgn, done), candidate (pt, json, done), arena

    again = subprocess.run(study, cwd=project, env=tool_env(), capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert {p: (p.stat().st_mtime_ns, sha256(p)) for p in kept} == kept
    assert json.loads(paths.expert_metrics("gardner", 0).read_text())["generations"] == 4
    assert not list(project.rglob(".*.tmp"))
    stage = sorted((r for r in mlflow_runs(project) if r.data.tags.get("mmc.stage") == "expert"),
                   key=lambda r: r.info.start_time)  # fmt: skip
    assert [r.info.status for r in stage] == ["KILLED", "FINISHED"]  # the killed run, closed by the next driver
    assert stage[0].data.tags["mmc.pid"] == str(pid)
