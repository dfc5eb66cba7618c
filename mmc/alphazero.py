"""The single-variant AlphaZero loop: self-play, train, arena with gating, repeated for some generations.

Each piece is a library function of its own (``mmc.play.self_play``, ``mmc.train.train``,
``mmc.play.play_match`` and ``gate``); this module strings them together the way the seed project's
"single-variant training architecture" did (alpha-zero-general's coach), for notebooks, tests and the
pipeline's expert stage. A rejected candidate is dropped and the champion plays the next generation's
self-play (alpha-zero-general; AlphaGo Zero's evaluator).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import torch

from mmc.nn.network import PolicyValueNet
from mmc.play.arena import MatchResult, gate, play_match
from mmc.play.search_players import MCTSPlayer
from mmc.play.selfplay import SelfPlayResult, self_play
from mmc.search import NetworkLeafEvaluator, SearchConfig
from mmc.train import EpochLosses, Examples, TrainConfig, replay_window, train

__all__ = ["AlphaZeroConfig", "Generation", "alphazero", "arena", "generation"]


@dataclass(frozen=True)
class AlphaZeroConfig:
    """Budget of the loop; the search and training settings have configs of their own."""

    generations: int = 3
    """Self-play -> train -> arena rounds."""
    games: int = 64
    """Self-play games per generation."""
    concurrent: int = 64
    """Self-play games searched together (one network call per search step for all of them)."""
    max_plies: int = 150
    """Ply cap of every game (the seed's 150)."""
    window: int = 2
    """Replay window: training reads the examples of the last ``window`` generations."""
    arena_games: int = 20
    """Candidate vs champion games per generation (0 accepts every candidate)."""
    arena_simulations: int = 32
    """Simulations per move of both players in the arena."""
    gate_threshold: float = 0.55
    """Accept the candidate when its score against the champion reaches this (the seed used 0.6)."""

    def __post_init__(self) -> None:
        for name in ("generations", "games", "concurrent", "max_plies", "window", "arena_simulations"):
            if getattr(self, name) < 1:
                raise ValueError(f"AlphaZeroConfig.{name} must be >= 1, got {getattr(self, name)}")
        if self.arena_games < 0 or not 0 <= self.gate_threshold <= 1:
            raise ValueError("AlphaZeroConfig.arena_games must be >= 0 and gate_threshold in [0, 1]")


@dataclass(frozen=True)
class Generation:
    """What one generation did."""

    index: int
    self_play: SelfPlayResult
    losses: list[EpochLosses]
    arena: MatchResult | None
    """Candidate (first player) vs champion; ``None`` when ``arena_games`` is 0."""
    accepted: bool
    champion: PolicyValueNet = field(repr=False)
    """The network after gating (the candidate if accepted, else the previous champion)."""


def arena(candidate: PolicyValueNet, champion: PolicyValueNet, variant: str, games: int, simulations: int,
          rng: np.random.Generator, *, max_plies: int = 150) -> MatchResult:  # fmt: skip
    """Candidate vs champion, both with network MCTS at ``simulations`` per move, alternating colours."""
    config = SearchConfig(simulations=simulations)
    a = MCTSPlayer(NetworkLeafEvaluator(candidate), config, name="candidate")
    b = MCTSPlayer(NetworkLeafEvaluator(champion), config, name="champion")
    return play_match(a, b, variant, games, rng, max_plies=max_plies)


def generation(
    index: int, champion: PolicyValueNet, history: list[list[Examples]], variant: str, config: AlphaZeroConfig,
    search: SearchConfig, training: TrainConfig, rng: np.random.Generator, *, progress: bool = False,
) -> Generation:  # fmt: skip
    """One generation: self-play with ``champion`` (appended to ``history``), train a copy on the replay
    window, then gate it against ``champion``."""
    selfplay_rng, train_seed, arena_rng = rng.spawn(3)
    played = self_play(
        NetworkLeafEvaluator(champion), variant, config.games, search, selfplay_rng, concurrent=config.concurrent,
        max_plies=config.max_plies, first_game_id=index * config.games, seed_label=f"gen{index}", progress=progress,
    )  # fmt: skip
    history.append(played.examples)
    candidate = copy.deepcopy(champion)
    generator = torch.Generator().manual_seed(int(train_seed.integers(2**63)))
    losses = train(candidate, replay_window(history, config.window), training, generator)
    result = None
    accepted = True
    if config.arena_games:
        result = arena(candidate, champion, variant, config.arena_games, config.arena_simulations, arena_rng,
                       max_plies=config.max_plies)  # fmt: skip
        accepted = gate(result, config.gate_threshold)
    return Generation(index, played, losses, result, accepted, candidate if accepted else champion)


def alphazero(
    net: PolicyValueNet, variant: str, config: AlphaZeroConfig, search: SearchConfig, training: TrainConfig,
    rng: np.random.Generator, *, progress: bool = False,
) -> Iterator[Generation]:  # fmt: skip
    """Run ``config.generations`` generations from ``net`` (left untouched), yielding each as it finishes."""
    champion = net
    history: list[list[Examples]] = []
    for index, child in enumerate(rng.spawn(config.generations)):
        step = generation(index, champion, history, variant, config, search, training, child, progress=progress)
        champion = step.champion
        yield step
