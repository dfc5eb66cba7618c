"""The study end to end in a temporary git repository of this working tree, on the tiny profile.

``python -m pipelines study`` (what ``make study`` runs; the session's ``tiny_study``, run once) and a bare ``dvc
repro``, killed with ``kill -9`` and run again, against this session's Prefect server, with MLflow and DVC in the
temporary project. A test that changes the study works on a copy of it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import mlflow
import pandas as pd
import pytest
import torch
import yaml
from mlflow.tracking import MlflowClient

from mmc.evaluation.comparison import VERDICTS
from mmc.evaluation.evaluate import cell_names, match_name
from mmc.meta import load_focus
from mmc.nn import load_checkpoint
from pipelines import handover, timing
from pipelines.config import load_params
from pipelines.files import sha256
from pipelines.paths import Paths
from pipelines.report import external_resources

from .conftest import TINY_PARAMS, TinyStudy, copy_project, tool_env
from .helpers import flow_run, mlflow_runs, task_runs, write_params

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("pipelines")]  # the tiny study: made once, on one worker
TARGETS = ("gardner", "dark", "los_alamos")
"""The tiny profile's targets."""


def _run(project: Path, *command: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(command), cwd=project, env=tool_env(), capture_output=True, text=True, timeout=timeout)


def _dvc_status(project: Path) -> dict[str, object]:
    """The default study's stages that are not up to date (``dvc status`` alone also lists the family studies'
    under ``studies/``, which these tests never run)."""
    done = _run(project, "dvc", "status", "--json", "dvc.yaml")
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


LEARNERS = ("joat", "multitask", "metafocus")
"""The tiny profile's learners: one stage each per replicate."""
STAGES = {
    *(f"{learner}@{r}" for learner in LEARNERS for r in (0, 1)),
    *(f"expert@gardner-{r}" for r in (0, 1)),
    *(f"adapt@{t}-{r}" for t in TARGETS for r in (0, 1)),
    *(f"evaluate@{t}" for t in TARGETS),
    "report",
}  # fmt: skip
"""The tiny profile's DVC stages (targets gardner and dark, in meta-training, and los_alamos, held out; replicates 0
and 1 of every training stage)."""
FAIRY_TARGETS = ("gardner", "los_alamos")
"""The tiny targets Fairy-Stockfish plays (the others have no fairy cell and no fairy anchor)."""


def stage_command(stage: str) -> list[str]:
    """The arguments of ``python -m pipelines`` that run DVC stage ``stage`` (``adapt@los_alamos-1``)."""
    name, _, item = stage.partition("@")
    if name in ("expert", "adapt"):
        variant, _, replicate = item.rpartition("-")
        return [name, variant, replicate]
    if name in LEARNERS:
        return ["learn", name, item]
    return [name, *([item] if item else [])]


def _same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True))


