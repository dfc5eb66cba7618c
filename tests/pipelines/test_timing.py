"""Where the time went (``pipelines.timing``): its parts, its sums and numba's compilation clock.

A real study's split (every stage of the tiny study, the driver's printout and the parent run) is checked in
``test_study.py::test_make_study_end_to_end``; the report's section in ``test_report.py``.
"""

from __future__ import annotations

import time

import numba
import pytest

from pipelines import timing


@pytest.mark.parametrize(
    ("kind", "name", "part"),
    [
        ("self-play", "self-play-gardner-gen000-chunk01", "self-play"),
        ("train", "train-pooled-gen001", "training"),
        ("arena", "arena-gardner-gen000-chunk00", "arena games"),
        ("match", "match-dark-joat-b2-r0-vs-fairy_nodes_1", "evaluation games vs fairy"),
        ("match", "match-dark-joat-b0-r0-vs-mcts_4", "evaluation games vs mcts"),
        ("match", "match-dark-scratch-b2-r1-vs-unadapted", "evaluation games vs unadapted"),
        ("match", "match-dark-joat-b2-r0-vs-metafocus-b2-r0", "evaluation games vs model"),
        ("match", "match-gardner-random-vs-greedy", "evaluation games vs greedy"),
    ],
)
def test_a_job_counts_as_the_part_its_kind_and_opponent_name(kind: str, name: str, part: str) -> None:
    assert timing.job_part(kind, name) == part and part in timing.PARTS


def test_a_models_cells_in_one_job_share_its_time_among_their_opponents_kinds() -> None:
    name = "match-dark-joat-b2-r0-vs-random+fairy_nodes_1+metafocus-b2-r0"
    spent = timing.job_spent("match", name, 10.0, 12.0, 1.0, 0.5, [1.0, 3.0, 4.0])
    assert [s.part for s in spent] == [f"evaluation games vs {k}" for k in ("random", "fairy", "model")]
    assert [(s.seconds, s.cpu, s.compiled) for s in spent] == [(1.25, 1.5, 0.125), (3.75, 4.5, 0.375), (5.0, 6.0, 0.5)]
    (alone,) = timing.job_spent("match", "match-dark-joat-b2-r0-vs-greedy", 2.0, 2.0, 0.0, 0.0)
    assert (alone.part, alone.seconds) == ("evaluation games vs greedy", 2.0)
    with pytest.raises(ValueError, match="2 shares for 3 opponents"):
        timing.job_spent("match", name, 1.0, 1.0, 0.0, 0.0, [1.0, 1.0])


def test_a_stages_parts_add_up_to_its_wall_time_and_its_jobs_cpu() -> None:
    timing.mark_start()
    time.sleep(0.05)  # the stage's start: imports, params, its flow run
    clock = timing.Clock()
    with clock.part("rating fits"):
        sum(i * i for i in range(200_000))
    jobs = [
        timing.Spent("self-play", seconds=0.3, cpu=0.28, compiled=0.1, compiled_cpu=0.1),
        timing.Spent("self-play", seconds=0.2, cpu=0.2, compiled=0.0),
        timing.Spent("training", seconds=0.1, cpu=0.09, compiled=0.0),
    ]
    clock.workers = 2
    clock.waited = 0.35  # the stage's seconds waiting for those jobs: 0.3 s of two workers, 0.05 s of Prefect
    time.sleep(0.4)
    split = timing.Clock.split(clock, jobs)
    metrics = timing.stage_metrics(split)
    assert split["start"][0] >= 0.05
    # the jobs' wall: their workers' seconds over the two workers (compilation apart); their CPU is theirs
    assert split["self-play"] == (pytest.approx(0.2, abs=1e-3), pytest.approx(0.38))
    assert split["training"] == (pytest.approx(0.05, abs=1e-3), pytest.approx(0.09))
    assert split["waiting for jobs"] == (pytest.approx(0.05, abs=1e-3), 0.0)  # the rest of the wait
    assert split["compilation"][1] >= 0.1 and split["rating fits"][1] > 0
    assert sum(wall for wall, _ in split.values()) == pytest.approx(metrics[timing.metric("stage", "wall")], abs=0.01)
    assert metrics[timing.metric("stage", "wall")] >= 0.05 + 0.4
    assert metrics[timing.metric("self-play", "cpu")] == pytest.approx(0.38)


