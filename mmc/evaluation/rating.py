"""Elo ratings of a pool of players by maximum likelihood over all their games, with bootstrap 95% intervals.

Model: Bradley–Terry (Bradley & Terry, 1952) on Elo's logistic scale (Elo, 1978). Player ``a`` scores
against ``b`` with expectation ``E = 1 / (1 + 10 ** ((elo_b - elo_a) / 400))``, a draw counting as half a
win and half a loss, so a pair with ``W`` wins, ``D`` draws and ``L`` losses (from ``a``'s view) adds
``(W + D/2) log E + (L + D/2) log(1 - E)`` to the log-likelihood. Ratings are in Elo points. Only
differences are identified, so one player, the anchor, is fixed at ``anchor_elo`` (the study anchors
``greedy`` at 0 in every variant) and the others are free parameters, found by scipy's Newton-CG with the
analytic gradient and Hessian, in natural units (``elo * ln 10 / 400``).

Prior: virtual draws, after Coulom's BayesElo. Each player brings ``prior_draws`` virtual draws, shared
evenly among the opponents it met; a pair that met gets the mean of its two players' shares (so in a round
robin each player has exactly ``prior_draws``). They keep the estimate finite for a player that won or lost
every game, and, as with BayesElo, they pull every score towards 50% and so compress ratings slightly: with
the default 2 in a 5-player round robin (0.5 virtual draws a pair), 45/50 counts as 45.25/50.5, +374 Elo
instead of +382. They act on differences only: another anchor shifts every rating by the same amount.

Intervals: percentile bootstrap over games (Efron & Tibshirani, 1993). Each sample redraws every pair's
games, as many as were played, from its W/D/L proportions with the virtual draws counted as draws (so that a
perfect score, whose observed proportions have no spread, still varies), then refits from the point
estimate, all samples in one vectorised fit. The samples are kept, so a difference's interval is paired.
A perfect scorer's interval lies almost all below its estimate: redrawn games can only lower its score, and
how far above its opponents the estimate sits is set by the prior, since the games cannot bound it.

Means over training replicates and paired comparisons with their verdicts are :mod:`mmc.evaluation.comparison`'s.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.optimize import minimize
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

if TYPE_CHECKING:
    from mmc.play.arena import MatchResult

__all__ = [
    "Pairing",
    "Ratings",
    "elo_difference",
    "expected_score",
    "fit_ratings",
    "pairing",
]

_NATURAL = math.log(10) / 400  # natural log-odds per Elo point
_GRADIENT_TOLERANCE = 1e-6  # times the largest pair's games: far below 0.01 Elo


@dataclass(frozen=True)
class Pairing:
    """Games between players ``a`` and ``b``: ``wins``, ``draws`` and ``losses`` from ``a``'s view."""

    a: str
    b: str
    wins: int
    draws: int
    losses: int

    def __post_init__(self) -> None:
        if self.a == self.b:
            raise ValueError(f"pairing of player {self.a!r} with itself")
        for name in ("wins", "draws", "losses"):
            if getattr(self, name) < 0:
                raise ValueError(f"negative {name} ({getattr(self, name)}) in pairing {self.a!r} vs {self.b!r}")

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


def pairing(a: str, b: str, result: MatchResult) -> Pairing:
    """The :class:`Pairing` of a match ``result`` between ``a`` and ``b`` (its tally is from ``a``'s view)."""
    return Pairing(a, b, result.wins, result.draws, result.losses)


def expected_score(elo_a: float, elo_b: float) -> float:
    """``a``'s expected score against ``b`` in [0, 1] (a draw counting as half a win), ratings in Elo points."""
    return 1 / (1 + 10 ** ((elo_b - elo_a) / 400))


def elo_difference(score: float) -> float:
    """The rating difference in Elo points at which the expected score is ``score`` (0.75 -> +190.8)."""
    if not 0 < score < 1:
        raise ValueError(f"score must be strictly between 0 and 1, got {score}")
    return 400 * math.log10(score / (1 - score))