def test_make_study_end_to_end(prefect_server: str, tiny_study: TinyStudy, tmp_path: Path) -> None:
    project = tiny_study.project
    paths = Paths(project)
    study = load_params(project / "params.yaml")
    assert "gardner: Elo (greedy = 0; mean of 2 replicate(s), 95% interval): joat b0" in tiny_study.stdout
    assert re.search(
        r"study finished in [0-9.]+ min \(dvc exit status 0\); CPU [0-9.]+ of \d+ cores", tiny_study.stdout
    )
    assert "los_alamos: at b2: joat-b2 - multitask-b2" in tiny_study.stdout

    # DVC: every stage locked, everything up to date, metrics and plots readable
    lock = yaml.safe_load((project / "dvc.lock").read_text())["stages"]
    assert set(lock) == STAGES
    assert {o["path"] for o in lock["joat@1"]["outs"]} >= {"data/jobs/learn/joat-r1", "models/starts/r1/joat.pt"}
    assert lock["expert@gardner-1"]["params"]["params.yaml"]["expert.generations"] == 2
    assert lock["evaluate@los_alamos"]["params"]["params.yaml"]["replicates"] == [0, 1]
    assert {o["path"] for o in lock["metafocus@1"]["outs"]} >= {"models/starts/r1/metafocus.state"}
    assert _dvc_status(project) == {}
    shown = _run(project, "dvc", "metrics", "show", "--json").stdout
    assert '"fairy_nodes_1"' in shown and '"unadapted"' in shown and '"final_loss"' in shown
    assert _run(project, "dvc", "plots", "show", "-o", str(tmp_path / "plots")).returncode == 0
    page = (tmp_path / "plots" / "index.html").read_text()
    assert "#plots_losses_gardner-r0_csv" in page and "#plots_arena_gardner-r1_csv" in page
    assert not external_resources(page)  # the charting library is in the page (.dvc/config's html_template)

    # meta-training: every task's games and every training kept as finished jobs; the inner losses per generation
    for kind, trains in (("joat", ["gardner", "dark"]), ("multitask", ["pooled"])):
        kept = {p.name.removesuffix(".done.json") for p in paths.jobs("learn", f"{kind}-r1").glob("*.done.json")}
        assert kept == {
            f"{job}-{task}-gen00{g}"
            for g in (0, 1)
            for job, tasks in (("self-play", ["gardner", "dark"]), ("train", trains))
            for task in tasks
        }
    losses = pd.read_csv(paths.learn_losses("joat", 0))
    assert set(zip(losses["stage"], losses["variant"], strict=True)) == {
        ("inner", "gardner"), ("inner", "dark"), ("meta_train", "mean")
    }  # fmt: skip

    # adaptation: a model per target, replicate, start and budget; budget 0 is the start itself
    starts = {
        "joat": paths.start_model("joat", 1),
        "multitask": paths.start_model("multitask", 1),
        "expert-gardner": paths.champion("gardner", 1),
    }
    for target in TARGETS:
        for start in study.adapt.starts:
            for budget in (0, 2):
                # MetaFocus has no budget-0 model: with no games to adapt on it is JOAT
                assert paths.adapted(target, 0, start, budget).is_file() == (start != "metafocus" or budget > 0)
            if start in starts:
                unchanged = load_checkpoint(paths.adapted(target, 1, start, 0))[0]
                assert _same_weights(unchanged, load_checkpoint(starts[start])[0])
        assert not _same_weights(
            load_checkpoint(paths.adapted(target, 1, "joat", 2))[0], load_checkpoint(starts["joat"])[0]
        )
    # the replicates are trained from their own seeds
    assert not _same_weights(load_checkpoint(paths.start_model("joat", 0))[0], load_checkpoint(starts["joat"])[0])

    # evaluation: every cell, the counts add up; no fairy in dark, no unadapted opponent at budget 0
    table = pd.read_csv(paths.summary_table)
    columns = ["game", "start", "budget", "replicate", "player 1", "player 2", "wins", "draws", "losses"]
    assert list(table.columns[:9]) == columns
    assert ((table["wins"] + table["draws"] + table["losses"]) == table["games"]).all()
    assert (table["games"] == study.evaluate.config.games).all()
    cells = {(r.game, r.start, r.budget, r.replicate, r["player 2"]) for _, r in table.iterrows()}
    opponents = {
        t: ["random", "greedy", "unadapted", *(["fairy:nodes=1"] if t in FAIRY_TARGETS else [])] for t in TARGETS
    }
    assert cells == {
        (t, s, b, r, o)
        for t in TARGETS
        for s in study.adapt.starts
        for b in (0, 2)
        for r in (0, 1)
        for o in opponents[t]
        if not (o == "unadapted" and b == 0) and not (s == "metafocus" and b == 0)
    }
    evaluation = json.loads(paths.evaluation_metrics("gardner").read_text())
    assert evaluation["r1"]["joat"]["b2"]["greedy"]["games"] == study.evaluate.config.games
    # the ratings: every model and the anchors that play the target, greedy at 0; the comparisons
    for target in TARGETS:
        anchors = {"random", "mcts:4", "greedy", *(["fairy:nodes=1"] if target in FAIRY_TARGETS else [])}
        rated = json.loads(paths.ratings(target).read_text())
        kinds = {f"{s}-b{b}" for s in study.adapt.starts for b in (0, 2) if not (s == "metafocus" and b == 0)}
        assert set(rated["elo"]) == {f"{k}-r{r}" for k in kinds for r in (0, 1)} | anchors
        assert rated["elo"]["greedy"]["elo"] == 0 and set(rated["starts"]) == kinds
        assert {"joat-b2 - multitask-b2", "scratch-b2 - scratch-b0", "metafocus-b2 - joat-b2",
                "metafocus-b2 - joat-b0"} <= set(rated["comparisons"])  # fmt: skip

    # the mistake rates: every rated model of gardner on its mate suite, beside its Elo; no suite for the others
    mistakes = pd.read_csv(paths.mistake_table("gardner"))
    rated = json.loads(paths.ratings("gardner").read_text())["elo"]
    assert set(mistakes["player"]) == {p for p in rated if p.endswith(("-r0", "-r1"))}
    assert (mistakes["suite"] == "gardner-mates").all() and (mistakes["positions"] == 80).all()
    assert all(mistakes["elo"][i] == rated[p]["elo"] for i, p in enumerate(mistakes["player"]))
    assert "joat-b2 - multitask-b2" in json.loads(paths.mistake_metrics("gardner").read_text())["comparisons"]
    assert pd.read_csv(paths.mistake_comparison_table("gardner"))["verdict"].isin(VERDICTS).all()
    for target in ("dark", "los_alamos"):
        assert pd.read_csv(paths.mistake_table(target)).empty
        assert json.loads(paths.mistake_metrics(target).read_text()) == {"suite": None, "models": {},
                                                                          "comparisons": {}}  # fmt: skip

    # the report: offline HTML with every figure, the table and the run ids
    html = paths.report_html.read_text()
    assert html.index("The ladder") < html.index("Mistakes on solver-labelled positions") < html.index("Training")
    assert "suite <code>gardner-mates</code>, 80 positions, 80 of them critical" in html
    figures = re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,', html)
    assert len(figures) == 7, figures
    assert figures[-1] == "Wall seconds of each stage, stacked by what they went to"
    assert f"{len(STAGES) - 1} stages, " in html  # every stage of this run before the report
    assert any("losses" in f for f in figures) and any("inner-update" in f for f in figures)
    assert any("adaptation" in f for f in figures) and any("matchup" in f for f in figures)
    assert figures[0].startswith("Elo versus adaptation budget") and "Elo axis" in figures[1]
    assert html.index("Findings") < html.index("<img alt=") and "JOAT against multitask" in html
    assert html.index("Zero-shot (budget 0") < html.index("After adaptation (2 self-play games") < html.index("<img")
    assert "MetaFocus against JOAT" in html and "los_alamos</strong> (held out of meta-training)" in html
    assert "joat-b2-r1" in html and "fairy:nodes=1" in html and not external_resources(html)
    # the answer at a glance: the verdict table, then a headline per comparison and the resolution
    assert html.index("Findings") < html.index('class="verdict-table"') < html.index("Zero-shot (budget 0")
    assert "los_alamos (held out)</th>" in html and "JOAT - multitask: after adaptation (2 games), " in html
    assert "It rests on 2 training replicates per model (the intervals cover game and training noise" in html

    # MLflow: one parent, a child per stage, tagged; the registered models load
    runs = mlflow_runs(project)
    (parent,) = [r for r in runs if r.data.tags.get("mmc.kind") == "study"]
    children = {
        r.data.tags["dvc_stage"]: r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id
    }
    assert set(children) == STAGES and len(runs) == len(STAGES) + 1
    head = _run(project, "git", "rev-parse", "HEAD").stdout.strip()
    for run in [parent, *children.values()]:
        assert run.info.status == "FINISHED" and run.data.tags["mlflow.source.git.commit"] == head
    assert parent.data.params["meta.epsilon"] == "1.0"
    assert parent.data.metrics["gardner.r1.joat.b2.random.score"] >= 0
    assert "los_alamos.elo_mean.joat-b2" in parent.data.metrics and "dark.elo_mean.metafocus-b2" in parent.data.metrics
    assert parent.data.metrics["cpu_seconds"] > 0 and 0 < parent.data.metrics["cpu_utilisation"] <= 1.05
    # where the time went: each stage's parts add up to its wall time; the printout and the parent hold the whole
    for stage, run in children.items():
        metrics = run.data.metrics
        parts = [metrics.get(timing.metric(part, "wall"), 0.0) for part in timing.PARTS]
        assert abs(sum(parts) - metrics[timing.metric("stage", "wall")]) < 0.01, stage
        assert metrics[timing.metric("start", "wall")] < 5, stage  # no imports: the stage ran in the warm worker
    assert children["evaluate@gardner"].data.metrics[timing.metric("evaluation games vs fairy", "cpu")] > 0
    assert children["evaluate@gardner"].data.metrics[timing.metric("rating fits", "cpu")] > 0
    assert children["evaluate@gardner"].data.metrics[timing.metric("mistake rates", "cpu")] > 0
    assert timing.metric("mistake rates", "wall") not in children["evaluate@dark"].data.metrics
    assert children["expert@gardner-0"].data.metrics[timing.metric("self-play", "wall")] > 0
    assert children["report"].data.metrics[timing.metric("report", "wall")] > 0
    assert parent.data.metrics[timing.metric(timing.BETWEEN, "wall")] > 0
    assert "Where the time went" in tiny_study.stdout and re.search(r"  self-play +[0-9.]+ s wall", tiny_study.stdout)
    # every stage ran in the driver's one warm worker (pipelines.worker), which is gone with the study
    (pid,) = {r.data.tags["mmc.pid"] for r in children.values()}
    assert pid != parent.data.tags["mmc.pid"] and not handover.record_path(project).exists()
    ran = (project / ".mmc-worker" / "worker.log").read_text()
    assert all(f"{' '.join(stage_command(stage))}: exit status 0" in ran for stage in STAGES)
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid), 0)
    runs_json = json.loads((paths.report_inputs / "runs.json").read_text())
    assert runs_json["parent"] == parent.info.run_id
    assert set(runs_json["children"].values()) == {r.info.run_id for r in children.values()}
    client = MlflowClient(paths.mlflow_uri)
    meta_run = children["joat@1"].info.run_id
    assert [m.step for m in client.get_metric_history(meta_run, "inner.dark.loss_total")] == [0, 1]
    mlflow.set_tracking_uri(paths.mlflow_uri)
    for name, path in starts.items():
        model = mlflow.pytorch.load_model(f"models:/{name}@r1")
        assert _same_weights(model, load_checkpoint(path)[0])
    assert _same_weights(mlflow.pytorch.load_model("models:/metafocus@r1"), load_checkpoint(starts["joat"])[0])
    assert load_focus(paths.start_state("metafocus", 1) / "focus.pt").config.channels == study.network.filters
    artifacts = {a.path for a in client.list_artifacts(children["adapt@dark-1"].info.run_id, "models/joat_b002")}
    assert artifacts == {"models/joat_b002/joat_b002.pt", "models/joat_b002/joat_b002.json"}
    assert {a.path for a in client.list_artifacts(children["report"].info.run_id, "report")} >= {"report/study.html"}

    # Prefect: each stage's flow run is the one its MLflow run names, with completed task runs
    meta_id = children["joat@0"].data.tags["prefect_flow_run_id"]
    assert flow_run(prefect_server, meta_id)["state_type"] == "COMPLETED"
    assert set(task_runs(prefect_server, meta_id)) == {
        f"{job}-{v}-gen00{g}" for g in (0, 1) for job in ("self-play", "train") for v in ("gardner", "dark")
    }
    evaluate_id = children["evaluate@dark"].data.tags["prefect_flow_run_id"]
    evaluate_tasks = task_runs(prefect_server, evaluate_id)
    dark = table[table["game"] == "dark"]
    cells = {match_name("dark", r["player 1"], r["player 2"]) for _, r in dark.iterrows()}
    played = {cell for name in evaluate_tasks for cell in cell_names(name)}  # a model's cells are one job
    assert cells < played and set(evaluate_tasks.values()) == {"COMPLETED"}  # and the rating's games
    expert_id = children["expert@gardner-0"].data.tags["prefect_flow_run_id"]
    assert {name.rsplit("-chunk", 1)[0] for name in task_runs(prefect_server, expert_id)} == {
        f"{stage}-gardner-gen00{g}" for stage in ("self-play", "train", "arena") for g in (0, 1)
    }


