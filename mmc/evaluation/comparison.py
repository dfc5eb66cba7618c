"""Means over training replicates, and paired comparisons with their verdicts, from a fit's bootstrap samples
(:class:`mmc.evaluation.rating.Ratings`).

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

import numpy as np

from mmc.evaluation.rating import Ratings, _percentiles

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
    "Spread",
    "compare",
    "holds",
    "interquartile_mean",
    "learned",
    "pooled",
    "probability_of_improvement",
    "replicate_summary",
    "replicated",
    "rerun_agreement",
    "verdict",
    "widened",
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
