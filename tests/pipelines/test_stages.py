"""Each stage flow alone on a tiny budget: its files, its Prefect task runs, its MLflow run and model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mlflow
import pytest
import torch
from mlflow.tracking import MlflowClient

from mmc.evaluation.comparison import VERDICTS
from mmc.meta import load_focus
from mmc.nn import build_network, load_checkpoint, save_checkpoint
from mmc.play import read_records
from pipelines.adapt import adapt_flow
from pipelines.config import load_params
from pipelines.evaluate import evaluate_flow
from pipelines.expert import expert_flow
from pipelines.jobs import cell_records
from pipelines.learn import learn_flow
from pipelines.paths import Paths
from pipelines.runners import task_runner
from pipelines.starts import load_start

from .conftest import TINY_PARAMS
from .helpers import DELETE, mlflow_runs, task_runs, write_params


def _expert(root: Path, **changes: object) -> str:
    study = load_params(write_params(root, TINY_PARAMS, {k.replace("__", "."): v for k, v in changes.items()}))
    runner = task_runner(study.runner)
    state = expert_flow.with_options(task_runner=runner)("gardner", 0, study, root, return_state=True)
    assert state.is_completed(), state
    return str(state.state_details.flow_run_id)


def test_expert_flow_on_a_local_dask_cluster_then_resumes(prefect_server: str, tmp_path: Path) -> None:
    paths = Paths(tmp_path)
    flow_run_id = _expert(tmp_path, runner__kind="dask")
    # files: every job of both generations kept with its record; the champion and the curves
    jobs = paths.jobs("expert", "gardner-r0")
    for generation in (0, 1):
        for chunk in (0, 1):
            record = json.loads((jobs / f"self-play-gardner-gen00{generation}-chunk0{chunk}.done.json").read_text())
            assert record["result"] == "self-play" and record["summary"]["games"] == 2
            assert all((tmp_path / name).is_file() for name in record["files"])
        assert (jobs / f"train-gardner-gen00{generation}.pt").is_file()
        arena = [read_records(jobs / f"arena-gardner-gen00{generation}-chunk0{c}.pgn") for c in (0, 1)]
        assert sum(map(len, arena)) == 4
    net, _ = load_checkpoint(paths.champion("gardner", 0))
    metrics = json.loads(paths.expert_metrics("gardner", 0).read_text())
    assert metrics["generations"] == 2 and metrics["selfplay_games"] == 8
    assert paths.loss_curve("gardner", 0).read_text().splitlines()[0] == "generation,policy,value,total,examples"
    assert len(paths.arena_curve("gardner", 0).read_text().splitlines()) == 3
    # Prefect: one completed task run per chunk, generation and stage
    expected = {f"self-play-gardner-gen00{g}-chunk0{c}" for g in (0, 1) for c in (0, 1)}
    expected |= {f"arena-gardner-gen00{g}-chunk0{c}" for g in (0, 1) for c in (0, 1)}
    expected |= {"train-gardner-gen000", "train-gardner-gen001"}
    assert task_runs(prefect_server, flow_run_id) == dict.fromkeys(expected, "COMPLETED")
    # MLflow: the stage's run (no parent outside the driver), per-generation metrics, artifacts, the model
    (run,) = mlflow_runs(tmp_path)
    assert run.info.status == "FINISHED" and "mlflow.parentRunId" not in run.data.tags
    assert run.data.tags["dvc_stage"] == "expert@gardner-0" and run.data.tags["prefect_flow_run_id"] == flow_run_id
    assert run.info.run_name == "expert-gardner-r0" and run.data.tags["replicate"] == "0"
    assert run.data.params["expert.generations"] == "2" and run.data.params["search.simulations"] == "4"
    client = MlflowClient(paths.mlflow_uri)
    experiment = client.get_experiment(run.info.experiment_id)
    assert experiment.tags["mlflow.experimentKind"] == "custom_model_development"  # the UI opens on the runs
    assert [m.step for m in client.get_metric_history(run.info.run_id, "loss_policy")] == [0, 1]
    artifacts = {a.path for folder in ("games", "plots", "dvc") for a in client.list_artifacts(run.info.run_id, folder)}
    assert {"plots/losses.png", "plots/arena.png", "games/arena.pgn", "dvc/gardner-r0.json"} <= artifacts
    version = client.get_model_version_by_alias("expert-gardner", "r0")
    assert version.run_id == run.info.run_id
    loaded = mlflow.pytorch.load_model("models:/expert-gardner@r0")
    assert all(torch.equal(a, b) for a, b in zip(loaded.state_dict().values(), net.state_dict().values(), strict=True))

    # one more generation: the first two are kept as they are, only generation 2 runs
    kept = {p: p.stat().st_mtime_ns for p in jobs.iterdir()}
    second = _expert(tmp_path, runner__kind="thread", expert__generations=3)
    assert {p: p.stat().st_mtime_ns for p in kept} == kept
    names = task_runs(prefect_server, second)
    assert names and all("-gen002" in name for name in names)
    assert {name.split("-")[0] for name in names} == {"self", "train", "arena"}
    latest = mlflow_runs(tmp_path)[-1].info.run_id
    assert [m.step for m in client.get_metric_history(latest, "loss_policy")] == [0, 1, 2]
    # a parameter that changes what the jobs compute recomputes them; files of jobs no longer run are removed
    third = _expert(tmp_path, runner__kind="thread", expert__generations=1, seed=7)
    assert len(task_runs(prefect_server, third)) == 2 + 1 + 2
    assert sorted({p.name.split(".")[0] for p in jobs.iterdir()}) == [
        "arena-gardner-gen000-chunk00", "arena-gardner-gen000-chunk01", "self-play-gardner-gen000-chunk00",
        "self-play-gardner-gen000-chunk01", "train-gardner-gen000",
    ]  # fmt: skip


def test_adapt_then_evaluate_flows_alone_and_resume(prefect_server: str, tmp_path: Path) -> None:
    paths = Paths(tmp_path)
    changes = {
        "runner.kind": "thread",
        "adapt.starts": ["joat", "scratch"],
        "learners.multitask": DELETE,
        "learners.metafocus": DELETE,
        "evaluate.games": 4,
        "evaluate.opponents": ["random", "unadapted", "fairy:nodes=1"],
    }
    study = load_params(write_params(tmp_path, TINY_PARAMS, changes))
    assert study.replicates == (0, 1)
    runner = task_runner(study.runner)
    joat = {}
    for replicate in study.replicates:
        joat[replicate] = build_network(study.network, seed=7 + replicate)
        save_checkpoint(joat[replicate], joat[replicate].config, paths.start_model("joat", replicate))
        state = adapt_flow.with_options(task_runner=runner)("atomic", replicate, study, tmp_path, return_state=True)
        assert state.is_completed(), state
        # budget 2 of both starts: one self-play and one train task run each
        assert set(task_runs(prefect_server, str(state.state_details.flow_run_id))) == {
            f"{job}-{start}-b2" for job in ("self-play", "train") for start in ("joat", "scratch")
        }
    adapted = {
        (s, b, r): load_checkpoint(paths.adapted("atomic", r, s, b))[0]
        for s in ("joat", "scratch") for b in (0, 2) for r in (0, 1)
    }  # fmt: skip
    assert _same(adapted["joat", 0, 1], joat[1]) and not _same(adapted["joat", 2, 1], joat[1])
    assert _same(adapted["scratch", 0, 0], load_start(paths, study, "scratch", 0))
    assert not _same(adapted["scratch", 0, 0], adapted["scratch", 0, 1])  # each replicate its own seed
    adapt_metrics = json.loads(paths.adapt_metrics("atomic", 1).read_text())
    assert adapt_metrics["joat"]["b0"]["games"] == 0 and adapt_metrics["joat"]["b2"]["games"] == 2

    state = evaluate_flow.with_options(task_runner=runner)("atomic", study, tmp_path, return_state=True)
    assert state.is_completed(), state
    metrics = json.loads(paths.evaluation_metrics("atomic").read_text())
    # no Fairy-Stockfish cell in atomic, no unadapted opponent at budget 0
    assert {
        r: {s: {b: list(cells) for b, cells in budgets.items()} for s, budgets in starts.items()}
        for r, starts in metrics.items()
    } == {r: {s: {"b0": ["random"], "b2": ["random", "unadapted"]} for s in ("joat", "scratch")} for r in ("r0", "r1")}
    for starts in metrics.values():
        for budgets in starts.values():
            for cells in budgets.values():
                for m in cells.values():
                    assert m["games"] == m["wins"] + m["draws"] + m["losses"] == 4
                    assert 0 <= m["ci_low"] <= m["score"] <= m["ci_high"] <= 1
    jobs = paths.jobs("evaluate", "atomic")
    records = cell_records(tmp_path, jobs, "atomic", "joat-b2-r1", "unadapted")
    assert len(records) == 4 and records[0].first == records[1].second == "joat-b2-r1"
    assert records[0].second == "joat-b0-r1"  # its own start, of its own replicate
    # a model's cells are one job: its games against random, then against its start
    together = read_records(jobs / "match-atomic-joat-b2-r1-vs-random+unadapted.pgn")
    assert together == cell_records(tmp_path, jobs, "atomic", "joat-b2-r1", "random") + records
    # the replicates' cells against one opponent are played from the same openings
    twin = cell_records(tmp_path, jobs, "atomic", "joat-b2-r0", "unadapted")
    assert [r.moves[: r.opening_plies] for r in twin] == [r.moves[: r.opening_plies] for r in records]
    # the rating: the cells, the anchors' ladder (atomic: no Fairy-Stockfish) and each model's nearest games
    played = set(task_runs(prefect_server, str(state.state_details.flow_run_id)))
    budgets = {b: [o for bb, o in cell_keys(metrics) if bb == b] for b, _ in cell_keys(metrics)}
    cell_runs = {
        f"match-atomic-{s}-b{b}-r{r}-vs-{'+'.join(o)}" for s in ("joat", "scratch") for r in (0, 1)
        for b, o in budgets.items()
    }  # fmt: skip
    ladder = {"match-atomic-random-vs-mcts_4+greedy", "match-atomic-mcts_4-vs-greedy"}
    assert cell_runs | ladder <= played and len(played) > len(cell_runs | ladder)
    rated = json.loads(paths.ratings("atomic").read_text())
    ratings = rated["elo"]
    models = {f"{s}-b{b}-r{r}" for s in ("joat", "scratch") for b in (0, 2) for r in (0, 1)}
    assert set(ratings) == {"random", "mcts:4", "greedy", *models}
    assert ratings["greedy"] == {"elo": 0.0, "low": 0.0, "high": 0.0, "games": ratings["greedy"]["games"]}
    assert all(r["low"] <= r["elo"] <= r["high"] and r["games"] > 0 for r in ratings.values())
    table = paths.rating_table("atomic").read_text().splitlines()
    assert table[0] == "game,player,kind,start,budget,replicate,elo,low,high,games" and len(table) == 1 + len(ratings)
    # each start's mean over the replicates, per budget
    means = rated["starts"]
    assert set(means) == {f"{s}-b{b}" for s in ("joat", "scratch") for b in (0, 2)}
    mean = (ratings["joat-b2-r0"]["elo"] + ratings["joat-b2-r1"]["elo"]) / 2
    assert means["joat-b2"]["elo"] == pytest.approx(mean, abs=0.1)
    assert means["joat-b2"]["low"] <= means["joat-b2"]["elo"] <= means["joat-b2"]["high"]
    curves = paths.curve_table("atomic").read_text().splitlines()
    assert curves[0] == "game,start,budget,elo,low,high,replicates,spread" and len(curves) == 1 + 4
    # the paired comparisons: joat - scratch at both budgets, each start adapted - unadapted; over 2 replicates
    assert set(rated["comparisons"]) == {"joat-b0 - scratch-b0", "joat-b2 - scratch-b2", "joat-b2 - joat-b0",
                                         "scratch-b2 - scratch-b0"}  # fmt: skip
    for c in rated["comparisons"].values():
        assert c["low"] <= c["difference"] <= c["high"] and c["verdict"] in VERDICTS
        assert c["verdict"] == "uninformative" or c["learned"] == "" or " <= " not in c["learned"]
    paired = [ratings[f"joat-b2-r{r}"]["elo"] - ratings[f"scratch-b2-r{r}"]["elo"] for r in (0, 1)]
    assert rated["comparisons"]["joat-b2 - scratch-b2"]["difference"] == pytest.approx(sum(paired) / 2, abs=0.2)
    compared = paths.comparison_table("atomic").read_text().splitlines()
    assert compared[0].endswith(",verdict,detectable,replicates,spread,learned,improvement,iqm,holds")
    row = compared[1].split(",")
    assert row[-6] == "2" and 0 <= float(row[-3]) <= 1 and row[-2] == "" and row[-1] in ("True", "False")
    for c in rated["comparisons"].values():  # each says how sure it is: no IQM from 2 replicates
        assert 0 <= c["improvement"] <= 1 and c["iqm"] is None and isinstance(c["holds"], bool)
        assert c["holds"] or c["verdict"] in ("better", "worse")

    # a rerun plays nothing; a changed evaluation setting replays every cell
    before = {p: p.stat().st_mtime_ns for p in paths.jobs("evaluate", "atomic").iterdir()}
    state = evaluate_flow.with_options(task_runner=runner)("atomic", study, tmp_path, return_state=True)
    assert task_runs(prefect_server, str(state.state_details.flow_run_id)) == {}
    assert {p: p.stat().st_mtime_ns for p in paths.jobs("evaluate", "atomic").iterdir()} == before
    study = load_params(write_params(tmp_path, TINY_PARAMS, {**changes, "evaluate.games": 2}))
    state = evaluate_flow.with_options(task_runner=runner)("atomic", study, tmp_path, return_state=True)
    replayed = set(task_runs(prefect_server, str(state.state_details.flow_run_id)))
    assert cell_runs <= replayed and not replayed & ladder  # the anchors' ladder does not depend on evaluate.games
    runs = {r.data.tags["dvc_stage"] for r in mlflow_runs(tmp_path)}
    assert runs == {"adapt@atomic-0", "adapt@atomic-1", "evaluate@atomic"}


def test_joat_learner_resumes_inside_a_meta_generation(prefect_server: str, tmp_path: Path) -> None:
    """JOAT's finished jobs are kept: with one inner update of meta-generation 1 lost, only it is redone. Its tasks
    named as a distribution (both of the tiny study's, drawn from {gardner, dark, baby}) are recorded in the stage's
    metrics file and its MLflow run."""
    paths = Paths(tmp_path)
    tasks = {"variants": ["{gardner,dark,baby}"], "exclude": ["baby"], "draw": 2}
    study = load_params(write_params(tmp_path, TINY_PARAMS, {"runner.kind": "thread", "meta.train_variants": tasks}))
    assert study.meta.train_variants == ("gardner", "dark")
    runner = task_runner(study.runner)
    assert learn_flow.with_options(task_runner=runner)("joat", 1, study, tmp_path, return_state=True).is_completed()
    summary = json.loads(paths.learn_metrics("joat", 1).read_text())
    assert summary["train_variants"] == ["gardner", "dark"]
    assert summary["budget"] == 16 and summary["budget_games"] == summary["selfplay_games"] == 2 * 2 * 2
    assert summary["distribution"] == "2 drawn from {gardner,dark,baby} less baby"
    logged = mlflow_runs(tmp_path)[-1].data.params
    assert json.loads(logged["meta.train_variants"]) == ["gardner", "dark"] and logged["distribution.draw"] == "2"
    theta = load_checkpoint(paths.start_model("joat", 1))[0]
    jobs = paths.jobs("learn", "joat-r1")
    (jobs / "train-dark-gen001.pt").unlink()  # its record no longer checks out
    kept = {p: p.stat().st_mtime_ns for p in jobs.iterdir() if "train-dark-gen001" not in p.name}
    state = learn_flow.with_options(task_runner=runner)("joat", 1, study, tmp_path, return_state=True)
    assert state.is_completed()
    assert {p: p.stat().st_mtime_ns for p in kept} == kept
    assert set(task_runs(prefect_server, str(state.state_details.flow_run_id))) == {"train-dark-gen001"}
    assert _same(theta, load_checkpoint(paths.start_model("joat", 1))[0])  # the same inner update, the same theta


def test_metafocus_learner_publishes_its_model_and_steers_the_adaptation(prefect_server: str, tmp_path: Path) -> None:
    """metafocus@0: every masked adaptation a task run, JOAT's network and the meta-model (its adaptation rule's
    state) published, its masks written, the network registered; then the ``metafocus`` start of adapt@T is JOAT
    trained on JOAT's own games with the mask the model gives T."""
    paths = Paths(tmp_path)
    changes = {"runner.kind": "thread", "adapt.starts": ["joat", "metafocus"], "learners.multitask": DELETE}
    study = load_params(write_params(tmp_path, TINY_PARAMS, changes))
    runner = task_runner(study.runner)
    joat = build_network(study.network, seed=3)
    save_checkpoint(joat, joat.config, paths.start_model("joat", 0))
    state = learn_flow.with_options(task_runner=runner)("metafocus", 0, study, tmp_path, return_state=True)
    assert state.is_completed(), state
    assert set(task_runs(prefect_server, str(state.state_details.flow_run_id))) == {
        f"{job}-{task}-gen00{i}"
        for i in (0, 1)
        for task in ("gardner", "dark")
        for job in ("self-play", "train", "reward")
    }
    rows = paths.learn_steps("metafocus", 0).read_text().splitlines()
    assert rows[0] == "iteration,task,mask,kept,keep_probability,reward,baseline" and len(rows) == 1 + 4
    for row in rows[1:]:
        mask, kept = row.split(",")[2:4]
        assert len(mask) == study.network.filters and mask.count("1") == int(kept)
    summary = json.loads(paths.learn_metrics("metafocus", 0).read_text())
    assert summary["adaptations"] == 4 and summary["budget_games"] == 2 * 2 * (2 + 2)  # self-play and reward games
    model = load_focus(paths.start_state("metafocus", 0) / "focus.pt")
    settings = study.learners.settings["metafocus"]
    assert model.config.channels == study.network.filters and model.config.positions == settings.positions
    assert _same(load_checkpoint(paths.start_model("metafocus", 0))[0], joat)  # its network is JOAT's
    (run,) = mlflow_runs(tmp_path)
    assert run.data.tags["dvc_stage"] == "metafocus@0" and run.info.status == "FINISHED"
    assert [m.step for m in MlflowClient(paths.mlflow_uri).get_metric_history(run.info.run_id, "baseline")] == [0, 1]
    assert _same(mlflow.pytorch.load_model("models:/metafocus@r0"), joat)

    state = adapt_flow.with_options(task_runner=runner)("extinction", 0, study, tmp_path, return_state=True)
    assert state.is_completed(), state
    assert not paths.adapted("extinction", 0, "metafocus", 0).is_file()  # with no games MetaFocus is JOAT
    focused = load_checkpoint(paths.adapted("extinction", 0, "metafocus", 2))[0]
    plain = load_checkpoint(paths.adapted("extinction", 0, "joat", 2))[0]
    summary = json.loads(paths.adapt_metrics("extinction", 0).read_text())["metafocus"]["b2"]
    mask = torch.tensor([bit == "1" for bit in summary["mask"]])
    assert summary["kept"] == int(mask.sum()) and len(mask) == study.network.filters
    stem = joat.state_dict()["stem_conv.weight"]
    assert torch.equal(focused.state_dict()["stem_conv.weight"][~mask], stem[~mask])  # dropped channels untouched
    assert not _same(focused, plain) or bool(mask.all())
    jobs = paths.jobs("adapt", "extinction-r0")
    games = [[r.moves for r in read_records(jobs / f"self-play-{s}-b2.pgn")] for s in ("joat", "metafocus")]
    assert games[0] == games[1]  # the same start and seed: the same games, only the training differs
    # ... played once: the job store computes a fingerprint once per call and keeps it under both names
    played = set(task_runs(prefect_server, str(state.state_details.flow_run_id)))
    assert played == {"self-play-joat-b2", "train-joat-b2", "train-metafocus-b2"}
    assert (jobs / "self-play-metafocus-b2.done.json").is_file()


def cell_keys(metrics: dict[str, Any]) -> list[tuple[int, str]]:
    """(budget, opponent) of one start's cells in the evaluation metrics (of the first replicate)."""
    first = next(iter(next(iter(metrics.values())).values()))
    return [(int(b[1:]), o) for b, cells in first.items() for o in cells]


def _same(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True))