def test_a_parameter_change_reruns_only_what_depends_on_it(tiny_study: TinyStudy, tmp_path: Path) -> None:
    project = copy_project(tiny_study.project, tmp_path / "project")
    params = project / "params.yaml"
    original = params.read_text()
    write_params(project, TINY_PARAMS, {"evaluate.games": 4})
    assert set(_dvc_status(project)) == {f"evaluate@{t}" for t in TARGETS} | {"report"}
    write_params(project, TINY_PARAMS, {"meta.epsilon": 0.5})
    assert set(_dvc_status(project)) == {"joat@0", "joat@1", "report"}  # multitask has no outer step
    write_params(project, TINY_PARAMS, {"learners.metafocus.learning_rate": 0.1})
    assert set(_dvc_status(project)) == {"metafocus@0", "metafocus@1", "report"}
    write_params(project, TINY_PARAMS, {"adapt.targets": [*TARGETS, "baby"]})
    assert set(_dvc_status(project)) == {"adapt@baby-0", "adapt@baby-1", "evaluate@baby", "report"}
    write_params(project, TINY_PARAMS, {"expert.variants": {"gardner": {}, "baby": {}}})
    assert set(_dvc_status(project)) == {"expert@baby-0", "expert@baby-1", "report"}
    # a third replicate trains only itself; every evaluation rates it with the others
    write_params(project, TINY_PARAMS, {"replicates": [0, 1, 2]})
    third = {"joat@2", "multitask@2", "metafocus@2", "expert@gardner-2", "report"}
    third |= {f"adapt@{t}-2" for t in TARGETS} | {f"evaluate@{t}" for t in TARGETS}
    assert set(_dvc_status(project)) == third
    params.write_text(original)
    assert _dvc_status(project) == {}


