"""The Prefect task runner that fans out self-play chunks and evaluation matches (``runner`` in params.yaml).

- ``process`` (default): ``workers`` local processes (spawned, one torch thread each): true parallelism on one
  machine. Each job's task run stays in the flow's process, on a thread of Prefect's ``ThreadPoolTaskRunner``, and
  hands the job's computation to the pool (:func:`job_pool`, :func:`pipelines.jobs.run_job`): the pool's processes
  compute and nothing else. (Prefect's own ``ProcessPoolTaskRunner`` rebuilt Prefect's settings, client and
  context in the pool process for every task run: about 0.4 CPU-seconds a job, more than a tiny study's jobs
  themselves.)
- ``dask``: prefect-dask's ``DaskTaskRunner``. With ``address`` (``tcp://scheduler:8786``) it submits to that
  running cluster, whose workers need this project's Python environment (``pip install -e '.[study]'``) and
  nothing else: tasks take their inputs and return results, only the flow writes files. Without ``address``
  it starts a ``distributed.LocalCluster`` of ``workers`` single-threaded processes (no dashboard).
- ``thread``: a thread pool in the flow's process, for debugging.

In the study's warm stage worker (:mod:`pipelines.worker`) ``process`` borrows the worker's own pool
(:func:`keep_pool`): its processes start once per study, not once per stage, and keep their imports and
compiled code. A stage in a process of its own starts a pool for its flow and stops it at the end.

The runner never changes a result: seeds are keyed by chunk, and every chunk is played the same wherever
it runs (a job sets its torch threads itself, in a fresh process as in a kept one).
"""

from __future__ import annotations

import importlib
import multiprocessing
import time
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Self

from prefect.task_runners import ThreadPoolTaskRunner

from pipelines.config import RunnerConfig

__all__ = ["drop_pool", "job_pool", "keep_pool", "single_threaded", "task_runner"]

_kept: ProcessPoolExecutor | None = None
"""The warm worker's pool (:func:`keep_pool`), lent to every ``process`` runner of its size."""
_kept_size = 0
"""Its number of processes (a runner of another ``workers`` starts its own)."""
_active: ProcessPoolExecutor | None = None
"""The pool of the ``process`` runner whose flow runs now (:func:`job_pool`)."""


def task_runner(config: RunnerConfig) -> Any:
    """A fresh task runner for ``config`` (in the warm worker, ``process`` borrows its kept pool)."""
    if config.kind == "process":
        return ProcessPoolRunner(max_workers=config.workers)
    if config.kind == "thread":
        return ThreadPoolTaskRunner(max_workers=config.workers)
    from prefect_dask import DaskTaskRunner  # imported only when asked for: it pulls in distributed

    if config.address:
        return DaskTaskRunner(address=config.address)
    cluster_kwargs = {
        "n_workers": config.workers,
        "threads_per_worker": 1,
        "processes": True,
        "dashboard_address": None,
    }
    return DaskTaskRunner(cluster_class="distributed.LocalCluster", cluster_kwargs=cluster_kwargs)


def single_threaded(config: RunnerConfig) -> bool:
    """Whether tasks should limit torch to one thread: they do in worker processes, not in threads."""
    return config.kind != "thread"


def job_pool() -> ProcessPoolExecutor | None:
    """The process pool that a job's task run hands its computation to: the ``process`` runner's while its flow runs
    in this process; ``None`` elsewhere (a Dask worker, the ``thread`` runner), where the task run computes."""
    return _active


def _pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


def keep_pool(workers: int, preload: Sequence[str] = ()) -> list[Future[None]]:
    """Start a pool of ``workers`` processes that every later ``process`` runner of this process borrows (the warm
    worker calls it once). Each process is started now and imports the modules ``preload`` names (the warm worker's:
    the jobs' code, ``pipelines.worker.PRELOAD``), so no stage waits for it: the returned futures are done when they
    have."""
    global _kept, _kept_size
    drop_pool()
    _kept, _kept_size = _pool(workers), workers
    # A spawned pool starts a process for each task it cannot give to an idle one: one slow task each starts
    # them all, and imports what a job needs in each.
    return [_kept.submit(_warm_up, tuple(preload)) for _ in range(workers)]


def drop_pool() -> None:
    """Stop the kept pool, if any (its processes end)."""
    global _kept
    if _kept is not None:
        pool, _kept = _kept, None
        pool.shutdown(wait=True, cancel_futures=True)


def _usable(pool: ProcessPoolExecutor) -> bool:
    """Whether the kept pool can still run jobs (a process of it that died breaks it)."""
    return not getattr(pool, "_broken", False)


def _warm_up(modules: tuple[str, ...]) -> None:
    for name in modules:
        importlib.import_module(name)
    time.sleep(1.0)


class ProcessPoolRunner(ThreadPoolTaskRunner):
    """``process``: Prefect's thread runner, ``max_workers`` task runs at a time, each handing its job to a process
    pool (:func:`job_pool`): the warm worker's kept pool if it has one of this size, else one started for the flow
    and stopped when it ends. Leaving cancels the jobs still queued (a failed flow), as Prefect's runners do."""

    def duplicate(self) -> Self:
        return type(self)(max_workers=self._max_workers)

    def __enter__(self) -> Self:
        global _active
        super().__enter__()
        kept = _kept is not None and _kept_size == self._max_workers and _usable(_kept)
        self._own = None if kept else _pool(self._max_workers)
        _active = _kept if kept else self._own
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        global _active
        try:
            super().__exit__(exc_type, exc_value, traceback)
        finally:
            _active = None
            if self._own is not None:
                self._own.shutdown(wait=True, cancel_futures=True)
