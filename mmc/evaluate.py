"""Evaluation: models with search against opponents, one match per cell, on shared openings.

A :class:`Cell` is a model (a network searched with ``config.search``) against one opponent: a player spec
(``random``, ``greedy``, ``mcts:200``, ``fairy:nodes=1``; ``mmc.play.parse_player``) or another network
searched the same way (the study's "unadapted" opponent: the model's own start). Each cell is one job
(``match-{variant}-{player}-vs-{opponent}``, ``mmc.fanout``): ``config.games`` games, colours alternating, every
pair of games from its own random opening. Cells against the same opponent draw their openings from the same
stream (``("openings", opponent)`` of the ``seed`` argument), so models are compared on the same positions.
This is the one implementation: the study's ``evaluate@T`` stage calls :func:`evaluate` with its runner.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mmc.configs import ConfigError
from mmc.fanout import Job, Runner, serial
from mmc.nn.network import PolicyValueNet
from mmc.play import MatchResult, Player, close_player, parse_player, play_match
from mmc.play.search_players import MCTSPlayer
from mmc.search import NetworkLeafEvaluator, SearchConfig
from mmc.seeding import derive, rng

__all__ = ["Cell", "EvaluateConfig", "evaluate", "evaluation_match", "match_name", "slug"]


@dataclass(frozen=True)
class EvaluateConfig:
    """How every cell is played (the default study's ``params.yaml`` section ``evaluate``, less its opponents)."""

    games: int = 100
    """Games per cell, both colours, paired random openings."""
    search: SearchConfig = field(default_factory=lambda: SearchConfig(simulations=24, temperature_plies=0))
    """The models' search (and a network opponent's). Players search without root noise and play the most
    visited move (``mmc.play.search_players.MCTSPlayer``)."""
    opening_plies: int = 4
    """Random plies before each pair of games."""
    max_plies: int = 150
    """Ply cap of every game."""

    def __post_init__(self) -> None:
        for name in ("games", "max_plies"):
            if getattr(self, name) < 1:
                raise ConfigError("EvaluateConfig", name, f"must be an int >= 1, got {getattr(self, name)}")
        if not 0 <= self.opening_plies < self.max_plies:
            raise ConfigError("EvaluateConfig", "opening_plies", f"must be in [0, max_plies), got {self.opening_plies}")


@dataclass(frozen=True)
class Cell:
    """One model against one opponent."""

    player: str
    """The model's name in records and job names (``joat-b100``)."""
    net: PolicyValueNet = field(repr=False)
    opponent: str
    """A player spec, or the label of ``opponent_net`` (``unadapted``); it keys the openings' stream."""
    opponent_net: PolicyValueNet | None = field(default=None, repr=False)
    """A network opponent, searched like the model; ``None``: ``opponent`` is a player spec."""
    opponent_name: str = ""
    """The opponent's name in records (default: ``opponent``)."""


def evaluation_match(
    net: PolicyValueNet, player: str, opponent: str, opponent_net: PolicyValueNet | None, opponent_name: str,
    variant: str, config: EvaluateConfig, seed: np.random.SeedSequence,
) -> MatchResult:  # fmt: skip
    """``net`` with MCTS (first player) against the opponent: a :class:`MatchResult` from the model's view."""
    model = MCTSPlayer(NetworkLeafEvaluator(net), config.search, name=player)
    if opponent_net is not None:
        other: Player = MCTSPlayer(NetworkLeafEvaluator(opponent_net), config.search, name=opponent_name or opponent)
    else:
        other = parse_player(opponent, variant=variant)
    try:
        return play_match(model, other, variant, config.games, rng(seed), opening_plies=config.opening_plies,
                          max_plies=config.max_plies)  # fmt: skip
    finally:
        close_player(other)


def evaluate(
    cells: Sequence[Cell], variant: str, config: EvaluateConfig, seed: np.random.SeedSequence, *,
    run: Runner = serial,
) -> list[MatchResult]:  # fmt: skip
    """Play every cell (one job each); the results in the order of ``cells``."""
    jobs = [
        Job(
            "match",
            _key(variant, cell.player, cell.opponent),
            evaluation_match,
            (
                cell.net,
                cell.player,
                cell.opponent,
                cell.opponent_net,
                cell.opponent_name,
                variant,
                config,
                derive(seed, "openings", cell.opponent),
            ),
        )
        for cell in cells
    ]
    return run(jobs)


def slug(name: str) -> str:
    """A player spec or name made safe for file names and metric keys: ``fairy:nodes=1`` -> ``fairy_nodes_1``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "player"


def _key(variant: str, player: str, opponent: str) -> tuple[str, ...]:
    return (variant, player, "vs", slug(opponent))


def match_name(variant: str, player: str, opponent: str) -> str:
    """The name of a cell's job (``match-gardner-joat-b100-vs-greedy``): its files in a job store."""
    return "-".join(("match", *_key(variant, player, opponent)))
