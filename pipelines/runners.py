"""The Prefect task runner that fans out self-play chunks and evaluation matches (``runner`` in params.yaml).

- ``process`` (default): Prefect's ``ProcessPoolTaskRunner``, ``workers`` local processes (spawned, one torch
  thread each): true parallelism on one machine.
- ``dask``: prefect-dask's ``DaskTaskRunner``. With ``address`` (``tcp://scheduler:8786``) it submits to that
  running cluster, whose workers need this project's Python environment (``pip install -e '.[study]'``) and
  nothing else: tasks take their inputs and return results, only the flow writes files. Without ``address``
  it starts a ``distributed.LocalCluster`` of ``workers`` single-threaded processes (no dashboard).
- ``thread``: a thread pool in the flow's process, for debugging.

In the study's warm stage worker (:mod:`pipelines.worker`) ``process`` borrows the worker's own pool
(:func:`keep_pool`): its processes start once per study, not once per stage, and keep their imports and
compiled code.

The runner never changes a result: seeds are keyed by chunk, and every chunk is played the same wherever
it runs (a job sets its torch threads itself, in a fresh process as in a kept one).
"""

from __future__ import annotations

import time
from concurrent.futures import Future
from typing import Any, Self

from prefect.task_runners import ProcessPoolTaskRunner, TaskRunner, ThreadPoolTaskRunner

from pipelines.config import RunnerConfig

__all__ = ["drop_pool", "keep_pool", "single_threaded", "task_runner"]

_kept: ProcessPoolTaskRunner | None = None
"""The warm worker's pool (:func:`keep_pool`): a started runner that no flow enters or leaves."""


def task_runner(config: RunnerConfig) -> Any:
    """A fresh task runner for ``config`` (in the warm worker, ``process`` borrows its kept pool)."""
    if config.kind == "process":
        if _kept is not None and _kept._max_workers == config.workers and _usable(_kept):
            return _BorrowedPool(max_workers=config.workers)
        return ProcessPoolTaskRunner(max_workers=config.workers)
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


def keep_pool(workers: int) -> list[Future[None]]:
    """Start a pool of ``workers`` processes that every later ``process`` runner of this process borrows (the warm
    worker calls it once). Each process is started now and imports the jobs' code, so no stage waits for it: the
    returned futures are done when they have."""
    global _kept
    drop_pool()
    runner = ProcessPoolTaskRunner(max_workers=workers)
    runner.__enter__()
    _kept = runner
    executor = runner._executor
    assert executor is not None
    # A spawned pool starts a process for each task it cannot give to an idle one: one slow task each starts
    # them all, and imports what a job needs in each.
    return [executor.submit(_warm_up) for _ in range(workers)]


def drop_pool() -> None:
    """Stop the kept pool, if any (its processes end)."""
    global _kept
    if _kept is not None:
        runner, _kept = _kept, None
        runner.__exit__(None, None, None)


def _usable(runner: ProcessPoolTaskRunner) -> bool:
    """Whether the kept pool can still run tasks (a process of it that died breaks it)."""
    return runner._executor is not None and not getattr(runner._executor, "_broken", False)


def _warm_up() -> None:
    import pipelines.jobs  # noqa: F401  (torch, numpy, Prefect's task engine and mmc: what every job needs)

    time.sleep(1.0)


class _BorrowedPool(ProcessPoolTaskRunner):
    """A process-pool runner over the kept pool: entering it starts no process, leaving it stops none. Leaving
    cancels what is still queued (a failed flow), as Prefect's own runner does. Where no pool is kept (a pool
    process, whose task context Prefect rebuilds with a copy of the flow's runner) it is Prefect's own runner."""

    def duplicate(self) -> Self:
        return type(self)(max_workers=self._max_workers)

    def __enter__(self) -> Self:
        self._borrowed = _kept is not None
        if not self._borrowed:
            return super().__enter__()
        assert _kept is not None
        TaskRunner.__enter__(self)
        self._executor, self._resolver_executor = _kept._executor, _kept._resolver_executor
        return self

    def cancel_all(self) -> None:
        if not getattr(self, "_borrowed", False):
            return super().cancel_all()
        self._cached_context = self._cached_env = None
        self._cancel_events.clear()  # Prefect's process pool registers none (3.8); its own runner only clears them

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        if not getattr(self, "_borrowed", False):
            return super().__exit__(exc_type, exc_value, traceback)
        self.cancel_all()
        self._executor = self._resolver_executor = None
        TaskRunner.__exit__(self, exc_type, exc_value, traceback)