def test_a_job_on_several_threads_counts_the_cores_it_kept_busy_not_waiting() -> None:
    """A training job on two torch threads runs in one of two workers while the other has nothing to do: both
    cores train, so its wait is training, not ``waiting for jobs`` (the default study logged 360 s of waiting,
    most of it in its training stages, from counting such a job as one worker's)."""
    clock = timing.Clock()
    clock.workers = 2
    clock.waited = 10.0
    split = clock.split([timing.Spent("training", seconds=10.0, cpu=19.0, compiled=0.0)])
    assert split["training"] == (pytest.approx(9.5, abs=1e-3), pytest.approx(19.0))
    assert split["waiting for jobs"][0] == pytest.approx(0.5, abs=1e-3)  # 20 core-seconds of wait, 19 of them training
    one_thread = clock.split([timing.Spent("training", seconds=10.0, cpu=9.8, compiled=0.0)])
    assert one_thread["waiting for jobs"][0] == pytest.approx(5.0, abs=1e-3)  # one core idle throughout


def test_the_study_adds_the_time_between_its_stages() -> None:
    stages = {
        "expert@gardner-0": {timing.metric("self-play", "wall"): 50.0, timing.metric("self-play", "cpu"): 90.0,
                             timing.metric("stage", "wall"): 50.0},
        "report": {timing.metric("report", "wall"): 10.0, timing.metric("report", "cpu"): 9.0,
                   timing.metric("stage", "wall"): 10.0},
    }  # fmt: skip
    rows = timing.study_split(stages, wall=70.0, cpu=110.0)
    assert rows[-1] == timing.TimeRow("study", timing.BETWEEN, 10.0, 11.0)
    assert timing.totals(rows)[timing.metric("self-play", "cpu")] == 90.0
    lines = timing.split_lines(rows)
    assert lines[0].split() == ["self-play", "50.0", "s", "wall", "(71%)", "90.0", "s", "CPU"]
    assert [line.split()[0] for line in lines] == ["self-play", "report", "between"]


def test_numbas_compilation_is_clocked() -> None:
    before, before_cpu = timing.compile_seconds(), timing.compile_cpu_seconds()

    @numba.njit(cache=False)
    def add(a: int, b: int) -> int:
        return a + b

    assert add(2, 3) == 5
    after, after_cpu = timing.compile_seconds(), timing.compile_cpu_seconds()
    assert after > before and 0 < after_cpu - before_cpu <= after - before + 0.01  # the thread's CPU, within its wall
    assert add(4, 5) == 9 and timing.compile_seconds() == after  # compiled once, for this signature


def test_a_job_whose_compilation_waited_for_the_cpu_keeps_a_cpu_share_of_zero_or_more() -> None:
    """A job that plays an engine in a process of its own uses little CPU of its own; on a busy machine its
    compilation's wall seconds exceed that CPU, and only the compilation's CPU seconds come off the job's part (a
    study once logged -0.095 CPU seconds of games against Fairy-Stockfish)."""
    clock = timing.Clock()
    clock.waited = 1.0
    job = timing.Spent("evaluation games vs fairy", seconds=1.0, cpu=0.3, compiled=0.6, compiled_cpu=0.25)
    split = clock.split([job])
    assert split["evaluation games vs fairy"][1] == pytest.approx(0.05)
    assert split["compilation"][1] >= 0.25 and all(cpu >= 0 for _, cpu in split.values())
