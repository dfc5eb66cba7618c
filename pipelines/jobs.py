"""The stages' runner: each ``mmc`` job becomes a Prefect task run, and each finished job is kept on disk.

The library's loops (``mmc.loops.alphazero``, ``mmc.meta``, ``mmc.evaluation.evaluate``) hand lists of jobs to a runner
(``mmc.core.fanout``). :class:`JobStore` is the stages' runner. For every job it

1. derives the job's **fingerprint** from the job itself: its function's name and every argument it is
   called with, by parameter name (networks by their weights, configs field by field, examples by their arrays,
   the seed by its entropy and spawn key) plus the hash of the library code that computes it
   (:func:`fingerprint`). Nothing is kept by hand, so the key cannot drift from what runs;
2. returns the result kept under the stage's folder if its record (``{job}.done.json``, written last, listing the
   hashes of the job's files) checks out and has that fingerprint;
3. otherwise submits the job as a Prefect task run named after it (``self-play-gardner-gen003-chunk01``) to
   the flow's task runner (a process pool, a Dask cluster, threads), the longest expected first
   (:func:`longest_first`: what the same job of the generation before took), and writes the result as soon as it
   comes back.

So a stage resumes after a crash or ``kill -9`` at the first unfinished job, a rerun with the same parameters
computes nothing, and a changed parameter recomputes exactly the jobs whose inputs it changes. Results are
written per type: self-play games (``.npz`` examples, ``.pgn`` records), trained networks (``.pt`` + config
``.json``), matches (``.pgn``). :meth:`JobStore.prune` removes the files of jobs that the finished run no
longer used.
"""

from __future__ import annotations

import dataclasses
import enum
import glob
import hashlib
import logging
import math
import os
import queue
import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np
import torch
from prefect import task
from prefect.cache_policies import NO_CACHE
from prefect.context import TagsContext
from prefect.futures import PrefectFuture

from mmc.core.fanout import Job
from mmc.evaluation.evaluate import cell_names, match_name
from mmc.evaluation.mistakes import MistakeRate
from mmc.nn import config_path, load_checkpoint, save_checkpoint
from mmc.play import GameRecord, MatchResult, SelfPlayResult, read_records, write_records
from mmc.train import EpochLosses, Trained, load_examples, save_examples
from pipelines import services, timing
from pipelines.config import RunnerConfig
from pipelines.files import file_hashes, remove_temporaries, tree_sha256
from pipelines.paths import Paths, code_root
from pipelines.records import JobRecord
from pipelines.runners import job_pool, single_threaded

__all__ = [
    "JobStore",
    "Timed",
    "compute",
    "digest",
    "fingerprint",
    "job_file",
    "job_store",
    "like",
    "longest_first",
    "run_job",
]

logger = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class Timed(Generic[T]):
    """A job's result, the seconds it took, its CPU seconds and numba's compilation within them (wall and CPU)."""

    value: T
    seconds: float
    cpu: float = 0.0
    compiled: float = 0.0
    compiled_cpu: float = 0.0


def compute(job: Job[Any], single_thread: bool) -> Timed[Any]:
    """Run one ``mmc`` job (pure compute: no file access), timed, in this process. A worker process evaluates and
    trains with one torch thread: the machine's cores are shared between workers, not between the threads of one."""
    if single_thread:
        torch.set_num_threads(1)
    compiled, compiled_cpu = timing.compile_seconds(), timing.compile_cpu_seconds()
    cpu, start = time.process_time(), time.perf_counter()
    value = job()
    return Timed(value, time.perf_counter() - start, time.process_time() - cpu, timing.compile_seconds() - compiled,
                 timing.compile_cpu_seconds() - compiled_cpu)  # fmt: skip


@task(name="job", cache_policy=NO_CACHE, retries=1)
def run_job(job: Job[Any], single_thread: bool) -> Timed[Any]:
    """One job as a Prefect task run: computed in the ``process`` runner's pool (:func:`pipelines.runners.job_pool`)
    while the task run itself stays in the flow's process, or here where there is none (a Dask worker, the
    ``thread`` runner)."""
    pool = job_pool()
    if pool is None:
        return compute(job, single_thread)
    return pool.submit(compute, job, single_thread).result()


