"""The Prefect task runner that fans out self-play chunks and evaluation matches (``runner`` in params.yaml).

- ``process`` (default): Prefect's ``ProcessPoolTaskRunner``, ``workers`` local processes (spawned, one torch
  thread each): true parallelism on one machine.
- ``dask``: prefect-dask's ``DaskTaskRunner``. With ``address`` (``tcp://scheduler:8786``) it submits to that
  running cluster, whose workers need this project's Python environment (``pip install -e '.[study]'``) and
  nothing else: tasks take their inputs and return results, only the flow writes files. Without ``address``
  it starts a ``distributed.LocalCluster`` of ``workers`` single-threaded processes (no dashboard).
- ``thread``: a thread pool in the flow's process, for debugging.

The runner never changes a result: seeds are keyed by chunk, and every chunk is played the same wherever
it runs.
"""

from __future__ import annotations

from typing import Any

from prefect.task_runners import ProcessPoolTaskRunner, ThreadPoolTaskRunner

from pipelines.config import RunnerConfig

__all__ = ["single_threaded", "task_runner"]


def task_runner(config: RunnerConfig) -> Any:
    """A fresh task runner for ``config``."""
    if config.kind == "process":
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
