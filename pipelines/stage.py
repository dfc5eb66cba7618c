"""The skeleton every stage flow shares, so that a stage module holds only its loop and its summary.

A stage (``expert``, a learner's (``learn``), ``adapt``, ``evaluate``) is a Prefect flow that
calls one ``mmc`` entry point with its job store as the runner. Around that call every stage does the same chores,
done here once (fmind/mlops-python-package's ``jobs/base.py`` is the model): :func:`open_stage` gets the flow's
logger, limits the flow's own process to one torch thread, opens the stage's :class:`~pipelines.jobs.JobStore`
and its MLflow child run (:func:`pipelines.tracking.stage_run`), logs the stage's params (built by
:func:`logged_params`); when the body ends it logs what the store kept and computed, prunes the store's stale
files (:meth:`~pipelines.jobs.JobStore.finish`) and logs where the stage's time went (:mod:`pipelines.timing`),
and the child run is closed ``FINISHED`` (``FAILED`` if the
body raised, and then nothing is pruned).

A stage's ``inputs()`` returns a small frozen dataclass whose fields are its library call's keyword arguments;
:func:`pipelines.calls.keywords` hands them over (``alphazero(**keywords(inputs(...)), run=stage.store)``), so a
reordered signature fails loudly instead of running with wrong values.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, is_dataclass
from pathlib import Path
from typing import Any

import torch
from prefect import get_run_logger
from prefect.runtime import flow_run

from pipelines import timing, tracking
from pipelines.config import StudyConfig, flatten
from pipelines.jobs import JobStore, job_store
from pipelines.paths import Paths

__all__ = ["Stage", "logged_params", "open_stage"]


@dataclass(frozen=True)
class Stage:
    """An open stage: where it works, its logger, its job store (the library loop's runner) and its MLflow run."""

    paths: Paths
    logger: logging.Logger | logging.LoggerAdapter[logging.Logger]
    """The flow run's logger (Prefect's: its lines show in the UI)."""
    store: JobStore
    run: tracking.StageRun
    clock: timing.Clock
    """Where the stage's time goes (:mod:`pipelines.timing`), logged to its run when it ends."""


@contextmanager
def open_stage(
    study: StudyConfig, root: Path, stage: str, *, variant: str = "", replicate: int | None = None,
    jobs: tuple[str, str], code: tuple[str, ...], params: Mapping[str, Any],
) -> Iterator[Stage]:  # fmt: skip
    """The :class:`Stage` of ``stage@variant`` (of training replicate ``replicate``) under ``root``, inside a flow.

    ``jobs`` is the job store's ``(stage folder, name)`` (``("learn", "joat-r0")``: ``data/jobs/learn/joat-r0``),
    keyed with the hash of the library code ``code`` (``pipelines.paths``); ``params`` are logged to the child run
    flattened (:func:`logged_params`). On a normal exit the store logs its counts and prunes its stale files.
    """
    clock = timing.Clock(workers=study.runner.workers)
    logger = get_run_logger()
    torch.set_num_threads(1)  # the flow's own process (a training job sets its train.threads in its worker)
    paths = Paths(root)
    folder, name = jobs
    store = job_store(paths, folder, name, code, study.runner)
    with tracking.stage_run(paths, stage, variant, flow_run.id, replicate) as run:
        run.log_params(flatten(params))
        yield Stage(paths, logger, store, run, clock)
        store.finish(logger, f"{folder}/{name}")
        clock.waited = store.waited
        run.log_metrics(timing.stage_metrics(clock.split(store.spent)))


def logged_params(
    study: StudyConfig, replicate: int | None, names: Mapping[str, Any], **sections: Any
) -> dict[str, Any]:
    """A stage's MLflow params (nested; :func:`open_stage` flattens them): the study's seed, the training replicate
    (none for a stage of every replicate), the ``names`` of what the stage makes (``{"variant": "gardner"}``), the
    device, then each of ``sections``: a config dataclass as its fields, anything else as it is."""
    params = {"seed": study.seed, **({"replicate": replicate} if replicate is not None else {}), **names}
    params["device"] = study.device
    for section, value in sections.items():
        params[section] = asdict(value) if is_dataclass(value) and not isinstance(value, type) else value
    return params