def fingerprint(job: Job[Any], code: str) -> str:
    """The job's cache key: a SHA-256 over its function, every argument and ``code`` (the library's hash)."""
    digest = hashlib.sha256(code.encode())
    _feed(digest, (job.fn, job.kwargs))
    return digest.hexdigest()


def _feed(digest: Any, value: Any) -> None:
    """Feed ``value`` to ``digest`` unambiguously (type tags and lengths); ``TypeError`` for anything unknown,
    so that a new kind of argument is never silently left out of a cache key."""
    tag = type(value).__qualname__.encode()
    if value is None or isinstance(value, bool | int | float | str):
        digest.update(b"%s:%r;" % (tag, value))
    elif isinstance(value, enum.Enum):
        digest.update(b"%s:%r;" % (tag, value.value))
    elif isinstance(value, np.random.SeedSequence):
        _feed(digest, ("SeedSequence", value.entropy, tuple(value.spawn_key), value.pool_size))
    elif isinstance(value, torch.nn.Module):
        digest.update(b"module:" + tag)
        _feed(digest, getattr(value, "config", None))
        for name, tensor in value.state_dict().items():
            digest.update(name.encode())
            _feed(digest, tensor)
    elif isinstance(value, torch.Tensor):
        _feed(digest, value.detach().cpu().contiguous().numpy())
    elif isinstance(value, np.ndarray):
        digest.update(b"array:%s:%r;" % (value.dtype.str.encode(), value.shape))
        digest.update(np.ascontiguousarray(value).tobytes())
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        digest.update(b"dataclass:" + tag)
        for item in dataclasses.fields(value):
            digest.update(item.name.encode())
            _feed(digest, getattr(value, item.name))
    elif isinstance(value, list | tuple):
        digest.update(b"%s:%d;" % (tag, len(value)))
        for item in value:
            _feed(digest, item)
    elif isinstance(value, frozenset | set):
        digest.update(b"%s:%d;" % (tag, len(value)))
        for item in sorted(value, key=repr):
            _feed(digest, item)
    elif isinstance(value, Mapping):
        digest.update(b"dict:%d;" % len(value))
        for key in sorted(value, key=repr):
            _feed(digest, key)
            _feed(digest, value[key])
    elif callable(value) and hasattr(value, "__qualname__"):
        digest.update(f"function:{value.__module__}.{value.__qualname__};".encode())
    else:
        raise TypeError(f"cannot fingerprint a {type(value).__qualname__}: teach pipelines.jobs._feed about it")


SERVER_CHECK_SECONDS = 30.0
"""How often a stage that waits for its jobs asks whether the Prefect server still answers."""


class ServerGoneError(services.ServiceError):
    """The Prefect server stopped answering while a stage's jobs ran (:func:`completed`); the stage command prints it
    in one line."""


def completed(futures: list[PrefectFuture[Any]], folder: Path, every: float = SERVER_CHECK_SECONDS,
              recheck: float = 5.0) -> Iterator[PrefectFuture[Any]]:  # fmt: skip
    """The futures as they finish, that stops with :class:`ServerGoneError` (one line) when the server at
    ``PREFECT_API_URL`` no longer answers while jobs are pending: once the server is gone, a process pool's task runs
    fail before they report a state, and their futures never finish (a stage waited 1 h 40 min, its worker idle).
    Every ``every`` seconds without a finished job the server's health is asked, and asked again ``recheck`` seconds
    later before the stage gives up.

    It waits on the futures' done callbacks, not on Prefect's ``as_completed(timeout=...)``: in the main thread that
    arms a SIGALRM timer for as long as its generator lives, and the alarm raises ``CancelledError`` in whatever the
    caller does between two futures (a study's evaluate stage crashed so while it saved a finished job)."""
    pending = list(futures)
    finished: queue.Queue[PrefectFuture[Any]] = queue.Queue()
    for future in pending:
        future.add_done_callback(finished.put)
    url = os.environ.get("PREFECT_API_URL", "").rstrip("/")
    while pending:
        try:
            future = finished.get(timeout=every)
        except queue.Empty:
            if not url or services.answers(f"{url}/health", timeout=5.0):
                continue
            time.sleep(recheck)
            if not services.answers(f"{url}/health", timeout=5.0):
                jobs = f"{len(pending)} unfinished job{'s' * (len(pending) != 1)}"
                raise ServerGoneError(
                    f"the Prefect server at {url} stopped answering with {jobs} of this stage; the jobs finished "
                    f"before are kept in {folder}: start the server (make study starts one) and run the stage again"
                ) from None
            continue
        pending.remove(future)
        yield future