def test_a_failed_report_leaves_every_finished_result_usable(tiny_study: TinyStudy, tmp_path: Path) -> None:
    """A broken cell: the driver says in one line that the report alone failed; DVC, MLflow and the models keep
    everything the stages before it made."""
    project = copy_project(tiny_study.project, tmp_path / "project")
    paths = Paths(project)
    runs = mlflow_runs(project)
    notebook = project / "reports" / "study.ipynb"
    broken = json.loads(notebook.read_text())
    broken["cells"].append({"cell_type": "code", "execution_count": None, "id": "broken", "metadata": {},
                            "outputs": [], "source": ["raise RuntimeError('a broken cell')"]})  # fmt: skip
    notebook.write_text(json.dumps(broken))
    done = _run(project, sys.executable, "-m", "pipelines", "study", timeout=600)
    assert done.returncode != 0 and not paths.report_html.exists()
    (said,) = [line for line in done.stdout.splitlines() if line.startswith("the report failed")]
    assert "failed in cell" in said and "RuntimeError: a broken cell" in said and "`dvc metrics show`" in said
    assert set(_dvc_status(project)) == {"report"}  # nothing before the report is stale or lost
    assert '"fairy_nodes_1"' in _run(project, "dvc", "metrics", "show", "--json").stdout
    mlflow.set_tracking_uri(paths.mlflow_uri)
    assert _same_weights(mlflow.pytorch.load_model("models:/joat@r1"), load_checkpoint(paths.start_model("joat", 1))[0])
    again = [r for r in mlflow_runs(project) if r.data.tags.get("dvc_stage") == "report"]
    assert sorted(r.info.status for r in again) == ["FAILED", "FINISHED"]
    before = {r.info.run_id: r.info.status for r in runs if r.data.tags.get("mmc.kind") == "stage"}
    assert {r.info.run_id: r.info.status for r in mlflow_runs(project) if r.info.run_id in before} == before


