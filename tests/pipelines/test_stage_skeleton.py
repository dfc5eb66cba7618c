"""The stage skeleton (``pipelines.stage``): a child MLflow run with the stage's params, opened on enter and closed
on exit, and a job store that prunes on success only and submits the longest expected job first; the job-timing
helper; the inputs as keyword arguments."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from prefect import flow
from prefect.task_runners import ThreadPoolTaskRunner

from mmc.core.fanout import Job
from mmc.evaluation.mistakes import MistakeRate, read_suite
from mmc.loops.alphazero import alphazero
from mmc.play import MatchResult
from pipelines import expert
from pipelines.calls import keywords
from pipelines.config import load_params
from pipelines.jobs import JobStore, fingerprint, like, longest_first
from pipelines.paths import Paths
from pipelines.stage import logged_params, open_stage

from .conftest import TINY_PARAMS
from .helpers import mlflow_runs, write_params

STALE = "self-play-gardner-gen099.npz"
"""A file of a job the run does not use (left by a longer run): pruned when the stage succeeds."""


@flow(name="skeleton", validate_parameters=False)
def skeleton_flow(root: Path, fail: bool) -> str:
    study = load_params(root / "params.yaml")
    params = logged_params(study, 0, {"variant": "gardner"}, train=study.train, note="tiny")
    with open_stage(study, root, "expert", variant="gardner", replicate=0, jobs=("expert", "gardner-r0"), code=(),
                    params=params) as stage:  # fmt: skip
        stage.run.log_metrics({"answer": 42.0})
        stage.logger.info("inside the stage")
        if fail:
            raise RuntimeError("the stage's body failed")
        return stage.run.run_id


@pytest.mark.parametrize("fail", [False, True])
def test_a_stage_opens_its_child_run_logs_its_params_and_closes_it(
    prefect_server: str, tmp_path: Path, fail: bool
) -> None:
    study = load_params(write_params(tmp_path, TINY_PARAMS, {"runner.kind": "thread"}))
    stale = Paths(tmp_path).jobs("expert", "gardner-r0") / STALE
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"old")
    state = skeleton_flow(tmp_path, fail, return_state=True)
    assert state.is_failed() == fail
    (run,) = mlflow_runs(tmp_path)
    assert run.info.run_name == "expert-gardner-r0" and run.data.tags["mmc.stage"] == "expert"
    assert run.data.tags["prefect_flow_run_id"] == str(state.state_details.flow_run_id)
    assert run.info.status == ("FAILED" if fail else "FINISHED")
    params = run.data.params
    assert params["seed"] == str(study.seed) and params["replicate"] == "0" and params["variant"] == "gardner"
    assert params["device"] == study.device and params["note"] == "tiny"
    assert params["train.epochs"] == json.dumps(study.train.epochs)
    assert run.data.metrics["answer"] == 42.0
    assert stale.exists() == fail  # a failed stage prunes nothing


def test_job_seconds_add_up_a_kind_at_or_under_keys(tmp_path: Path) -> None:
    store = JobStore(tmp_path, tmp_path / "jobs", "code")
    store.seconds.update({
        "self-play-gardner-gen003-chunk00": 1.25, "self-play-gardner-gen003-chunk01": 2.5,
        "self-play-gardner-gen0031-chunk00": 100.0, "train-gardner-gen003": 4.0, "self-play-joat-b10": 8.0,
        "self-play-joat-b1": 16.0, "train-joat-b1": 32.0,
    })  # fmt: skip
    assert store.job_seconds(["self-play"], [("gardner", "gen003")]) == 3.75
    assert store.job_seconds(["train"], [("gardner", "gen003")]) == 4.0
    assert store.job_seconds(["self-play", "train"], [("joat-b1",)]) == 48.0
    assert store.job_seconds(["self-play"], [("gardner", "gen003"), ("joat-b10",)]) == 11.75
    assert store.job_seconds(["arena"], [("gardner", "gen003")]) == 0.0
    assert store.job_seconds(["self-play"], [()]) == 127.75


def test_a_stage_inputs_are_its_library_call_keywords(tmp_path: Path) -> None:
    study = load_params(write_params(tmp_path, TINY_PARAMS, {}))
    given = expert.inputs(study, "gardner", 0)
    assert list(keywords(given)) == ["net", "variant", "config", "search", "training", "seed", "device"]
    assert keywords(given)["net"] is given.net  # the values themselves, not copies
    renamed = {("train" if name == "training" else name): value for name, value in keywords(given).items()}
    with pytest.raises(TypeError, match="unexpected keyword argument 'train'"):  # as if a parameter were renamed
        alphazero(**renamed)


def test_longest_first_orders_by_the_last_alike_job_and_keeps_unknown_ones_first_in_order() -> None:
    assert like("self-play-gardner-gen003-chunk01") == "self-play-gardner-chunk01"
    assert like("train-atomic-gen012") == like("train-atomic-gen000") == "train-atomic"
    assert like("match-gardner-joat-b100-vs-greedy") == "match-gardner-joat-b100-vs-greedy"
    assert like("self-play-mnk_5x5_k4-gen001") == "self-play-mnk_5x5_k4"  # a variant's own digits stay
    names = ["self-play-a-gen004", "self-play-b-gen004", "self-play-c-gen004", "self-play-d-gen004"]
    last = {"self-play-a": 1.0, "self-play-b": 3.0, "self-play-d": 2.0}
    assert longest_first(["ka", "kb", "kc", "kd"], names, last) == ["kc", "kb", "kd", "ka"]
    assert longest_first(["ka", "kb"], names[:2], {}) == ["ka", "kb"]


RAN: list[str] = []
"""The order in which :func:`_record` jobs ran (the thread runner runs them in this process)."""


def _record(label: str) -> MatchResult:
    RAN.append(label)
    return MatchResult(1, 0, 0, [])


@flow(name="one-worker", task_runner=ThreadPoolTaskRunner(max_workers=1), validate_parameters=False)
def one_worker_flow(store: JobStore, jobs: list[Job[MatchResult]]) -> list[MatchResult]:
    return store(jobs)


def test_a_job_store_submits_the_longest_expected_job_first_and_returns_results_in_job_order(
    prefect_server: str, tmp_path: Path
) -> None:
    store = JobStore(tmp_path, tmp_path / "jobs", "code", single_thread=False)
    store.seconds.update({"match-x-short-gen000": 0.1, "match-x-long-gen000": 5.0})  # the generation before
    labels = ["short", "new", "long"]
    jobs = [Job("match", ("x", label, "gen001"), _record, {"label": label}) for label in labels]
    RAN.clear()
    results = one_worker_flow(store, jobs)
    assert RAN == ["new", "long", "short"]  # no estimate first, then the longest
    assert [r.wins for r in results] == [1, 1, 1] and store.computed == 3
    assert {f"match-x-{label}-gen001" for label in labels} <= set(store.seconds)  # what they took now
    RAN.clear()
    assert [r.wins for r in one_worker_flow(store, jobs)] == [1, 1, 1] and RAN == []  # kept: none runs again


def _mistakes(label: str) -> MistakeRate:
    RAN.append(label)
    return MistakeRate(label, 4, 2, 3, 1, 1, (True, False, True, False))


@flow(name="one-worker-mistakes", task_runner=ThreadPoolTaskRunner(max_workers=1), validate_parameters=False)
def mistakes_flow(store: JobStore, jobs: list[Job[MistakeRate]]) -> list[MistakeRate]:
    return store(jobs)


def test_a_job_store_keeps_a_mistake_rate_and_fingerprints_a_suite(prefect_server: str, tmp_path: Path) -> None:
    """A ``mistakes`` job's rate comes back from its record, marks and all; a suite's positions (frozensets of
    keeping moves) key the job."""
    store = JobStore(tmp_path, tmp_path / "jobs", "code", single_thread=False)
    jobs = [Job("mistakes", ("x", "m"), _mistakes, {"label": "m"})]
    RAN.clear()
    (first,) = mistakes_flow(store, jobs)
    (kept,) = mistakes_flow(JobStore(tmp_path, tmp_path / "jobs", "code", single_thread=False), jobs)
    assert RAN == ["m"] and kept == first and kept.marks == (True, False, True, False)
    position = read_suite("small")[0]
    moved = replace(position, keeping=position.keeping | {"zz9"})
    assert fingerprint(Job("k", (), _suite_size, {"positions": [position]}), "c") != fingerprint(
        Job("k", (), _suite_size, {"positions": [moved]}), "c"
    )


def _suite_size(positions: list) -> int:
    return len(positions)
