"""The study end to end in a temporary git repository of this working tree, on the tiny profile.

``python -m pipelines study`` (what ``make study`` runs) and a bare ``dvc repro``, killed with ``kill -9`` and
run again, against this session's Prefect server, with MLflow and DVC in the temporary project.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import mlflow
import pytest
import torch
import yaml
from mlflow.tracking import MlflowClient

from mmc.nn import load_checkpoint
from pipelines.files import sha256
from pipelines.paths import Paths

from .conftest import TINY_PARAMS, make_project, tool_env
from .helpers import flow_run, mlflow_runs, task_runs, write_params

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("pipelines")]


def _run(project: Path, *command: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(command), cwd=project, env=tool_env(), capture_output=True, text=True, timeout=timeout)


def _dvc_status(project: Path) -> dict[str, object]:
    done = _run(project, "dvc", "status", "--json")
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_make_study_end_to_end(prefect_server: str, tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    paths = Paths(project)
    done = _run(project, sys.executable, "-m", "pipelines", "study")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "expert-gardner vs random:" in done.stdout and "expert-gardner vs greedy:" in done.stdout

    # DVC: both stages locked, everything up to date, metrics and plots readable
    lock = yaml.safe_load((project / "dvc.lock").read_text())["stages"]
    assert set(lock) == {"expert@gardner", "evaluate@gardner"}
    assert {o["path"] for o in lock["expert@gardner"]["outs"]} >= {"data/selfplay/gardner", "models/expert/gardner"}
    assert lock["expert@gardner"]["params"]["params.yaml"]["expert.generations"] == 2
    assert _dvc_status(project) == {}
    metrics = json.loads(_run(project, "dvc", "metrics", "show", "--json").stdout)
    shown = json.dumps(metrics)
    assert '"random"' in shown and '"ci_high"' in shown and '"final_loss_policy"' in shown
    assert _run(project, "dvc", "plots", "show", "-o", str(tmp_path / "plots")).returncode == 0
    page = (tmp_path / "plots" / "index.html").read_text()
    assert "#plots_losses_gardner_csv" in page and "#plots_arena_gardner_csv" in page
    for generation in (0, 1):
        manifest = json.loads(paths.manifest("gardner", generation).read_text())
        assert all((project / name).is_file() for name in manifest["files"])
    evaluation = json.loads(paths.evaluation_metrics("gardner").read_text())
    assert {k: v["games"] for k, v in evaluation.items()} == {"random": 4, "greedy": 4}

    # MLflow: one parent, a child per stage and variant, tagged; the registered champion loads
    runs = mlflow_runs(project)
    (parent,) = [r for r in runs if r.data.tags.get("mmc.kind") == "study"]
    children = {
        r.data.tags["dvc_stage"]: r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id
    }
    assert set(children) == {"expert@gardner", "evaluate@gardner"} and len(runs) == 3
    head = _run(project, "git", "rev-parse", "HEAD").stdout.strip()
    for run in [parent, *children.values()]:
        assert run.info.status == "FINISHED" and run.data.tags["mlflow.source.git.commit"] == head
    assert parent.data.params["expert.generations"] == "2" and parent.data.metrics["gardner.random.games"] == 4
    client = MlflowClient(paths.mlflow_uri)
    assert [m.step for m in client.get_metric_history(children["expert@gardner"].info.run_id, "arena_score")] == [0, 1]
    assert children["evaluate@gardner"].data.metrics["greedy.games"] == 4
    mlflow.set_tracking_uri(paths.mlflow_uri)
    model = mlflow.pytorch.load_model("models:/expert-gardner@champion")
    champion, _ = load_checkpoint(paths.champion("gardner"))
    assert all(
        torch.equal(a, b) for a, b in zip(model.state_dict().values(), champion.state_dict().values(), strict=True)
    )

    # Prefect: the flow run of each stage is the one its MLflow run names, with a completed task run per
    # chunk, generation and stage
    expert_id = children["expert@gardner"].data.tags["prefect_flow_run_id"]
    evaluate_id = children["evaluate@gardner"].data.tags["prefect_flow_run_id"]
    assert flow_run(prefect_server, expert_id)["name"] == "expert-gardner"
    assert flow_run(prefect_server, expert_id)["state_type"] == "COMPLETED"
    expert_tasks = task_runs(prefect_server, expert_id)
    assert set(expert_tasks.values()) == {"COMPLETED"}
    assert {name.rsplit("-chunk", 1)[0] for name in expert_tasks} == {
        f"{stage}-gardner-gen00{g}" for stage in ("self-play", "train", "arena") for g in (0, 1)
    }
    assert task_runs(prefect_server, evaluate_id) == {
        "evaluate-gardner-vs-random": "COMPLETED",
        "evaluate-gardner-vs-greedy": "COMPLETED",
    }

    # a parameter change reruns only what depends on it
    params = project / "params.yaml"
    original = params.read_text()
    write_params(project, TINY_PARAMS, {"evaluate.games": 6})
    assert set(_dvc_status(project)) == {"evaluate@gardner"}
    write_params(project, TINY_PARAMS, {"expert.variants": {"gardner": {}, "baby": {}}})
    assert set(_dvc_status(project)) == {"expert@baby", "evaluate@baby"}
    write_params(project, TINY_PARAMS, {"expert.variants": {"gardner": {"generations": 3}, "baby": {}}})
    assert set(_dvc_status(project)) == {"expert@gardner", "expert@baby", "evaluate@baby"}
    params.write_text(original)
    assert _dvc_status(project) == {}


def test_kill_9_then_resume(prefect_server: str, tmp_path: Path) -> None:
    """kill -9 of `dvc repro` once generation 0 is done; the rerun keeps it byte for byte and finishes."""
    project = make_project(tmp_path / "project")
    write_params(project, TINY_PARAMS, {"expert.generations": 4, "search.simulations": 8})
    paths = Paths(project)
    repro = subprocess.Popen(
        ["dvc", "repro"],
        cwd=project,
        env=tool_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    while not paths.manifest("gardner", 0).is_file():
        assert repro.poll() is None and time.monotonic() < deadline, "dvc repro ended before generation 0 was done"
        time.sleep(0.05)
    os.killpg(repro.pid, signal.SIGKILL)
    repro.wait()
    assert not paths.manifest("gardner", 3).exists(), "killed too late to test anything"
    kept = {
        p: (p.stat().st_mtime_ns, sha256(p))
        for p in (
            *paths.generation_dir("gardner", 0).iterdir(),
            *paths.models_dir("gardner").glob("gen_000*"),
            paths.initial_model("gardner"),
        )
    }

    done = _run(project, "dvc", "repro")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert {p: (p.stat().st_mtime_ns, sha256(p)) for p in kept} == kept
    assert json.loads(paths.expert_metrics("gardner").read_text())["generations"] == 4
    assert not list(project.rglob(".*.tmp"))
    assert _dvc_status(project) == {}
    assert paths.evaluation_metrics("gardner").is_file()
    # the killed stage's MLflow run is marked as such by the next study driver
    from pipelines.tracking import close_orphans

    assert len(close_orphans(paths)) >= 1
    assert {r.info.status for r in mlflow_runs(project)} <= {"FINISHED", "KILLED"}