@dataclass(frozen=True, eq=False)
class Ratings:
    """Elo ratings of a pool with percentile bootstrap intervals at ``level`` (0.95: 95%).

    ``elo``, ``low`` and ``high`` (Elo points) and ``games`` (real games played) are keyed by player, the
    anchor at its fixed rating with an interval of zero width. ``samples`` is the bootstrap, ``[samples,
    players]`` in Elo points, columns in ``players`` order (the order of first appearance in the pairings).
    """

    players: tuple[str, ...]
    elo: dict[str, float]
    low: dict[str, float]
    high: dict[str, float]
    games: dict[str, int]
    anchor: str
    level: float
    samples: np.ndarray

    def difference(self, a: str, b: str) -> tuple[float, float, float]:
        """``elo[a] - elo[b]`` and its percentile interval over the same bootstrap samples, in Elo points."""
        for name in (a, b):
            if name not in self.elo:
                raise ValueError(f"unknown player {name!r}")
        paired = self.samples[:, self.players.index(a)] - self.samples[:, self.players.index(b)]
        low, high = _percentiles(paired, self.level)
        return self.elo[a] - self.elo[b], float(low), float(high)


@dataclass(frozen=True)
class _Pool:
    """Merged games: pair ``k`` is ``players[i[k]]`` vs ``players[j[k]]``, ``wdl[k]`` its W/D/L from ``i``'s view.

    Only pairs with games are kept; ``players`` includes those named in pairings without games.
    """

    players: tuple[str, ...]
    i: np.ndarray
    j: np.ndarray
    wdl: np.ndarray


def _merge(pairings: Sequence[Pairing]) -> _Pool:
    tally: dict[tuple[str, str], np.ndarray] = {}
    for p in pairings:
        key, wdl = ((p.a, p.b), (p.wins, p.draws, p.losses)) if p.a < p.b else ((p.b, p.a), (p.losses, p.draws, p.wins))
        tally[key] = tally.get(key, np.zeros(3)) + wdl
    players = tuple(dict.fromkeys(name for p in pairings for name in (p.a, p.b)))
    played = [key for key, wdl in tally.items() if wdl.sum() > 0]
    i, j = (np.array([players.index(key[side]) for key in played], dtype=np.intp) for side in (0, 1))
    return _Pool(players, i, j, np.array([tally[key] for key in played]).reshape(-1, 3))


def _check_connected(pool: _Pool, anchor: int) -> None:
    size = len(pool.players)
    graph = coo_array((np.ones(len(pool.i)), (pool.i, pool.j)), shape=(size, size))
    _, labels = connected_components(graph, directed=False)
    lost = [name for name, label in zip(pool.players, labels, strict=True) if label != labels[anchor]]
    if lost:
        raise ValueError(f"no games connect {', '.join(map(repr, lost))} to the anchor {pool.players[anchor]!r}")


def _virtual_draws(pool: _Pool, prior_draws: float) -> np.ndarray:
    """``[K]``: each player's ``prior_draws`` shared evenly among its opponents, a pair getting the two shares' mean."""
    opponents = np.bincount(pool.i, minlength=len(pool.players)) + np.bincount(pool.j, minlength=len(pool.players))
    return prior_draws * (1 / opponents[pool.i] + 1 / opponents[pool.j]) / 2