class JobStore:
    """The runner of one stage: jobs as Prefect task runs, results kept in ``folder`` (a persistent DVC output).

    ``code`` is the hash of the library code that computes the jobs (``pipelines.paths``); ``single_thread``
    limits worker processes to one torch thread. Call it inside a Prefect flow: the flow's task runner runs the
    submitted jobs. :attr:`seconds` has the seconds of every job it returned (measured when the job ran);
    :meth:`job_seconds` adds them up by kind and key.
    """

    def __init__(self, root: Path, folder: Path, code: str, *, single_thread: bool = True) -> None:
        self.root, self.folder, self.code, self.single_thread = root, folder, code, single_thread
        self.seconds: dict[str, float] = {}
        self.spent: list[timing.Spent] = []
        """What each job computed by this store cost (:mod:`pipelines.timing`); a kept job costs nothing now."""
        self.waited = 0.0
        """Wall seconds spent waiting for computed jobs (and writing their results)."""
        self.done_before = 0
        self.computed = 0
        remove_temporaries(folder)
        folder.mkdir(parents=True, exist_ok=True)

    def __call__(self, jobs: Sequence[Job[Any]]) -> list[Any]:
        """Each job's result, kept or computed; jobs of one call with the same fingerprint are computed once and kept
        under each name. The task runs are submitted without the flow run's tags (the
        stage, variant and replicate stay on the flow run, where the UI filters): Prefect asks the server for a
        concurrency slot of every tag of a task run before it starts, which left a worker idle for up to two
        seconds per job (measured on the expert stage)."""
        names = [job.name for job in jobs]
        if len(set(names)) < len(names):
            raise ValueError(f"job names must be unique within a call: {names}")
        results: list[Any] = [None] * len(jobs)
        missing: dict[str, list[int]] = {}  # a computation to run: its key, the jobs it answers
        for index, job in enumerate(jobs):
            key = fingerprint(job, self.code)
            kept = self._load(job, key)
            if kept is not None:
                results[index] = kept
                self.done_before += 1
                continue
            # the same computation under another name (MetaFocus's self-play is JOAT's) runs once
            missing.setdefault(key, []).append(index)
        pending: dict[PrefectFuture[Any], tuple[str, list[int]]] = {}
        last = {like(name): seconds for name, seconds in self.seconds.items()}  # the latest of each, in job order
        for key in longest_first(list(missing), [jobs[indices[0]].name for indices in missing.values()], last):
            job = jobs[missing[key][0]]
            with TagsContext(current_tags=set()):  # untagged: see above
                submitted = run_job.with_options(name=job.kind, task_run_name=job.name).submit(job, self.single_thread)
            pending[submitted] = (key, missing[key])
        since = time.perf_counter()
        for future in completed(list(pending), self.folder):
            timed: Timed[Any] = future.result()
            key, indices = pending[future]
            kind, name = jobs[indices[0]].kind, jobs[indices[0]].name
            self.spent += timing.job_spent(kind, name, timed.seconds, timed.cpu, timed.compiled, timed.compiled_cpu,
                                           _shares(timed.value))  # fmt: skip
            for index in indices:
                self._save(jobs[index], key, timed)
                results[index] = timed.value
                self.computed += 1
        self.waited += time.perf_counter() - since if pending else 0.0
        return results

    def job_seconds(self, kinds: Iterable[str], keys: Iterable[Sequence[str]]) -> float:
        """Seconds (rounded to ms) that the jobs of ``kinds`` at or under ``keys`` took: the job named ``{kind}-{key}``
        and the jobs named ``{kind}-{key}-...`` (kind ``self-play``, key ``("gardner", "gen003")``: that
        generation's chunks). A key names a job of one of ``mmc``'s loops the way its ``Job.key`` does."""
        parts = [tuple(key) for key in keys]
        prefixes = ["-".join((kind, *key)) for kind in kinds for key in parts]
        total = sum(
            (s for name, s in self.seconds.items() if any(name == p or name.startswith(f"{p}-") for p in prefixes)),
            0.0,
        )
        return round(total, 3)

    def finish(self, log: Any, name: str) -> None:
        """Log how many jobs were kept and computed (``log``: the flow's logger), then :meth:`prune`."""
        log.info("%s: %d jobs were done already, %d computed now", name, self.done_before, self.computed)
        self.prune()

    def prune(self) -> list[Path]:
        """Delete the files of jobs this store did not return (left from other parameters or a longer run)."""
        used = set(self.seconds)
        stale = [p for p in self.folder.iterdir() if p.is_file() and _job_name(p) not in used]
        for path in stale:
            path.unlink()
        return stale

    # -- files -----------------------------------------------------------------------------------------------
    def _path(self, job: Job[Any], suffix: str) -> Path:
        return job_file(self.folder, job.name, suffix)

    def recorded(self, job: Job[Any]) -> Any:
        """The result kept under ``job``'s name whatever its fingerprint (what ``pipelines.rows`` refits a row from:
        the recorded games, not what the code of today would key them by); ``None`` if none is kept or its files do
        not match their record."""
        return self._load(job, None)

    def _load(self, job: Job[Any], key: str | None) -> Any:
        record = JobRecord.read(self.root, self._path(job, ".done.json"))
        if record is None or (key is not None and record.fingerprint != key) or record.name != job.name:
            return None
        self.seconds[job.name] = record.seconds
        if record.result == "self-play":
            examples = load_examples(self._path(job, ".npz"))
            return SelfPlayResult([examples], read_records(self._path(job, ".pgn")), int(record.summary["plies"]))
        if record.result == "trained":
            losses = [EpochLosses(**epoch) for epoch in record.summary["losses"]]
            return Trained(load_checkpoint(self._path(job, ".pt"))[0], losses)
        if record.result == "match":
            tally = record.summary
            return MatchResult(tally["wins"], tally["draws"], tally["losses"], read_records(self._path(job, ".pgn")))
        if record.result == "matches":
            return _matches(record, self._path(job, ".pgn"))
        if record.result == "mistakes":
            summary = dict(record.summary)
            summary["marks"] = tuple(mark == "1" for mark in summary["marks"])
            return MistakeRate(**summary)
        return None

    def _save(self, job: Job[Any], key: str, timed: Timed[Any]) -> None:
        value = timed.value
        summary: dict[str, Any]
        if isinstance(value, SelfPlayResult):
            (examples,) = value.examples  # one variant: one board size
            files = [
                save_examples(examples, self._path(job, ".npz")),
                write_records(value.records, self._path(job, ".pgn")),
            ]
            kind, summary = "self-play", {"games": len(value.records), "plies": value.plies, "examples": len(examples)}
        elif isinstance(value, Trained):
            model = save_checkpoint(value.net, value.net.config, self._path(job, ".pt"))
            files = [model, config_path(model)]
            kind, summary = "trained", {"losses": [dataclasses.asdict(epoch) for epoch in value.losses]}
        elif isinstance(value, MatchResult):
            files = [write_records(value.records, self._path(job, ".pgn"))]
            kind, summary = "match", {"wins": value.wins, "draws": value.draws, "losses": value.losses}
        elif _is_matches(value):
            files = [write_records([r for match in value for r in match.records], self._path(job, ".pgn"))]
            tallies = [{"wins": m.wins, "draws": m.draws, "losses": m.losses} for m in value]
            kind, summary = "matches", {"matches": tallies}
        elif isinstance(value, MistakeRate):
            files = []
            summary = dataclasses.asdict(value)
            summary["marks"] = "".join("1" if mark else "0" for mark in value.marks)
            kind = "mistakes"
        else:
            raise TypeError(f"job {job.name} returned a {type(value).__qualname__}, which pipelines.jobs cannot keep")
        self.seconds[job.name] = round(timed.seconds, 3)
        record = JobRecord(job.name, kind, key, self.seconds[job.name], summary, file_hashes(self.root, files))
        record.write(self._path(job, ".done.json"))


