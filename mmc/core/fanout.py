"""The fan-out seam: the library's loops hand their independent pieces of work to a runner.

A loop of ``mmc`` (an AlphaZero generation, a JOAT meta-generation, an adaptation, an evaluation) is written
once, here in the library; the pieces of it that can run side by side (self-play chunks, the inner update of
each task, arena and evaluation matches) are :class:`Job` values, and the loop passes a list of them to a
:data:`Runner`, which returns their results in the same order. :func:`serial` runs them one after the other in
this process (notebooks, tests); the study's stages pass a runner that submits each job as a Prefect task
(to a process pool or a Dask cluster) and keeps every finished job's result on disk, so a killed stage
resumes where it stopped (``pipelines.jobs``), the way mctx takes a ``recurrent_fn`` and kedro a runner.

A job is data: a module-level function and its arguments by parameter name (picklable, so it can travel to
another process), plus a ``kind`` and a ``key`` that name it. Its arguments are everything its result depends on,
so a runner can derive a cache key from them. They are keywords, checked against the function's signature when the
job is made: a misspelt, missing or unknown name fails there, and a reordered signature cannot swap two values.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

__all__ = ["Job", "Runner", "serial", "split_evenly"]

T = TypeVar("T")


@dataclass(frozen=True)
class Job(Generic[T]):
    """``fn(**kwargs)``, named ``{kind}-{key...}`` (``self-play-gardner-gen003-chunk01``).

    ``TypeError`` when ``kwargs`` do not bind to ``fn``'s parameters (an unknown name, a missing required one)."""

    kind: str
    """What the job does: ``self-play``, ``train``, ``arena``, ``match``."""
    key: tuple[str, ...]
    """Where it sits in its loop, as name parts: ``("gardner", "gen003", "chunk01")``."""
    fn: Callable[..., T] = field(repr=False)
    """A module-level function (so that the job pickles)."""
    kwargs: Mapping[str, Any] = field(repr=False)
    """Every input of ``fn`` by parameter name: networks, configs, data, the seed."""

    def __post_init__(self) -> None:
        try:
            inspect.signature(self.fn).bind(**self.kwargs)
        except TypeError as error:
            raise TypeError(f"job {self.name}: {self.fn.__qualname__}() {error}") from None

    @property
    def name(self) -> str:
        return "-".join((self.kind, *self.key))

    def __call__(self) -> T:
        return self.fn(**self.kwargs)


Runner = Callable[[Sequence[Job[Any]]], list[Any]]
"""Runs jobs (in any order, anywhere) and returns their results in the order of the jobs."""


def serial(jobs: Sequence[Job[Any]]) -> list[Any]:
    """The plain runner: every job in turn, in this process."""
    return [job() for job in jobs]


def split_evenly(total: int, parts: int) -> list[int]:
    """``total`` split into at most ``parts`` non-empty shares as even as they go (the first ones one larger)."""
    parts = max(1, min(parts, total))
    base, extra = divmod(total, parts)
    return [base + (i < extra) for i in range(parts)]