class _Objective:
    """Negative log-likelihood, summed over ``B`` stacked samples, of ``[B, K]`` pair scores out of ``games``.

    Its argument is ``[B * (P - 1)]`` natural-unit ratings, each sample's players but the anchor (at 0).
    """

    def __init__(self, pool: _Pool, anchor: int, score: np.ndarray, games: np.ndarray) -> None:
        incidence = np.zeros((len(pool.i), len(pool.players)))  # [K, P]: +1 for i, -1 for j
        incidence[np.arange(len(pool.i)), pool.i] = 1
        incidence[np.arange(len(pool.j)), pool.j] = -1
        self.incidence = np.delete(incidence, anchor, axis=1)
        self.score, self.games = score, games

    def ratings(self, x: np.ndarray) -> np.ndarray:
        return x.reshape(len(self.score), -1)

    def value_and_gradient(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        d = self.ratings(x) @ self.incidence.T
        value = np.sum(self.score * np.logaddexp(0, -d) + (self.games - self.score) * np.logaddexp(0, d))
        return float(value), ((self.games * expit(d) - self.score) @ self.incidence).ravel()

    def hessian_product(self, x: np.ndarray, v: np.ndarray) -> np.ndarray:
        p = expit(self.ratings(x) @ self.incidence.T)
        return ((self.games * p * (1 - p) * (self.ratings(v) @ self.incidence.T)) @ self.incidence).ravel()


def _maximise(pool: _Pool, anchor: int, score: np.ndarray, games: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Maximum-likelihood ratings ``[B, P]`` in natural units (anchor at 0) of ``[B, K]`` pair scores."""
    objective = _Objective(pool, anchor, score, games)
    x = np.delete(start, anchor, axis=1).ravel()
    hessp, options = objective.hessian_product, {"xtol": 1e-8}
    x = minimize(objective.value_and_gradient, x, jac=True, hessp=hessp, method="Newton-CG", options=options).x
    # At the optimum the line search can stop on rounding ("precision loss"), having nothing left to gain,
    # so convergence is judged by the gradient: each player's expected minus actual score, in games.
    gradient = np.abs(objective.value_and_gradient(x)[1]).max(initial=0.0)
    if gradient > _GRADIENT_TOLERANCE * games.max():
        raise RuntimeError(f"the rating fit did not converge (gradient {gradient:.3g} games)")
    return np.insert(objective.ratings(x), anchor, 0.0, axis=1)


def _percentiles(values: np.ndarray, level: float) -> np.ndarray:
    return np.quantile(values, [(1 - level) / 2, (1 + level) / 2], axis=0)


def _bootstrap(
    pool: _Pool,
    anchor: int,
    augmented: np.ndarray,
    virtual: np.ndarray,
    start: np.ndarray,
    samples: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """``[samples, P]`` refits in natural units, each pair's games redrawn from its ``augmented`` ``[K, 3]`` W/D/L."""
    games = pool.wdl.sum(axis=1)
    proportions = augmented / augmented.sum(axis=1, keepdims=True)
    redrawn = rng.multinomial(games.astype(np.int64), proportions, size=(samples, len(games)))  # [B, K, 3]
    score = redrawn[..., 0] + (redrawn[..., 1] + virtual) / 2
    return _maximise(
        pool, anchor, score, np.broadcast_to(games + virtual, score.shape), np.repeat(start, samples, axis=0)
    )


def fit_ratings(
    pairings: Sequence[Pairing],
    anchor: str,
    rng: np.random.Generator,
    *,
    anchor_elo: float = 0.0,
    prior_draws: float = 2.0,
    samples: int = 200,
    level: float = 0.95,
) -> Ratings:
    """Elo ratings of every player in ``pairings`` by maximum likelihood, ``anchor`` fixed at ``anchor_elo``.

    The same pair may appear several times, either way round; its games are merged. ``prior_draws`` is
    each player's number of virtual draws (the module docstring); ``samples`` bootstrap refits, drawn from
    ``rng``, give the percentile intervals at ``level``. ``ValueError`` if there are no pairings, the anchor
    is not among the players, or some players have no games connecting them to it.
    """
    if not pairings:
        raise ValueError("no pairings to rate")
    if prior_draws <= 0 or samples < 1 or not 0 < level < 1:
        raise ValueError(f"need prior_draws > 0, samples >= 1, 0 < level < 1; got {prior_draws}, {samples}, {level}")
    pool = _merge(pairings)
    if anchor not in pool.players:
        raise ValueError(f"anchor {anchor!r} is not among the players {list(pool.players)}")
    index = pool.players.index(anchor)
    _check_connected(pool, index)
    games, virtual = pool.wdl.sum(axis=1), _virtual_draws(pool, prior_draws)
    augmented = pool.wdl + np.outer(virtual, [0, 1, 0])
    score = augmented[:, 0] + augmented[:, 1] / 2
    theta = _maximise(pool, index, score[None], (games + virtual)[None], np.zeros((1, len(pool.players))))
    boot = _bootstrap(pool, index, augmented, virtual, theta, samples, rng)
    elo, sample_elo = theta[0] / _NATURAL + anchor_elo, boot / _NATURAL + anchor_elo
    low, high = _percentiles(sample_elo, level)
    played = np.bincount(np.r_[pool.i, pool.j], np.r_[games, games], len(pool.players)).astype(int)
    elo_of, low_of, high_of, games_of = (
        dict(zip(pool.players, v.tolist(), strict=True)) for v in (elo, low, high, played)
    )
    return Ratings(pool.players, elo_of, low_of, high_of, games_of, anchor, level, sample_elo)