GENERATION = re.compile(r"-gen\d+(?=-|$)")
"""The generation in a job's name (``self-play-atomic-gen003``): jobs alike but for it cost about the same."""


def like(name: str) -> str:
    """A job's name without its generation: ``self-play-gardner-gen003-chunk01`` -> ``self-play-gardner-chunk01``."""
    return GENERATION.sub("", name)


def longest_first(keys: Sequence[str], names: Sequence[str], last: Mapping[str, float]) -> list[str]:
    """``keys`` (the computations of jobs ``names``) in the order to submit them: the longest expected first, so
    that the workers of a pool finish together (longest processing time first, Graham 1969). A job is expected
    to take what the latest job :func:`like` it took (``last``); a job with none goes first, in the given
    order. The results are the same in any order: it only shortens the wait for the last job of a call."""
    expected = [last.get(like(name), math.inf) for name in names]
    order = sorted(range(len(keys)), key=lambda i: -expected[i])  # stable: ties keep their order
    return [keys[i] for i in order]


def _is_matches(value: Any) -> bool:
    """Whether a job's result is the matches of one player's cells (``mmc.evaluation.evaluate.evaluation_matches``)."""
    return isinstance(value, list) and bool(value) and all(isinstance(v, MatchResult) for v in value)


def _shares(value: Any) -> list[float] | None:
    """How a job of several matches (a model's cells) shares its time among them: each match's seconds of moves
    (``MatchResult.seconds``); ``None`` for any other job."""
    return [v.seconds for v in value] if _is_matches(value) and len(value) > 1 else None


