"""The single-variant AlphaZero loop: self-play, train, arena with gating, repeated for some generations.

Each piece is a library function of its own (``mmc.play.selfplay.self_play``, ``mmc.train.trained_copy``,
``mmc.play.play_match`` and ``gate``); this module strings them together the way the seed project's
"single-variant training architecture" did (alpha-zero-general's coach). It is the one implementation: the
study's ``expert@V`` stage calls :func:`alphazero` with a runner that fans the jobs out over Prefect and keeps
them on disk (``mmc.core.fanout``), a notebook or a test calls it with the default serial runner. A rejected
candidate is dropped and the champion plays the next generation's self-play (alpha-zero-general; AlphaGo
Zero's evaluator).

Per generation ``g`` (jobs named ``{kind}-{variant}-gen{g:03d}[-chunk{c:02d}]``):

1. ``self-play``: ``config.games`` games with the champion, in ``config.chunks`` jobs;
2. ``train``: a copy of the champion on the examples of the last ``config.window`` generations (or the newest
   ``config.window_positions`` examples);
3. ``arena``: candidate vs champion, ``config.arena_games`` games in ``config.chunks`` jobs; the candidate
   becomes the champion when its score reaches ``config.gate_threshold``.

Every random stream is derived from the ``seed`` argument (``mmc.core.seeding``): ``("self-play", g, c)``,
``("train", g)``, ``("arena", g, c)``. Every job runs its network on the ``device`` argument (``mmc.nn.DEVICES``,
default ``cpu``) and hands back CPU networks and arrays.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Annotated

import numpy as np

from mmc.core.configs import ConfigError, Count, Range, at_least, check_fields
from mmc.core.fanout import Job, Runner, serial, split_evenly
from mmc.core.seeding import derive, rng
from mmc.nn.device import on_device, resolve_device
from mmc.nn.network import PolicyValueNet
from mmc.play.arena import MatchResult, gate, play_match, split_match
from mmc.play.search_players import MCTSPlayer
from mmc.play.selfplay import SelfPlayResult, self_play
from mmc.search import NetworkLeafEvaluator, SearchConfig
from mmc.train import (
    EpochLosses,
    Examples,
    TrainConfig,
    Trained,
    group_by_size,
    replay_window,
    replay_window_positions,
    trained_copy,
)

__all__ = ["AlphaZeroConfig", "Generation", "alphazero", "arena_match", "combine_self_play", "generation", "play_games"]


@dataclass(frozen=True)
class AlphaZeroConfig:
    """Budget of the loop; the search and training settings have configs of their own. The defaults are the
    default study's (``params.yaml``, section ``expert``)."""

    generations: Count = 12
    """Self-play -> train -> arena rounds."""
    games: Count = 128
    """Self-play games per generation."""
    chunks: Count = 2
    """Self-play jobs per generation (and arena jobs): the fan-out. Each job has its own random stream, so
    the number of chunks changes the games."""
    concurrent: Count = 128
    """Self-play games searched together in one job (one network call per search step for all of them)."""
    max_plies: Count = 150
    """Ply cap of every game (the seed's 150)."""
    window: Count = 3
    """Replay window: training reads the examples of the last ``window`` generations (unless ``window_positions``)."""
    window_positions: Annotated[int, at_least(0)] = 0
    """Replay window in positions: training reads the newest ``window_positions`` examples, however many
    generations they span (``mmc.train.replay_window_positions``), so the window does not grow with a recipe's
    games per generation nor shrink with shorter games. 0: ``window`` generations."""
    arena_games: Annotated[int, at_least(0)] = 0
    """Candidate vs champion games per generation (0 accepts every candidate)."""
    arena_simulations: Count = 32
    """Simulations per move of both players in the arena."""
    gate_threshold: Annotated[float, Range(0, 1)] = 0.55
    """Accept the candidate when its score against the champion reaches this (the seed used 0.6)."""

    def __post_init__(self) -> None:
        check_fields(self)
        if self.chunks > self.games:
            raise ConfigError("AlphaZeroConfig", "chunks", f"must be <= games={self.games}, got {self.chunks}")


@dataclass(frozen=True)
class Generation:
    """What one generation did."""

    index: int
    self_play: SelfPlayResult
    """Every game of the generation (its chunks combined)."""
    losses: list[EpochLosses]
    arena: MatchResult | None
    """Candidate (first player) vs champion; ``None`` when ``arena_games`` is 0."""
    accepted: bool
    candidate: PolicyValueNet = field(repr=False)
    """The network trained in this generation."""
    champion: PolicyValueNet = field(repr=False)
    """The network after gating (the candidate if accepted, else the previous champion)."""
    champion_index: int
    """The generation whose candidate the champion is (-1: the starting network)."""
    window_examples: int
    """The examples the candidate trained on: every row of the replay window (this generation's and up to
    ``config.window - 1`` before it, or the newest ``config.window_positions``)."""


