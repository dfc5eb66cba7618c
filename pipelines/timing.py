"""Where a study's time went: every stage's wall and CPU seconds, split by what they were spent on.

A stage (:func:`pipelines.stage.open_stage`) measures its own split and logs it to its MLflow child run as metrics
``time.PART.wall_seconds`` and ``time.PART.cpu_seconds`` (:func:`metric`); the parts (:data:`PARTS`):

- ``start``: from the stage command's ``main()`` to its flow's first line: imports (none in the warm worker, which
  paid them once: :mod:`pipelines.worker`), params, the Prefect flow run;
- ``compilation``: numba's compilation, as numba reports it (its ``numba:compile`` events), in the stage's process
  and in every job; loading compiled code from the cache counts in the job that loads it;
- ``self-play``, ``training``, ``arena games`` (an expert's gate), and ``evaluation games vs KIND`` (``random``,
  ``greedy``, ``mcts``, ``fairy``, ``unadapted``, or ``model``: the rating's games between models): the jobs of that
  kind this run computed (a job kept from an earlier run costs nothing now); a job of one player's cells against
  several opponents counts toward each opponent's kind by that match's share of its seconds of moves
  (:func:`job_spent`); ``mistake rates``: each model's moves on its target's solver-labelled suite
  (``mmc.evaluation.mistakes``);
- ``waiting for jobs``: the stage's wait for its jobs beyond the cores they kept busy: a worker idle while another
  finishes the last job of a batch, and Prefect's task runs around each job;
- ``rating fits``: the Elo fits and their bootstraps (``evaluate``);
- ``report``: executing the report's notebook and converting it to HTML (``report``);
- ``bookkeeping``: the rest of the stage: MLflow, reading and writing files, Prefect's flow run.

CPU seconds are the stage process's own plus each job's, measured in the process that ran it (an engine that a job
plays against runs in a process of its own, whose CPU is not the job's). Jobs run ``runner.workers`` side by side:
their parts' wall seconds are the core-seconds they kept busy over that, at most the stage's time spent waiting for
them (the rest of that wait is ``waiting for jobs``). A job's core-seconds are its wall seconds, or its CPU seconds
where those are more: a training job on ``train.threads`` 2 keeps both cores busy while the other worker waits, and
counts as training on both. The parts' wall seconds add up to the stage's.

The study driver (:mod:`pipelines.study`) adds the time between stages (the parent run's wall time less its stages':
DVC, the stage commands' own start, the warm worker's start) and prints, logs and reports the whole split
(:func:`study_split`); the report draws it under "Where the time went".
"""

from __future__ import annotations

import resource
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "BETWEEN",
    "PARTS",
    "Clock",
    "Spent",
    "TimeRow",
    "compile_cpu_seconds",
    "compile_seconds",
    "job_part",
    "job_spent",
    "mark_start",
    "metric",
    "split_lines",
    "stage_metrics",
    "study_split",
    "totals",
]

OPPONENT_KINDS = ("random", "greedy", "mcts", "fairy", "unadapted", "model")
PARTS = (
    "start",
    "compilation",
    "self-play",
    "training",
    "arena games",
    *(f"evaluation games vs {kind}" for kind in OPPONENT_KINDS),
    "mistake rates",
    "waiting for jobs",
    "rating fits",
    "report",
    "bookkeeping",
)
"""A stage's parts, in the order they are shown."""
BETWEEN = "between stages"
"""The study's part outside every stage. Wall: DVC, the stage commands' own start, the warm worker's start. CPU:
every CPU second of the study that no stage's part holds (those, Prefect's task engine in the pool's processes,
engine processes)."""

_started = time.perf_counter()


def mark_start() -> None:
    """Note that a stage command starts now (``python -m pipelines``'s ``main()``): its ``start`` runs from here."""
    global _started
    _started = time.perf_counter()


def metric(part: str, what: str) -> str:
    """The MLflow metric of ``part``'s ``what`` (``wall``, ``cpu``): :func:`pipelines.metrics.time_spent`."""
    from pipelines.metrics import time_spent

    return time_spent(part, what)


# numba's compilation --------------------------------------------------------------------------------------------

_compiled = 0.0
_compiled_cpu = 0.0
_listening = False
_lock = threading.Lock()


def compile_seconds() -> float:
    """Wall seconds this process has spent in numba's compilation since it first asked (``numba:compile`` events; a
    compilation that triggers another counts once)."""
    _listen()
    return _compiled