def _matches(record: JobRecord, games: Path) -> list[MatchResult]:
    """The matches of a job of a model's cells (``mmc.evaluation.evaluate.evaluation_matches``), from its record's
    tallies and its games (every match's records, one match after the other, in ``games``)."""
    records = read_records(games)
    matches = []
    for tally in record.summary["matches"]:
        count = tally["wins"] + tally["draws"] + tally["losses"]
        matches.append(MatchResult(tally["wins"], tally["draws"], tally["losses"], records[:count]))
        records = records[count:]
    return matches


def cell_records(root: Path, folder: Path, variant: str, player: str, opponent: str) -> list[GameRecord]:
    """The games of one evaluation cell, ``player`` (a model) against ``opponent``, kept by the job store in
    ``folder`` (an ``evaluate@T`` stage's): from the job of the model's cells (``match-{variant}-{player}-vs-...``,
    ``mmc.evaluation.evaluate``). ``FileNotFoundError`` naming the cell when no kept job played it."""
    cell = match_name(variant, player, opponent)
    for done in sorted(folder.glob(f"{glob.escape(cell.rpartition('-vs-')[0])}-vs-*.done.json")):
        record = JobRecord.read(root, done)
        if record is not None and record.result == "matches" and cell in (cells := cell_names(record.name)):
            return _matches(record, done.with_name(f"{record.name}.pgn"))[cells.index(cell)].records
    raise FileNotFoundError(f"no kept job in {folder} played the cell {player} vs {opponent} of {variant}")


def job_file(folder: Path, name: str, suffix: str) -> Path:
    """The file a finished job ``name`` wrote in a store's ``folder``: ``.pt``, ``.pgn``, ``.npz`` or ``.done.json``."""
    return folder / f"{name}{suffix}"


def _job_name(path: Path) -> str:
    """The job a file belongs to: its name without the suffixes this module writes (``x.pt``, ``x.json``)."""
    name = path.name
    for suffix in (".done.json", ".npz", ".pgn", ".pt", ".json"):
        if name.endswith(suffix):
            return name.removesuffix(suffix)
    return name


def digest(value: Any) -> str:
    """A SHA-256 of ``value`` as :func:`fingerprint` sees arguments (a stage's inputs, in tests)."""
    hasher = hashlib.sha256()
    _feed(hasher, value)
    return hasher.hexdigest()


def job_store(paths: Paths, stage: str, name: str, code: tuple[str, ...], runner: RunnerConfig) -> JobStore:
    """The :class:`JobStore` of stage ``stage`` for ``name`` (``paths.jobs``), keyed with the hash of ``code`` (entries
    under :func:`pipelines.paths.code_root`, the installed code's folder, not the study's)."""
    return JobStore(
        paths.root, paths.jobs(stage, name), tree_sha256(code_root(), code), single_thread=single_threaded(runner)
    )
