"""Evaluation: models with search against opponents, one match per cell, on shared openings.

A :class:`Cell` is a model (a network searched with ``config.search``) against one opponent: a player spec
(``random``, ``greedy``, ``mcts:200``, ``fairy:nodes=1``; ``mmc.play.parse_player``) or another network
searched the same way (the study's "unadapted" opponent: the model's own start). A player's cells are one job
(``match-{variant}-{player}-vs-{opponent}+{opponent}...``, ``mmc.core.fanout``), whose games all advance together, so
that a model's network searches the positions of all its cells in one batch (``mmc.play.play_matches``). A cell
plays ``config.games`` games, colours alternating, every pair of games from its own random opening; with
``config.settle_games``, a cell whose first round settles it (a score of at least ``config.settle_score``, or at
most its complement) stops there (:func:`settled`). Cells against the same opponent draw their openings from the
same stream (``("openings", opponent)`` of the ``seed`` argument), so models are compared on the same positions.
Networks run on the ``device`` argument (``mmc.nn.DEVICES``, default ``cpu``). This is the one implementation:
the study's ``evaluate@T`` stage calls :func:`evaluate` with its runner.

:func:`rate` puts the models on one Elo scale (``mmc.evaluation.rating``): with the cells' games, a ladder of fixed
anchors (random, pure MCTS, greedy, Fairy-Stockfish at several node counts) and each model's games against the
anchors and models nearest its first estimate, all fitted together with ``greedy`` at 0.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Annotated

import numpy as np

from mmc.core.configs import POSITIVE, ConfigError, Count, at_least, check_fields
from mmc.core.fanout import Job, Runner, serial
from mmc.core.seeding import derive, rng
from mmc.evaluation.rating import Pairing, Ratings, fit_ratings, pairing
from mmc.nn.device import on_device, resolve_device
from mmc.nn.network import PolicyValueNet
from mmc.play import MatchResult, Player, close_player, parse_player, play_matches
from mmc.play.search_players import MCTSPlayer
from mmc.search import NetworkLeafEvaluator, SearchConfig

__all__ = [
    "OPPONENTS_SEPARATOR",
    "Cell",
    "EvaluateConfig",
    "Opponent",
    "RateConfig",
    "Rated",
    "cell_names",
    "evaluate",
    "evaluate_and_rate",
    "evaluation_match",
    "evaluation_matches",
    "ladder",
    "match_name",
    "rate",
    "settled",
    "slug",
]


@dataclass(frozen=True)
class EvaluateConfig:
    """How every cell is played (the default study's ``params.yaml`` section ``evaluate``, less its opponents)."""

    games: Count = 30
    """Games per cell, both colours, paired random openings."""
    search: SearchConfig = field(default_factory=lambda: SearchConfig(simulations=24, temperature_plies=0))
    """The models' search (and a network opponent's). Players search without root noise and play the most
    visited move (``mmc.play.search_players.MCTSPlayer``)."""
    opening_plies: int = 4
    """Random plies before each pair of games."""
    max_plies: Count = 150
    """Ply cap of every game."""
    settle_games: int = 10
    """A cell's first round, in games (whole opening pairs: even). Once they are played, a cell whose score is at
    least ``settle_score`` or at most ``1 - settle_score`` is settled and stops there; the others play the rest of
    their games. 0 (or ``games`` or more): every cell plays all its games in one round."""
    settle_score: float = 0.95
    """The score that settles a cell after its first round (in (0.5, 1]). A game between players whose expected
    score is ``p`` tells the rating ``p (1 - p)`` of what an even game does: 0.0475 of 0.25 at 0.95."""

    def __post_init__(self) -> None:
        check_fields(self)
        if not 0 <= self.opening_plies < self.max_plies:
            raise ConfigError("EvaluateConfig", "opening_plies", f"must be in [0, max_plies), got {self.opening_plies}")
        if self.settle_games < 0 or self.settle_games % 2:
            raise ConfigError(
                "EvaluateConfig", "settle_games", f"must be 0 or even (whole opening pairs), got {self.settle_games}"
            )
        if not 0.5 < self.settle_score <= 1:
            raise ConfigError("EvaluateConfig", "settle_score", f"must be in (0.5, 1], got {self.settle_score}")
        for name in ("random_opening_plies", "endgame_starts", "weak_defence"):  # self-play's, never the evaluation's
            if getattr(self.search, name):
                raise ConfigError(
                    "EvaluateConfig", f"search.{name}", f"is self-play only: 0 here, got {getattr(self.search, name)}"
                )


@dataclass(frozen=True)
class Cell:
    """One model against one opponent."""

    player: str
    """The model's name in records and job names (``joat-b100``), or a player spec when ``net`` is ``None``."""
    net: PolicyValueNet | None = field(repr=False)
    """The model, searched with the evaluation's search; ``None``: ``player`` is a player spec (an anchor)."""
    opponent: str
    """A player spec, or the label of ``opponent_net`` (``unadapted``); it keys the openings' stream."""
    opponent_net: PolicyValueNet | None = field(default=None, repr=False)
    """A network opponent, searched like the model; ``None``: ``opponent`` is a player spec."""
    opponent_name: str = ""
    """The opponent's name in records (default: ``opponent``)."""


def _player(net: PolicyValueNet | None, name: str, variant: str, config: EvaluateConfig, device: str) -> Player:
    if net is None:
        return parse_player(name, variant=variant, device=device)
    evaluator = NetworkLeafEvaluator(on_device(net, resolve_device(device)), precision=config.search.precision)
    return MCTSPlayer(evaluator, config.search, name=name)


def evaluation_match(
    net: PolicyValueNet | None, player: str, opponent: str, opponent_net: PolicyValueNet | None, opponent_name: str,
    variant: str, config: EvaluateConfig, seed: np.random.SeedSequence, device: str = "cpu",
) -> MatchResult:  # fmt: skip
    """The player (first) against the opponent: a :class:`MatchResult` from the first player's view. A network
    searches with ``config.search``; a spec is a player of ``mmc.play.parse_player``; networks run on ``device``."""
    opponents = [Opponent(opponent, opponent_net, opponent_name, seed)]
    return evaluation_matches(net, player, opponents, variant, config, device)[0]


@dataclass(frozen=True)
class Opponent:
    """One cell's opponent in :func:`evaluation_matches`: as :class:`Cell`'s fields, and the seed of its openings."""

    opponent: str
    opponent_net: PolicyValueNet | None = field(repr=False)
    opponent_name: str
    seed: np.random.SeedSequence


def evaluation_matches(
    net: PolicyValueNet | None, player: str, opponents: Sequence[Opponent], variant: str, config: EvaluateConfig,
    device: str = "cpu",
) -> list[MatchResult]:  # fmt: skip
    """:func:`evaluation_match` of the player against each of ``opponents``, all the games together
    (``mmc.play.play_matches``: a network searches the positions of every match in one batch); each match plays
    the openings and rounds it would alone (its games differ where the player's search breaks a tie: its draws come
    from the first match's stream). The results in the order of ``opponents``."""
    first = _player(net, player, variant, config, device)
    others: list[Player] = []
    try:
        for o in opponents:
            name = o.opponent_name or o.opponent
            others.append(_player(o.opponent_net, name, variant, config, device) if o.opponent_net
                          else parse_player(o.opponent, variant=variant, device=device))  # fmt: skip
        return play_matches(
            first, others, variant, [config.games] * len(others), [rng(o.seed) for o in opponents],
            opening_plies=config.opening_plies, max_plies=config.max_plies, first_round=config.settle_games,
            settled=partial(settled, score=config.settle_score),
        )  # fmt: skip
    finally:
        close_player(first)
        for other in others:
            close_player(other)


def settled(result: MatchResult, score: float) -> bool:
    """Whether a cell's games so far settle it: its score is at least ``score`` or at most ``1 - score``."""
    return result.score >= score or result.score <= 1 - score


def evaluate(
    cells: Sequence[Cell], variant: str, config: EvaluateConfig, seed: np.random.SeedSequence, device: str = "cpu",
    *, run: Runner = serial,
) -> list[MatchResult]:  # fmt: skip
    """Play every cell (a player's cells are one job, its networks on ``device``); the results in the order of
    ``cells``."""
    groups = _groups(cells)
    return _in_order(groups, run(_match_jobs(cells, groups, variant, config, seed, device)))


def _in_order(groups: Sequence[Sequence[int]], results: Sequence[Sequence[MatchResult]]) -> list[MatchResult]:
    """The groups' jobs' results, one per cell, in the cells' order."""
    found: dict[int, MatchResult] = {}
    for members, matches in zip(groups, results, strict=True):
        found.update(zip(members, matches, strict=True))
    return [found[i] for i in range(len(found))]


def _groups(cells: Sequence[Cell]) -> list[list[int]]:
    """The cells' jobs, as indices into ``cells``: each player's cells together (a model's, or an anchor's on the
    ladder), in the order they first appear."""
    groups: dict[str, list[int]] = {}
    for i, cell in enumerate(cells):
        groups.setdefault(cell.player, []).append(i)
    return list(groups.values())


def _match_jobs(
    cells: Sequence[Cell], groups: Sequence[Sequence[int]], variant: str, config: EvaluateConfig,
    seed: np.random.SeedSequence, device: str,
) -> list[Job[list[MatchResult]]]:  # fmt: skip
    """One job per group (``match-{variant}-{player}-vs-{opponent}[+{opponent}...]``)."""
    jobs = []
    for members in groups:
        first = cells[members[0]]
        opponents = [
            Opponent(c.opponent, c.opponent_net, c.opponent_name, derive(seed, "openings", c.opponent))
            for c in (cells[i] for i in members)
        ]
        key = (variant, slug(first.player), "vs", OPPONENTS_SEPARATOR.join(slug(o.opponent) for o in opponents))
        kwargs = dict(net=first.net, player=first.player, opponents=opponents, variant=variant, config=config,
                      device=device)  # fmt: skip
        jobs.append(Job("match", key, evaluation_matches, kwargs))
    return jobs


def evaluate_and_rate(
    cells: Sequence[Cell], models: Mapping[str, PolicyValueNet | None], anchors: Sequence[str], variant: str,
    config: EvaluateConfig, rate_config: RateConfig, seed: np.random.SeedSequence, device: str = "cpu", *,
    run: Runner = serial,
) -> tuple[list[MatchResult], Rated]:  # fmt: skip
    """:func:`evaluate` of ``cells`` (openings from ``seed``), then :func:`rate` of ``models`` with their games
    (seeded by ``("rate",)`` of ``seed``; a cell's opponent is rated under ``opponent_name``, else ``opponent``):
    the cells' results in their order, and the ratings. The same games as the two calls one after the other, but
    the anchors' ladder is played in one batch with the cells, so that no worker waits between the two."""
    rate_seed = derive(seed, "rate")
    ladder_cells, ladder_config = _ladder(anchors, config, rate_config)
    groups, ladder_groups = _groups(cells), _groups(ladder_cells)
    jobs = [
        *_match_jobs(cells, groups, variant, config, seed, device),
        *_match_jobs(ladder_cells, ladder_groups, variant, ladder_config, derive(rate_seed, "ladder"), device),
    ]
    results = run(jobs)
    cell_results = _in_order(groups, results[: len(groups)])
    ladder_results = _in_order(ladder_groups, results[len(groups) :])
    played = [pairing(c.player, c.opponent_name or c.opponent, r) for c, r in zip(cells, cell_results, strict=True)]
    rated = _rate_models(models, played, ladder_results, anchors, variant, config, rate_config, rate_seed, device, run)
    return cell_results, rated


def slug(name: str) -> str:
    """A player spec or name made safe for file names and metric keys: ``fairy:nodes=1`` -> ``fairy_nodes_1``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "player"


def _key(variant: str, player: str, opponent: str) -> tuple[str, ...]:
    return (variant, slug(player), "vs", slug(opponent))


OPPONENTS_SEPARATOR = "+"
"""Between the opponents of a model's job in its name (``match-gardner-joat-b100-vs-random+greedy``): a character
:func:`slug` never leaves in a name."""


def match_name(variant: str, player: str, opponent: str) -> str:
    """The name of a cell (``match-gardner-joat-b100-vs-greedy``), and of its job when it is its player's only cell:
    its files in a job store."""
    return "-".join(("match", *_key(variant, player, opponent)))


def cell_names(job: str) -> list[str]:
    """The names (:func:`match_name`) of the cells that the job named ``job`` plays, in its order:
    ``match-gardner-x-vs-random+greedy`` -> ``match-gardner-x-vs-random``, ``match-gardner-x-vs-greedy``."""
    head, _, opponents = job.rpartition("-vs-")
    return [f"{head}-vs-{opponent}" for opponent in opponents.split(OPPONENTS_SEPARATOR)]


@dataclass(frozen=True)
class RateConfig:
    """How every model of a target is placed on the Elo scale (the default study's ``params.yaml`` section
    ``rate``): fixed anchors, a ladder of games between them, then each model's games where they tell most."""

    anchors: tuple[str, ...] = ("random", "mcts:25", "greedy", "fairy:nodes=1", "fairy:nodes=10", "fairy:nodes=100")
    """Reference players as ``mmc.play.parse_player`` specs, weakest first as far as known: each plays the next
    two (the ladder). In a variant one cannot play (Fairy-Stockfish's outside its four) it is left out. Add
    ``mcts:100`` after ``greedy`` for a rung above greedy where Fairy-Stockfish does not play (the family studies
    do); where it plays, ``fairy:nodes=1`` is the rung next to greedy, at a fraction of ``mcts:100``'s cost."""
    anchor: str = "greedy"
    """The anchor rated 0 in every variant."""
    ladder_games: Count = 30
    """Games of each pair of anchors on the ladder."""
    games: Count = 20
    """Games of each further pairing of a model with an anchor or a model near its first estimate."""
    neighbours: Annotated[int, at_least(0)] = 2
    """Anchors nearest a model's first estimate (that it has not met) that it then plays; it also plays the
    models next to it in rating order."""
    prior_draws: Annotated[float, POSITIVE] = 2.0
    """Virtual draws per player that keep a perfect score's rating finite (``mmc.evaluation.rating``)."""
    bootstrap: Count = 200
    """Bootstrap refits for the 95 % intervals."""

    def __post_init__(self) -> None:
        check_fields(self)
        if len(self.anchors) < 2 or len(set(self.anchors)) < len(self.anchors):
            raise ConfigError(
                "RateConfig", "anchors", f"must name at least two distinct players, got {list(self.anchors)}"
            )
        if self.anchor not in self.anchors:
            raise ConfigError("RateConfig", "anchor", f"must be one of the anchors, got {self.anchor!r}")


@dataclass(frozen=True)
class Rated:
    """The Elo ratings of a pool and every game they rest on."""

    ratings: Ratings
    pairings: list[Pairing]
    """The played pairings given to :func:`rate`, the ladder's and the neighbours', W/D/L from ``a``'s view."""


def ladder(anchors: Sequence[str]) -> list[tuple[str, str]]:
    """The anchors' pairings: each with the next two in the list (weakest first)."""
    return [(anchors[i], anchors[j]) for i in range(len(anchors)) for j in (i + 1, i + 2) if j < len(anchors)]


def rate(
    models: Mapping[str, PolicyValueNet | None], played: Sequence[Pairing], anchors: Sequence[str], variant: str,
    evaluate_config: EvaluateConfig, config: RateConfig, seed: np.random.SeedSequence, device: str = "cpu", *,
    run: Runner = serial,
) -> Rated:  # fmt: skip
    """Elo of every model (and anchor) of ``variant``, ``config.anchor`` at 0, with 95 % intervals.

    ``models`` maps each rated name to its network, or to ``None`` when the name is a player spec (``mmc rate``).
    ``played`` are games already played by the models (the evaluation cells; a model and its opponents named
    as in ``models`` and ``anchors``). The anchors play their ladder (``config.ladder_games`` each pairing; jobs
    that depend on nothing but the anchors, the seed and ``device``, so a job store keeps them across every other
    change); a first fit places every model; each then plays the ``config.neighbours`` anchors nearest it that it
    has not met, and the model next above it in rating order (``config.games`` each); the final fit over all
    games gives the ratings, bootstrap intervals from ``("fit",)`` of ``seed``. Networks run on ``device``.
    """
    ladder_cells, ladder_config = _ladder(anchors, evaluate_config, config)
    games = evaluate(ladder_cells, variant, ladder_config, derive(seed, "ladder"), device, run=run)
    return _rate_models(models, played, games, anchors, variant, evaluate_config, config, seed, device, run)


def _ladder(
    anchors: Sequence[str], config: EvaluateConfig, rate_config: RateConfig
) -> tuple[list[Cell], EvaluateConfig]:
    """The ladder's cells and how they are played (``rate_config.ladder_games`` each)."""
    return [Cell(a, None, b) for a, b in ladder(anchors)], replace(config, games=rate_config.ladder_games)


def _rate_models(
    models: Mapping[str, PolicyValueNet | None], played: Sequence[Pairing], ladder_games: Sequence[MatchResult],
    anchors: Sequence[str], variant: str, evaluate_config: EvaluateConfig, config: RateConfig,
    seed: np.random.SeedSequence, device: str, run: Runner,
) -> Rated:  # fmt: skip
    """:func:`rate` once its ladder is played (``ladder_games``, in :func:`ladder` order)."""
    pairings = [*played, *(pairing(a, b, r) for (a, b), r in zip(ladder(anchors), ladder_games, strict=True))]
    first = fit_ratings(pairings, config.anchor, rng(derive(seed, "first")), prior_draws=config.prior_draws, samples=1)
    cells = _neighbour_cells(models, anchors, first, pairings, config.neighbours)
    neighbour_config = replace(evaluate_config, games=config.games)
    games = evaluate(cells, variant, neighbour_config, derive(seed, "neighbours"), device, run=run)
    pairings += [pairing(c.player, c.opponent, r) for c, r in zip(cells, games, strict=True)]
    final = fit_ratings(pairings, config.anchor, rng(derive(seed, "fit")), prior_draws=config.prior_draws,
                        samples=config.bootstrap)  # fmt: skip
    return Rated(final, pairings)


def _neighbour_cells(
    models: Mapping[str, PolicyValueNet | None], anchors: Sequence[str], first: Ratings, pairings: Sequence[Pairing],
    neighbours: int,
) -> list[Cell]:  # fmt: skip
    """Each model against the nearest anchors it has not met, and against the next model up in rating order."""
    met = {frozenset((p.a, p.b)) for p in pairings}
    estimate = {name: first.elo.get(name, first.elo[first.anchor]) for name in models}  # unplayed: at the anchor
    cells = []
    for name, net in models.items():
        fresh = [a for a in anchors if frozenset((name, a)) not in met]
        for spec in sorted(fresh, key=lambda a: abs(first.elo[a] - estimate[name]))[:neighbours]:
            cells.append(Cell(name, net, spec))
    order = sorted(models, key=lambda name: estimate[name])
    for lower, upper in itertools.pairwise(order):
        if frozenset((lower, upper)) not in met:
            cells.append(Cell(lower, models[lower], upper, models[upper]))
    return cells