def compile_cpu_seconds() -> float:
    """CPU seconds of the compiling threads in those compilations (:func:`compile_seconds`): a part of the process's
    CPU, where the wall seconds may be more (a busy machine)."""
    _listen()
    return _compiled_cpu


def _listen() -> None:
    global _listening
    with _lock:
        if not _listening:
            from numba.core import event

            class CompileClock(event.Listener):
                """Adds the outermost compilations' seconds to ``_compiled``."""

                depth, since, cpu_since = 0, 0.0, 0.0

                def on_start(self, event: Any) -> None:
                    if self.depth == 0:
                        self.since, self.cpu_since = time.perf_counter(), time.thread_time()
                    self.depth += 1

                def on_end(self, event: Any) -> None:
                    global _compiled, _compiled_cpu
                    self.depth -= 1
                    if self.depth == 0:
                        _compiled += time.perf_counter() - self.since
                        _compiled_cpu += time.thread_time() - self.cpu_since

            event.register("numba:compile", CompileClock())
            _listening = True


# A stage's split --------------------------------------------------------------------------------------------------


def job_part(kind: str, name: str) -> str:
    """The part a job of ``kind`` named ``name`` is spent on (``match-dark-joat-b2-r0-vs-fairy_nodes_1``:
    ``evaluation games vs fairy``)."""
    own = {"self-play": "self-play", "train": "training", "arena": "arena games", "mistakes": "mistake rates"}
    if kind in own:
        return own[kind]
    opponent = name.rpartition("-vs-")[2]
    found = next((k for k in OPPONENT_KINDS[:-1] if opponent.startswith(k)), "model")
    return f"evaluation games vs {found}"


def job_spent(kind: str, name: str, seconds: float, cpu: float, compiled: float, compiled_cpu: float,
              shares: Sequence[float] | None = None) -> list[Spent]:  # fmt: skip
    """What a computed job cost, as one :class:`Spent` of its part (:func:`job_part`), or, for a model's cells played
    in one job (``match-dark-joat-b2-r0-vs-random+greedy``: ``mmc.evaluation.evaluate.evaluation_matches``), one per
    opponent, each its ``shares`` (the matches' seconds of moves) of the job's seconds."""
    if shares is None:
        return [Spent(job_part(kind, name), seconds, cpu, compiled, compiled_cpu)]
    from mmc.evaluation.evaluate import cell_names  # torch: only when a stage has such jobs

    names = cell_names(name)
    if len(names) != len(shares):
        raise ValueError(f"job {name}: {len(shares)} shares for {len(names)} opponents")
    total = sum(shares)
    weights = [share / total for share in shares] if total > 0 else [1 / len(shares)] * len(shares)
    return [
        Spent(job_part(kind, n), seconds * w, cpu * w, compiled * w, compiled_cpu * w)
        for n, w in zip(names, weights, strict=True)
    ]


@dataclass
class Spent:
    """What one computed job cost: its part, seconds of its worker, CPU seconds, and numba compilation within them
    (wall and CPU seconds)."""

    part: str
    seconds: float
    cpu: float
    compiled: float
    compiled_cpu: float = 0.0


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Clock:
    """A stage's clock: started when its flow starts (:func:`pipelines.stage.open_stage`)."""

    started: float = field(default_factory=time.perf_counter)
    cpu_started: float = field(default_factory=_cpu)
    compile_started: float = field(default_factory=compile_seconds)
    compile_cpu_started: float = field(default_factory=compile_cpu_seconds)
    start: float = field(default_factory=lambda: max(0.0, time.perf_counter() - _started))
    workers: int = 1
    """Jobs that run side by side (``runner.workers``)."""
    waited: float = 0.0
    """Wall seconds the stage's process spent waiting for jobs."""
    parts: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0.0, 0.0]))
    """Parts measured in the stage's process (``rating fits``): wall and CPU seconds."""

    @contextmanager
    def part(self, name: str, waited: Callable[[], float] = lambda: 0.0) -> Iterator[None]:
        """Count the block's wall and CPU seconds (in this process) as ``name``, less its wall seconds of waiting
        for jobs (``waited``: the job store's running total), which count as the jobs' parts."""
        since, cpu, waiting = time.perf_counter(), _cpu(), waited()
        try:
            yield
        finally:
            self.parts[name][0] += time.perf_counter() - since - (waited() - waiting)
            self.parts[name][1] += _cpu() - cpu

    def split(self, jobs: Iterable[Spent]) -> dict[str, tuple[float, float]]:
        """Every part's ``(wall, cpu)`` seconds from the stage command's start until now, with the computed ``jobs``."""
        wall = time.perf_counter() - self.started
        own_cpu = _cpu() - self.cpu_started
        own_compiled = compile_seconds() - self.compile_started
        own_compiled_cpu = compile_cpu_seconds() - self.compile_cpu_started
        found: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        found["start"] = [self.start, self.start]  # imports and startup: one thread, CPU-bound
        core_seconds: dict[str, float] = defaultdict(float)  # a job's wall seconds, or its CPU seconds if more
        for job in jobs:
            core_seconds[job.part] += max(job.seconds, job.cpu) - job.compiled
            core_seconds["compilation"] += job.compiled
            found[job.part][1] += job.cpu - job.compiled_cpu
            found["compilation"][1] += job.compiled_cpu
        total = sum(core_seconds.values())
        jobs_wall = min(self.waited, total / max(1, self.workers))
        for part, seconds in core_seconds.items():
            found[part][0] += jobs_wall * seconds / total if total > 0 else 0.0
        found["waiting for jobs"][0] += self.waited - jobs_wall  # idle workers, Prefect's task runs
        found["compilation"][0] += own_compiled
        found["compilation"][1] += own_compiled_cpu
        for part, (part_wall, part_cpu) in self.parts.items():
            found[part][0] += part_wall
            found[part][1] += part_cpu
        measured_wall = self.waited + own_compiled + sum(w for w, _ in self.parts.values())
        measured_cpu = own_compiled_cpu + sum(c for _, c in self.parts.values())
        found["bookkeeping"] = [max(0.0, wall - measured_wall), max(0.0, own_cpu - measured_cpu)]
        return {part: (round(w, 3), round(c, 3)) for part, (w, c) in found.items() if w > 0 or c > 0}


