"""What a chess agent knows about how games end: termination counts, search targets on mates, value calibration,
solve rates on a puzzle suite (``mmc.games.chess.puzzles``), and how a network's prior fits the self-play targets
it was trained on (:func:`prior_fit`). ``benchmarks/diagnose.py`` and ``benchmarks/mates.py`` run these on the
study's experts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from mmc.games.chess import Color, State, Termination, outcome
from mmc.games.chess.greedy import material
from mmc.games.chess.observe import OPPONENT_PIECES_PLANE
from mmc.games.chess.puzzles import Puzzle
from mmc.nn import NetworkEvaluator, PolicyValueNet
from mmc.play import GameRecord, Player, replay
from mmc.search import NetworkLeafEvaluator, SearchConfig, search
from mmc.train import Examples, policy_priors, target_divergence

__all__ = [
    "TERMINATIONS",
    "Calibration",
    "PriorFit",
    "TargetMass",
    "calibration",
    "facing_bare_king",
    "game_positions",
    "prior_fit",
    "solved",
    "target_mass",
    "termination_counts",
]

_KING_LOSS = (Termination.KING_EXPLODED, Termination.KING_CAPTURED, Termination.EXTINCTION)
TERMINATIONS = tuple(t.value for t in Termination if t not in _KING_LOSS)
"""The ends of the variants with checkmate (``Termination``'s values less a lost king), in the order tables print
them."""


def termination_counts(records: Sequence[GameRecord], player: str | None = None) -> dict[str, int]:
    """How ``records`` ended: a count per :class:`~mmc.games.chess.Termination` value; with ``player`` (a name in the
    records), checkmates split into ``checkmate-won`` and ``checkmate-lost`` from that player's view."""
    counts: Counter[str] = Counter()
    for r in records:
        key = r.termination
        if player is not None and r.result != "1/2-1/2":
            won = (r.result == "1-0") == (r.first == player)
            key = f"{key}-{'won' if won else 'lost'}"
        counts[key] += 1
    return dict(counts)


def solved(puzzles: Sequence[Puzzle], player: Player, rng: np.random.Generator) -> list[tuple[bool, bool]]:
    """``player``'s move in every puzzle (one ``play`` call over all): whether it is a best move, and whether it
    stalemates (a stalemate trap's trap)."""
    moves = player.play([p.state for p in puzzles], rng)
    return [(m.uci() in p.best, m.uci() in p.stalemating) for p, m in zip(puzzles, moves, strict=True)]


@dataclass(frozen=True)
class TargetMass:
    """Where a puzzle's search put its policy target."""

    best: float
    """Policy target (``SearchResult.policy``) on the puzzle's best moves."""
    stalemating: float
    """Policy target on its stalemating moves."""
    prior_best: float
    """The network's prior on the best moves (before noise)."""
    prior_stalemating: float
    most_visited_best: bool
    """Whether the most visited move is a best move."""
    best_visited: bool
    """Whether the search visited a best move at all."""
    q_other: float
    """The search's mean value (mover's view) of the most visited move that is not a best move (the mate's own is
    +1): how much better the search thinks the mate is."""
    root_value: float
    """The network's value of the puzzle position, mover's view."""


def target_mass(
    puzzles: Sequence[Puzzle], net: PolicyValueNet, config: SearchConfig, rng: np.random.Generator, *,
    add_noise: bool,
) -> list[TargetMass]:  # fmt: skip
    """Search every puzzle with ``net`` at ``config`` (root Dirichlet noise with ``add_noise``, as self-play) and
    measure the policy target on its best and stalemating moves."""
    states = [p.state for p in puzzles]
    priors, _ = NetworkEvaluator(net)(states)
    results = search(states, NetworkLeafEvaluator(net), config, rng, add_noise=add_noise)
    masses = []
    for p, prior, r in zip(puzzles, priors, results, strict=True):
        best = np.array([m.uci() in p.best for m in r.moves])
        trap = np.array([m.uci() in p.stalemating for m in r.moves])
        top = int(np.argmax(r.visit_counts))
        other = int(np.argmax(np.where(best, -1, r.visit_counts)))
        masses.append(TargetMass(float(r.policy[best].sum()), float(r.policy[trap].sum()), float(prior[best].sum()),
                                 float(prior[trap].sum()), bool(best[top]), bool(r.visit_counts[best].sum() > 0),
                                 float(r.q_values[other]), float(r.network_value)))  # fmt: skip
    return masses


def game_positions(records: Sequence[GameRecord]) -> tuple[list[State], np.ndarray]:
    """Every position of the games before their end, and the game's result from the side to move's view
    (``float[n]``: +1 won, 0 drawn, -1 lost)."""
    states, results = [], []
    for record in records:
        winner = {"1-0": Color.WHITE, "0-1": Color.BLACK}.get(record.result)
        for state in replay(record)[:-1]:
            states.append(state)
            results.append(0.0 if winner is None else (1.0 if state.turn == winner else -1.0))
    return states, np.array(results)


@dataclass(frozen=True)
class Calibration:
    """Predicted value against the final result in one bin (or one group) of positions."""

    low: float
    high: float
    positions: int
    mean_value: float
    """The value head's mean prediction, side to move's view."""
    mean_result: float
    wins: float
    """Fraction of the positions whose side to move went on to win."""
    draws: float
    losses: float


def _summary(low: float, high: float, values: np.ndarray, results: np.ndarray) -> Calibration:
    n = len(values)
    if n == 0:
        return Calibration(low, high, 0, float("nan"), float("nan"), float("nan"), float("nan"), float("nan"))
    return Calibration(low, high, n, float(values.mean()), float(results.mean()), float(np.mean(results > 0)),
                       float(np.mean(results == 0)), float(np.mean(results < 0)))  # fmt: skip


def calibration(
    net: PolicyValueNet, states: Sequence[State], results: np.ndarray, bins: int = 10, *, batch: int = 1024
) -> tuple[list[Calibration], dict[str, Calibration]]:
    """The value head on ``states`` (finished ones skipped) against ``results`` (side to move's view): one
    :class:`Calibration` per equal-width bin of the prediction over [-1, 1], and the groups ``queen-up`` and
    ``queen-down`` (the side to move's material lead is >= 9, or <= -9: :func:`mmc.play.material`)."""
    keep = [i for i, s in enumerate(states) if outcome(s) is None]
    states = [states[i] for i in keep]
    results = np.asarray(results, dtype=np.float64)[keep]
    evaluator = NetworkEvaluator(net)
    chunks = [evaluator(states[i : i + batch])[1] for i in range(0, len(states), batch)]
    values = np.concatenate(chunks) if chunks else np.zeros(0)
    edges = np.linspace(-1.0, 1.0, bins + 1)
    which = np.clip(np.digitize(values, edges[1:-1]), 0, bins - 1)
    binned = [_summary(edges[b], edges[b + 1], values[which == b], results[which == b]) for b in range(bins)]
    lead = np.array([material(s) * int(s.turn) for s in states])
    groups = {
        "queen-up": _summary(9, np.inf, values[lead >= 9], results[lead >= 9]),
        "queen-down": _summary(-np.inf, -9, values[lead <= -9], results[lead <= -9]),
        "all": _summary(-1, 1, values, results),
    }
    return binned, groups


@dataclass(frozen=True)
class PriorFit:
    """How a network's prior (its policy head over the legal actions) fits the policy targets of ``N`` rows."""

    on_top: np.ndarray
    """``float[N]``: the prior on the target's most weighted action (in a won game's last row, the mate)."""
    top_share: np.ndarray
    """``float[N]``: the target's own weight on that action."""
    on_support: np.ndarray
    """``float[N]``: the prior on every action the target gives weight to (a mate-in-one target: on the mates)."""
    agrees: np.ndarray
    """``bool[N]``: the prior's most probable action is one the target weighs most (any of the mates when the
    target spreads evenly over them)."""
    kl: np.ndarray
    """``float[N]``: KL(target || prior) in nats."""


def prior_fit(net: PolicyValueNet, examples: Examples, batch: int = 1024) -> PriorFit:
    """``net``'s prior on every row of ``examples`` (one board size) against the row's policy target."""
    parts: list[tuple[np.ndarray, ...]] = []
    for target32, log_prior32 in policy_priors(net, examples, batch):
        target, log_prior = target32.double(), log_prior32.double()
        top = target.argmax(dim=1, keepdim=True)
        on_top = log_prior.gather(1, top).exp().squeeze(1)
        share = target.gather(1, top).squeeze(1)
        agrees = target.gather(1, log_prior.argmax(dim=1, keepdim=True)).squeeze(1) >= share
        on_support = torch.where(target > 0, log_prior.exp(), 0.0).sum(dim=1)
        kl = target_divergence(target, log_prior)
        parts.append(tuple(t.numpy() for t in (on_top, share, on_support, agrees, kl)))
    if not parts:
        return PriorFit(np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, bool), np.zeros(0))
    columns = [np.concatenate(column) for column in zip(*parts, strict=True)]
    return PriorFit(*columns)


def facing_bare_king(planes: np.ndarray) -> np.ndarray:
    """``bool[N]`` of chess input planes ``float[N, C, H, W]``: the side to move's opponent has its king alone."""
    others = planes[:, OPPONENT_PIECES_PLANE : OPPONENT_PIECES_PLANE + 5]
    return others.reshape(len(planes), -1).sum(axis=1) == 0