def play_games(
    net: PolicyValueNet, variant: str, games: int, search: SearchConfig, seed: np.random.SeedSequence,
    concurrent: int, max_plies: int, device: str = "cpu", first_game_id: int = 0, label: str = "",
) -> SelfPlayResult:  # fmt: skip
    """``games`` self-play games of ``variant`` with ``net`` searching both sides, its leaves evaluated on
    ``device`` (a self-play job)."""
    evaluator = NetworkLeafEvaluator(on_device(net, resolve_device(device)), precision=search.precision)
    return self_play(
        evaluator, variant, games, search, rng(seed),
        concurrent=min(concurrent, games),
        max_plies=max_plies, first_game_id=first_game_id, seed_label=label or "0",
    )  # fmt: skip


def arena_match(
    candidate: PolicyValueNet, champion: PolicyValueNet, variant: str, games: int, simulations: int,
    seed: np.random.SeedSequence, max_plies: int, precision: str = "fp32", device: str = "cpu",
) -> MatchResult:  # fmt: skip
    """Candidate vs champion, both with network MCTS at ``simulations`` per move (leaves evaluated in
    ``precision`` on ``device``), alternating colours."""
    config = SearchConfig(simulations=simulations, precision=precision)
    where = resolve_device(device)
    a = MCTSPlayer(NetworkLeafEvaluator(on_device(candidate, where), precision=precision), config, name="candidate")
    b = MCTSPlayer(NetworkLeafEvaluator(on_device(champion, where), precision=precision), config, name="champion")
    return play_match(a, b, variant, games, rng(seed), max_plies=max_plies)


def combine_self_play(results: Sequence[SelfPlayResult]) -> SelfPlayResult:
    """One result of several self-play jobs: examples merged per board size, records in job order."""
    examples = group_by_size(part for result in results for part in result.examples)
    records = [record for result in results for record in result.records]
    return SelfPlayResult(examples, records, sum(result.plies for result in results))


def generation(
    index: int, champion: PolicyValueNet, champion_index: int, history: list[list[Examples]], variant: str,
    config: AlphaZeroConfig, search: SearchConfig, training: TrainConfig, seed: np.random.SeedSequence,
    device: str = "cpu", *, run: Runner = serial,
) -> Generation:  # fmt: skip
    """One generation: self-play with ``champion`` (appended to ``history``), train a copy on the replay
    window, then gate it against ``champion``; every job on ``device``."""
    tag = f"gen{index:03d}"
    jobs, first = [], index * config.games
    for chunk, games in enumerate(split_evenly(config.games, config.chunks)):
        kwargs = dict(net=champion, variant=variant, games=games, search=search,
                      seed=derive(seed, "self-play", index, chunk), concurrent=config.concurrent,
                      max_plies=config.max_plies, device=device, first_game_id=first,
                      label=f"{tag}/chunk{chunk}")  # fmt: skip
        jobs.append(Job("self-play", (variant, tag, f"chunk{chunk:02d}"), play_games, kwargs))
        first += games
    played = combine_self_play(run(jobs))
    history.append(played.examples)
    if config.window_positions:
        while len(history) > 1 and sum(len(part) for gen in history[1:] for part in gen) >= config.window_positions:
            del history[0]  # the newer generations hold the whole window: the oldest leaves it for good
        window = replay_window_positions(history, config.window_positions)
    else:
        del history[: -config.window]  # older generations leave the replay window for good
        window = replay_window(history, config.window)
    train = dict(net=champion, examples=window, config=training, seed=derive(seed, "train", index), device=device)
    (trained,) = run([Job("train", (variant, tag), trained_copy, train)])
    assert isinstance(trained, Trained)
    result, accepted = None, True
    if config.arena_games:
        arena = [
            Job(
                "arena",
                (variant, tag, f"chunk{chunk:02d}"),
                arena_match,
                dict(
                    candidate=trained.net,
                    champion=champion,
                    variant=variant,
                    games=games,
                    simulations=config.arena_simulations,
                    seed=derive(seed, "arena", index, chunk),
                    max_plies=config.max_plies,
                    precision=search.precision,
                    device=device,
                ),
            )
            for chunk, games in enumerate(split_match(config.arena_games, config.chunks))
        ]
        result = MatchResult.combine(run(arena))
        accepted = gate(result, config.gate_threshold)
    if accepted:
        champion, champion_index = trained.net, index
    examples = sum(len(part) for part in window)
    return Generation(index, played, trained.losses, result, accepted, trained.net, champion, champion_index, examples)


def alphazero(
    net: PolicyValueNet, variant: str, config: AlphaZeroConfig, search: SearchConfig, training: TrainConfig,
    seed: np.random.SeedSequence, device: str = "cpu", *, run: Runner = serial,
) -> Iterator[Generation]:  # fmt: skip
    """Run ``config.generations`` generations from ``net`` (left untouched) with every job on ``device``
    (``mmc.nn.DEVICES``), yielding each as it finishes."""
    champion, champion_index = net, -1
    history: list[list[Examples]] = []
    for index in range(config.generations):
        step = generation(
            index, champion, champion_index, history, variant, config, search, training, seed, device, run=run
        )
        champion, champion_index = step.champion, step.champion_index
        yield step