def stage_metrics(split: Mapping[str, tuple[float, float]]) -> dict[str, float]:
    """A stage's MLflow metrics of ``split``: each part's, and the stage's total as part ``stage``."""
    metrics = {}
    for part, (wall, cpu) in split.items():
        metrics[metric(part, "wall")], metrics[metric(part, "cpu")] = wall, cpu
    metrics[metric("stage", "wall")] = round(sum(w for w, _ in split.values()), 3)
    metrics[metric("stage", "cpu")] = round(sum(c for _, c in split.values()), 3)
    return metrics


# A study's split -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TimeRow:
    """One part of one stage (or ``study`` for the time between stages): wall and CPU seconds."""

    stage: str
    part: str
    wall_seconds: float
    cpu_seconds: float


def rows_of(stage: str, metrics: Mapping[str, float]) -> list[TimeRow]:
    """The :class:`TimeRow` of each part a stage's MLflow ``metrics`` hold."""
    return [
        TimeRow(stage, part, float(metrics[metric(part, "wall")]), float(metrics.get(metric(part, "cpu"), 0.0)))
        for part in PARTS
        if metric(part, "wall") in metrics
    ]


def study_split(stages: Mapping[str, Mapping[str, float]], wall: float, cpu: float) -> list[TimeRow]:
    """Every stage's parts (``stages``: each DVC stage's MLflow metrics), then the time between stages: the
    study's ``wall`` and ``cpu`` seconds less every stage's."""
    rows = [row for stage in sorted(stages) for row in rows_of(stage, stages[stage])]
    between_wall = max(0.0, wall - sum(stages[s].get(metric("stage", "wall"), 0.0) for s in stages))
    between_cpu = max(0.0, cpu - sum(r.cpu_seconds for r in rows))
    return [*rows, TimeRow("study", BETWEEN, round(between_wall, 1), round(between_cpu, 1))]


def totals(rows: Iterable[TimeRow]) -> dict[str, float]:
    """The study's MLflow metrics of the split: each part's wall and CPU seconds summed over the stages."""
    metrics: dict[str, float] = defaultdict(float)
    for row in rows:
        metrics[metric(row.part, "wall")] += row.wall_seconds
        metrics[metric(row.part, "cpu")] += row.cpu_seconds
    return {name: round(value, 1) for name, value in metrics.items()}


def split_lines(rows: Iterable[TimeRow]) -> list[str]:
    """The split summed over stages, one line per part, largest first (what ``make study`` prints)."""
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for row in rows:
        totals[row.part][0] += row.wall_seconds
        totals[row.part][1] += row.cpu_seconds
    wall = sum(w for w, _ in totals.values()) or 1.0
    ordered = sorted(totals.items(), key=lambda item: -item[1][0])
    return [f"  {part:<32} {w:8.1f} s wall ({w / wall:.0%}) {c:8.1f} s CPU" for part, (w, c) in ordered]