def _repro_killed_once(project: Path, stage: str, ready: Callable[[], bool]) -> None:
    """Start `dvc repro STAGE` and kill -9 its whole process group as soon as ``ready()`` holds."""
    repro = subprocess.Popen(
        ["dvc", "repro", stage],
        cwd=project,
        env=tool_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    while not ready():
        assert repro.poll() is None and time.monotonic() < deadline, f"dvc repro {stage} ended before it was killed"
        time.sleep(0.02)
    os.killpg(repro.pid, signal.SIGKILL)
    repro.wait()


def test_the_rating_resumes_after_kill_9_without_replaying_finished_games(
    prefect_server: str, tiny_study: TinyStudy, tmp_path: Path
) -> None:
    """kill -9 of `dvc repro evaluate@dark` once some of its matches are kept; the rerun replays none of them. On a
    copy of the tiny study with more games per cell: every model is trained, the evaluation starts afresh."""
    project = copy_project(tiny_study.project, tmp_path / "project")
    write_params(project, TINY_PARAMS, {"evaluate.games": 8, "rate.games": 8, "rate.ladder_games": 8})
    paths = Paths(project)
    assert set(_dvc_status(project)) == {f"evaluate@{t}" for t in TARGETS} | {"report"}  # all training is done
    jobs = paths.jobs("evaluate", "dark")
    shutil.rmtree(jobs)  # the study's own matches (a persisted output): the kill must come after new ones are kept
    _repro_killed_once(project, "evaluate@dark", lambda: jobs.is_dir() and len(list(jobs.glob("*.done.json"))) >= 3)
    assert not paths.ratings("dark").exists(), "killed too late to test anything"
    kept = {p: (p.stat().st_mtime_ns, sha256(p)) for p in jobs.iterdir() if p.is_file()}
    finished = {p.name.removesuffix(".done.json") for p in kept if p.name.endswith(".done.json")}

    done = _run(project, "dvc", "repro", "evaluate@dark")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert {p: (p.stat().st_mtime_ns, sha256(p)) for p in kept if "done.json" in p.name or p.suffix == ".pgn"} == {
        p: v for p, v in kept.items() if "done.json" in p.name or p.suffix == ".pgn"
    }
    # the rerun's flow ran every other match as a task run, none of the kept ones
    run = [r for r in mlflow_runs(project) if r.data.tags.get("dvc_stage") == "evaluate@dark"][-1]
    replayed = set(task_runs(prefect_server, run.data.tags["prefect_flow_run_id"]))
    assert replayed and not replayed & finished
    rated = json.loads(paths.ratings("dark").read_text())
    assert rated["elo"]["greedy"]["elo"] == 0 and "joat-b2 - joat-b0" in rated["comparisons"]
    assert "evaluate@dark" not in _dvc_status(project)
