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

Replicates: a study trains each model once per seed. :func:`replicated` (a start's mean Elo) and
:func:`compare` (a paired difference, ``a[r] - b[r]`` for training run ``r``) add the training noise by a
two-level bootstrap: each game-level sample is paired with a draw of the replicates with replacement.

How sure a comparison is (Agarwal et al., 2021, "Deep reinforcement learning at the edge of the statistical
precipice", and their rliable library), beside its interval: the probability of improvement
(:func:`probability_of_improvement`: how often a replicate of ``a`` is rated above one of ``b``), the interquartile
mean of the replicates' differences (:func:`interquartile_mean`, from :data:`IQM_REPLICATES` replicates) and
whether its verdict holds (:func:`holds`): whether a rerun would repeat it with probability 0.8 or more, and leaving
out any one replicate would too. A verdict that does not hold is *fragile*: the study measured (BENCHMARKS.md, issue
61) that such verdicts are the ones that flip when meta-training stops a generation earlier or later.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
from scipy.optimize import minimize
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

if TYPE_CHECKING:
    from mmc.play.arena import MatchResult

__all__ = [
    "BETTER",
    "HOLD_AGREEMENT",
    "IQM_REPLICATES",
    "NO_DIFFERENCE",
    "UNINFORMATIVE",
    "VERDICTS",
    "WORSE",
    "Comparison",
    "Estimate",
    "Pairing",
    "Ratings",
    "compare",
    "elo_difference",
    "expected_score",
    "fit_ratings",
    "holds",
    "interquartile_mean",
    "learned",
    "pairing",
    "probability_of_improvement",
    "replicate_summary",
    "replicated",
    "rerun_agreement",
    "verdict",
]

BETTER = "better"
"""The verdict of a difference whose interval lies above 0."""
WORSE = "worse"
"""The verdict of a difference whose interval lies below 0."""
NO_DIFFERENCE = "no detectable difference"
"""The verdict of a difference whose interval contains 0."""
UNINFORMATIVE = "uninformative"
"""The verdict of a comparison whose starts did not both learn: one of them did not beat a freshly initialised network
(``scratch``) at budget 0 by more than the smallest difference that comparison could detect (:func:`learned`), so
its difference, whatever its interval says, tells nothing of how the starts were trained."""
VERDICTS = (BETTER, WORSE, NO_DIFFERENCE, UNINFORMATIVE)
"""Every verdict of a comparison: :func:`verdict`'s three, and :data:`UNINFORMATIVE`."""

IQM_REPLICATES = 5
"""The fewest replicates whose interquartile mean a comparison states (rliable's IQM needs a quarter to trim)."""

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
class Estimate:
    """A mean over training replicates, in Elo points, with its 95% interval (:func:`replicated`)."""

    value: float
    low: float
    high: float
    replicates: int
    """How many replicates the mean is over."""
    spread: float
    """The standard deviation of the replicates' point values (0 for one replicate): the training noise seen."""


@dataclass(frozen=True)
class Comparison:
    """``a - b`` in Elo points, paired by replicate, with its interval and what the interval says."""

    difference: float
    low: float
    high: float
    verdict: str
    """``better`` (the interval lies above 0), ``worse`` (below 0) or ``no detectable difference`` (:func:`verdict`)."""
    detectable: float
    """The smallest difference this run could have told from 0: the interval's half-width, in Elo points."""
    replicates: int
    spread: float
    """The standard deviation of the per-replicate differences (0 for one replicate)."""
    improvement: float = 0.5
    """The probability of improvement: how often a replicate of ``a`` is rated above one of ``b``
    (:func:`probability_of_improvement`); 0.5 is no tendency either way."""
    iqm: float | None = None
    """The interquartile mean of the per-replicate differences (:func:`interquartile_mean`), from
    :data:`IQM_REPLICATES` replicates; ``None`` below."""
    holds: bool = True
    """Whether the verdict holds (:func:`holds`: a rerun would repeat it with probability 0.8 or more, and so would
    the replicates less any one); a verdict that does not is *fragile*. Always true for :data:`NO_DIFFERENCE`,
    which claims nothing."""


def replicated(
    ratings: Ratings, players: Sequence[str], rng: np.random.Generator, *, minus: Sequence[str] = ()
) -> Estimate:
    """The mean Elo of ``players`` (one model per training replicate), or with ``minus`` (one per replicate, in
    the same order) the mean paired difference ``players[r] - minus[r]``, with a two-level bootstrap interval.

    Each of the ratings' bootstrap samples (games redrawn) is paired with a draw of ``len(players)`` replicates
    with replacement, so the interval covers game noise and training noise (Davison & Hinkley, 1997, sec. 3.8).
    With one replicate it is the game-noise interval of :meth:`Ratings.difference`. With few replicates the
    bootstrap understates the training part (its variance is ``(n - 1) / n`` of the sample's): two replicates
    show that training noise exists and roughly how large, not a precise interval.
    """
    if not players or (minus and len(minus) != len(players)):
        raise ValueError(f"need one or more players and as many to subtract, got {list(players)} and {list(minus)}")
    for name in (*players, *minus):
        if name not in ratings.elo:
            raise ValueError(f"unknown player {name!r}")
    columns = [ratings.players.index(name) for name in players]
    values = np.array([ratings.elo[name] for name in players])
    samples = ratings.samples[:, columns]
    if minus:
        values = values - np.array([ratings.elo[name] for name in minus])
        samples = samples - ratings.samples[:, [ratings.players.index(name) for name in minus]]
    n = len(players)
    picks = rng.integers(n, size=(len(samples), n))
    means = np.take_along_axis(samples, picks, axis=1).mean(axis=1)
    low, high = _percentiles(means, ratings.level)
    spread = float(values.std(ddof=1)) if n > 1 else 0.0
    return Estimate(float(values.mean()), float(low), float(high), n, spread)


def compare(ratings: Ratings, a: Sequence[str], b: Sequence[str], rng: np.random.Generator) -> Comparison:
    """``a - b`` paired by replicate (``a[r]`` and ``b[r]`` come from training run ``r``) with the two-level
    bootstrap interval of :func:`replicated`, its verdict and the smallest detectable difference.

    The comparison also states the probability of improvement, the interquartile mean (from
    :data:`IQM_REPLICATES` replicates) and whether its verdict holds (:func:`holds`); the hold check draws from a
    stream spawned from ``rng``, so the interval's draws are those it would be without it."""
    spawned = rng.spawn(1)[0]
    estimate = replicated(ratings, a, rng, minus=b)
    low, high = estimate.low, estimate.high
    detectable = (high - low) / 2
    said = verdict(low, high)
    points_a, points_b = ([ratings.elo[name] for name in side] for side in (a, b))
    differences = [x - y for x, y in zip(points_a, points_b, strict=True)]
    iqm = interquartile_mean(differences) if len(differences) >= IQM_REPLICATES else None
    return Comparison(
        estimate.value,
        low,
        high,
        said,
        detectable,
        estimate.replicates,
        estimate.spread,
        probability_of_improvement(points_a, points_b),
        iqm,
        holds(ratings, a, b, spawned, difference=estimate.value, low=low, high=high),
    )


HOLD_AGREEMENT = 0.8
"""The probability with which a rerun must be expected to repeat a verdict for it to hold (:func:`holds`)."""


def rerun_agreement(difference: float, low: float, high: float, level: float = 0.95) -> float:
    """The probability that a rerun (new games, new training replicates) finds the interval on the same side of 0 as
    ``[low, high]`` does, for a verdict of better or worse: with the estimate's standard error ``se`` read off the
    interval (its half-width over the normal quantile ``z`` of ``level``), a rerun's estimate differs from this one by
    noise of standard deviation ``sqrt(2) se``, so the probability is ``Phi((|difference| - z se) / (sqrt(2) se))``
    (the replication probability; Killeen, 2005). 0.5 for a difference on its interval's edge."""
    from scipy.stats import norm

    z = float(norm.ppf((1 + level) / 2))
    se = (high - low) / (2 * z)
    if se <= 0:
        return 1.0
    return float(norm.cdf((abs(difference) - z * se) / (math.sqrt(2) * se)))


def holds(
    ratings: Ratings, a: Sequence[str], b: Sequence[str], rng: np.random.Generator, *, difference: float,
    low: float, high: float,
) -> bool:  # fmt: skip
    """Whether the verdict of ``a - b`` (paired by replicate; its mean ``difference`` and interval ``[low, high]``)
    holds: whether a rerun would repeat it with probability :data:`HOLD_AGREEMENT` or more (:func:`rerun_agreement`)
    and every comparison of the replicates less any one of them (:func:`compare`'s interval on the rest; with two
    replicates, each one alone, on its games) gives it too. :data:`NO_DIFFERENCE` claims nothing and always holds; a
    difference from a single replicate cannot be checked against training noise and never holds.

    The check plays no game and refits nothing: it draws ``len(a)`` more replicate bootstraps from the ratings'
    samples. Measured on the gomoku study's starts at three neighbouring stopping points (BENCHMARKS.md, issue 61),
    it labels the verdicts that flip when meta-training stops a generation earlier or later: with it, 13 % of
    two-replicate cells flip unlabelled, against 58 % with no check and 26 % with the replicates' part alone."""
    said = verdict(low, high)
    if said == NO_DIFFERENCE:
        return True
    if len(a) < 2 or rerun_agreement(difference, low, high, ratings.level) < HOLD_AGREEMENT:
        return False
    for left_out in range(len(a)):
        rest_a = [name for r, name in enumerate(a) if r != left_out]
        rest_b = [name for r, name in enumerate(b) if r != left_out]
        estimate = replicated(ratings, rest_a, rng, minus=rest_b)
        if verdict(estimate.low, estimate.high) != said:
            return False
    return True


def probability_of_improvement(a: Sequence[float], b: Sequence[float]) -> float:
    """rliable's probability of improvement of ``a`` over ``b`` (Agarwal et al., 2021): the share of pairs
    ``(a[i], b[j])``, every replicate of one against every replicate of the other, in which ``a[i]`` is the larger,
    a tie counting half (the Mann-Whitney U statistic over ``len(a) * len(b)``). 1: every replicate of ``a`` above
    every one of ``b``; 0.5: no tendency. ``ValueError`` for an empty side."""
    if not a or not b:
        raise ValueError(f"probability of improvement needs replicates on both sides, got {list(a)} and {list(b)}")
    x, y = np.asarray(a, dtype=float)[:, None], np.asarray(b, dtype=float)[None, :]
    return float(np.mean((x > y) + 0.5 * (x == y)))


def interquartile_mean(values: Sequence[float]) -> float:
    """The mean of the middle half of ``values`` (rliable's IQM: a quarter trimmed from each end, the boundary
    values weighted by the fraction of them inside, so that it is defined for any count). ``ValueError`` if empty."""
    if not values:
        raise ValueError("interquartile mean of no values")
    ordered = np.sort(np.asarray(values, dtype=float))
    n = len(ordered)
    edges = np.arange(n + 1) / n  # value i covers [i/n, (i+1)/n) of the distribution
    weights = np.clip(np.minimum(edges[1:], 0.75) - np.maximum(edges[:-1], 0.25), 0, None)
    return float(np.dot(weights, ordered) / weights.sum())


@dataclass(frozen=True)
class Spread:
    """The training spread of paired differences pooled over several comparisons (:func:`pooled`)."""

    sd: float
    """The pooled standard deviation of one replicate's difference, in Elo points (game noise included)."""
    df: int
    """Its degrees of freedom: the replicates less one, summed over the comparisons."""


def pooled(differences: Sequence[Sequence[float]]) -> Spread | None:
    """The standard deviation of per-replicate differences pooled over comparisons (``differences[c]``: comparison
    ``c``'s replicates' differences, each about its own mean), with its degrees of freedom; ``None`` when no
    comparison has two replicates."""
    df = sum(len(cell) - 1 for cell in differences if len(cell) > 1)
    if df == 0:
        return None
    squares = sum(float(np.sum((np.asarray(cell) - np.mean(cell)) ** 2)) for cell in differences if len(cell) > 1)
    return Spread(math.sqrt(squares / df), df)


def widened(comparison: Comparison, spread: Spread | None, level: float = 0.95) -> Comparison:
    """``comparison`` with its interval widened to contain the t interval ``difference +- t(df) sd / sqrt(n)`` of a
    pooled ``spread`` (:func:`pooled`), its verdict and half-width recomputed; unchanged without a spread."""
    if spread is None:
        return comparison
    from scipy.stats import t

    half = float(t.ppf((1 + level) / 2, spread.df)) * spread.sd / math.sqrt(comparison.replicates)
    low = min(comparison.low, comparison.difference - half)
    high = max(comparison.high, comparison.difference + half)
    said = verdict(low, high)
    return replace(comparison, low=low, high=high, verdict=said, detectable=(high - low) / 2,
                   holds=comparison.holds or said == NO_DIFFERENCE)  # fmt: skip


def learned(margin: Comparison) -> bool:
    """Whether a start learned: ``margin`` is its budget-0 model against scratch's (``start - scratch``, paired by
    replicate), and its difference exceeds that comparison's smallest detectable difference (its half-width)."""
    return margin.difference > margin.detectable


def verdict(low: float, high: float) -> str:
    """What a difference's interval ``[low, high]`` says: :data:`BETTER` if it lies above 0, :data:`WORSE` if
    below, else :data:`NO_DIFFERENCE`."""
    return BETTER if low > 0 else WORSE if high < 0 else NO_DIFFERENCE


def replicate_summary(
    ratings: Ratings,
    means: Sequence[Sequence[str]],
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    rng: np.random.Generator,
) -> tuple[list[Estimate], list[Comparison]]:
    """The study's answer over its training replicates: the mean Elo (:func:`replicated`) of each group of
    ``means`` (one model per replicate), then each paired comparison ``a - b`` of ``pairs`` (:func:`compare`, ``a``
    and ``b`` one model per replicate, in replicate order), in that order, every bootstrap drawing from ``rng``."""
    estimates = [replicated(ratings, players, rng) for players in means]
    compared = [compare(ratings, a, b, rng) for a, b in pairs]
    return estimates, compared


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
