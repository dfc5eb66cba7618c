"""The study's Prefect tasks: pure compute, each a call into ``mmc``; the flows read and write the files.

Tasks take networks and configs and return results (no file access), so they run the same in the flow's
process, in a local process pool or on the workers of a remote Dask cluster. Networks travel pickled with
their task (a 2x32 network is about 0.2 MB). A worker process evaluates with one torch thread: the machine's
cores are shared between workers, not between the threads of one. Task caching is off: the study resumes from
its files (``pipelines.generations``), not from Prefect's cache.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np
import torch
from prefect import task
from prefect.cache_policies import NO_CACHE

from mmc.alphazero import arena
from mmc.nn import PolicyValueNet
from mmc.play import MatchResult, close_player, parse_player, play_match
from mmc.play.search_players import MCTSPlayer
from mmc.play.selfplay import SelfPlayResult, self_play
from mmc.search import NetworkLeafEvaluator, SearchConfig
from mmc.train import EpochLosses, Examples, TrainConfig, train

__all__ = [
    "ArenaJob",
    "EvaluationJob",
    "SelfPlayJob",
    "Timed",
    "arena_task",
    "combine",
    "evaluation_task",
    "self_play_task",
    "split_games",
    "train_task",
]


T = TypeVar("T")


@dataclass(frozen=True)
class Timed(Generic[T]):
    """A task's result and the seconds it took."""

    value: T
    seconds: float


@dataclass(frozen=True)
class SelfPlayJob:
    """One chunk of one generation's self-play."""

    variant: str
    generation: int
    chunk: int
    games: int
    first_game_id: int
    """Game ids ``first_game_id .. first_game_id + games - 1``: unique across the chunks of a generation."""
    search: SearchConfig
    concurrent: int
    max_plies: int
    seed: np.random.SeedSequence
    single_thread: bool = True
    """Evaluate with one torch thread (a worker process); ``False`` in the flow's own process."""


@dataclass(frozen=True)
class ArenaJob:
    """One chunk of candidate vs champion games at the end of a generation."""

    variant: str
    generation: int
    chunk: int
    games: int
    simulations: int
    max_plies: int
    seed: np.random.SeedSequence
    single_thread: bool = True


@dataclass(frozen=True)
class EvaluationJob:
    """One evaluation cell: a model (with search) against one opponent."""

    variant: str
    player: str
    """The model's name in the records."""
    opponent: str
    """``mmc.play.parse_player`` spec, or a name when the opponent is a network (``opponent_net``)."""
    games: int
    search: SearchConfig
    opening_plies: int
    max_plies: int
    seed: np.random.SeedSequence
    single_thread: bool = True


def split_games(games: int, parts: int) -> list[int]:
    """``games`` split into at most ``parts`` chunks of whole opening pairs (even counts; an odd total leaves
    the last chunk odd), as evenly as they go; no empty chunk."""
    pairs, odd = divmod(games, 2)
    parts = max(1, min(parts, pairs))
    base, extra = divmod(pairs, parts)
    counts = [2 * (base + (i < extra)) for i in range(parts)]
    counts[-1] += odd
    return counts


def combine(results: list[MatchResult]) -> MatchResult:
    """One match of the chunks ``results`` (tallies summed, records in chunk order)."""
    return MatchResult(
        sum(r.wins for r in results),
        sum(r.draws for r in results),
        sum(r.losses for r in results),
        [record for r in results for record in r.records],
    )


def _threads(single: bool) -> None:
    if single:
        torch.set_num_threads(1)


@task(
    name="self-play",
    task_run_name="self-play-{job.variant}-gen{job.generation:03d}-chunk{job.chunk:02d}",
    cache_policy=NO_CACHE,
    retries=1,
)
def self_play_task(net: PolicyValueNet, job: SelfPlayJob) -> Timed[SelfPlayResult]:
    """Play ``job.games`` self-play games with ``net`` searching both sides; a :class:`SelfPlayResult`."""
    _threads(job.single_thread)
    start = time.perf_counter()
    result: SelfPlayResult = self_play(
        NetworkLeafEvaluator(net),
        job.variant,
        job.games,
        job.search,
        np.random.default_rng(job.seed),
        concurrent=min(job.concurrent, job.games),
        max_plies=job.max_plies,
        first_game_id=job.first_game_id,
        seed_label=f"gen{job.generation}/chunk{job.chunk}",
    )
    return Timed(result, time.perf_counter() - start)


@task(name="train", task_run_name="train-{variant}-gen{generation:03d}", cache_policy=NO_CACHE)
def train_task(
    champion: PolicyValueNet,
    window: list[Examples],
    config: TrainConfig,
    generator: torch.Generator,
    variant: str,
    generation: int,
) -> Timed[tuple[PolicyValueNet, list[EpochLosses]]]:
    """A trained copy of ``champion`` (left untouched) and its per-epoch losses: ``(net, list[EpochLosses])``."""
    start = time.perf_counter()
    candidate = copy.deepcopy(champion)
    losses: list[EpochLosses] = train(candidate, window, config, generator)
    candidate.eval()
    return Timed((candidate, losses), time.perf_counter() - start)


@task(
    name="arena",
    task_run_name="arena-{job.variant}-gen{job.generation:03d}-chunk{job.chunk:02d}",
    cache_policy=NO_CACHE,
    retries=1,
)
def arena_task(candidate: PolicyValueNet, champion: PolicyValueNet, job: ArenaJob) -> Timed[MatchResult]:
    """Candidate (first player) vs champion, alternating colours: a :class:`MatchResult`."""
    _threads(job.single_thread)
    start = time.perf_counter()
    result = arena(
        candidate,
        champion,
        job.variant,
        job.games,
        job.simulations,
        np.random.default_rng(job.seed),
        max_plies=job.max_plies,
    )
    return Timed(result, time.perf_counter() - start)


@task(
    name="evaluate",
    task_run_name="evaluate-{job.variant}-{job.player}-vs-{job.opponent}",
    cache_policy=NO_CACHE,
    retries=1,
)
def evaluation_task(
    net: PolicyValueNet, job: EvaluationJob, opponent_net: PolicyValueNet | None = None
) -> Timed[MatchResult]:
    """``net`` with MCTS (first player) against ``job.opponent`` (or against ``opponent_net`` with the same search,
    named ``job.opponent``): a :class:`MatchResult`."""
    _threads(job.single_thread)
    start = time.perf_counter()
    model = MCTSPlayer(NetworkLeafEvaluator(net), job.search, name=job.player)
    if opponent_net is not None:
        opponent: Any = MCTSPlayer(NetworkLeafEvaluator(opponent_net), job.search, name=job.opponent)
    else:
        opponent = parse_player(job.opponent, variant=job.variant)
    try:
        result: MatchResult = play_match(
            model,
            opponent,
            job.variant,
            job.games,
            np.random.default_rng(job.seed),
            opening_plies=job.opening_plies,
            max_plies=job.max_plies,
        )
    finally:
        close_player(opponent)
    return Timed(result, time.perf_counter() - start)
