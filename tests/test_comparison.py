"""Means over training replicates and paired comparisons: a verdict from the interval, training noise through the
two-level bootstrap, uninformative comparisons of starts that did not learn, and verdicts that hold or are fragile."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mmc.evaluation.comparison import (
    BETTER,
    HOLD_AGREEMENT,
    NO_DIFFERENCE,
    VERDICTS,
    WORSE,
    Comparison,
    compare,
    holds,
    interquartile_mean,
    probability_of_improvement,
    replicate_summary,
    replicated,
    rerun_agreement,
    verdict,
)
from mmc.evaluation.rating import Pairing, Ratings, fit_ratings
from tests.test_rating import simulate


def test_compare_gives_a_verdict_from_the_interval() -> None:
    pairings = [
        Pairing("strong", "greedy", 40, 5, 5),
        Pairing("weak", "greedy", 5, 5, 40),
        Pairing("twin", "greedy", 40, 5, 5),
    ]
    ratings = fit_ratings(pairings, "greedy", np.random.default_rng(0), samples=100)
    rng = np.random.default_rng(1)
    better = compare(ratings, ["strong"], ["weak"], rng)
    assert better.verdict == "better" and better.low > 0 and better.detectable == (better.high - better.low) / 2
    assert (better.low, better.high) == pytest.approx(ratings.difference("strong", "weak")[1:])  # one replicate
    assert better.replicates == 1 and better.spread == 0
    assert compare(ratings, ["weak"], ["strong"], rng).verdict == "worse"
    same = compare(ratings, ["strong"], ["twin"], rng)
    assert same.verdict == "no detectable difference" and same.low < 0 < same.high


def test_the_verdict_rule_needs_the_interval_to_exclude_zero() -> None:
    assert verdict(0.1, 80) == BETTER and verdict(-80, -0.1) == WORSE
    assert verdict(0.0, 80) == verdict(-80, 0.0) == verdict(-5, 5) == NO_DIFFERENCE
    assert VERDICTS[:3] == (BETTER, WORSE, NO_DIFFERENCE) and VERDICTS[3] == "uninformative"  # the interval's three


def _replicated_pool(a: list[float], b: list[float], games: int, seed: int) -> tuple[Ratings, list[str], list[str]]:
    """Models ``a-r{r}`` and ``b-r{r}`` at the given true ratings (one per training replicate) with greedy and two
    more anchors, a round robin of ``games`` games a pair, fitted."""
    names_a = [f"a-r{r}" for r in range(len(a))]
    names_b = [f"b-r{r}" for r in range(len(b))]
    true = {
        "greedy": 0.0,
        "low": -200.0,
        "high": 300.0,
        **dict(zip(names_a, a, strict=True)),
        **dict(zip(names_b, b, strict=True)),
    }
    rng = np.random.default_rng([games, seed])
    return fit_ratings(simulate(true, games, rng), "greedy", rng, samples=200), names_a, names_b


def test_paired_replicates_of_the_same_recipe_differ_by_an_interval_covering_zero() -> None:
    """Two starts trained by one recipe: each replicate's model has its own training noise (SD 40 Elo), so their
    paired difference over 4 replicates should cover 0 about 95% of the time, training noise included."""
    covered, widths = 0, []
    for seed in range(20):
        noise = np.random.default_rng([7, seed]).normal(0, 40, size=(2, 4))
        ratings, a, b = _replicated_pool(list(100 + noise[0]), list(100 + noise[1]), 100, seed)
        c = compare(ratings, a, b, np.random.default_rng(seed))
        covered += c.low < 0 < c.high
        widths.append(c.high - c.low)
        assert c.replicates == 4 and c.spread > 0
        assert c.difference == pytest.approx(
            np.mean([ratings.elo[x] - ratings.elo[y] for x, y in zip(a, b, strict=True)])
        )
    # the bootstrap over 4 replicates runs narrow ((n - 1) / n of the variance): allow a few more misses
    assert covered >= 15, f"only {covered} of 20 intervals cover 0"
    # training noise widens the interval beyond the games' own: compare with replicates that have none
    quiet = [compare(*_pool_no_noise(seed), np.random.default_rng(seed)) for seed in range(5)]
    assert np.mean(widths) > 1.2 * np.mean([c.high - c.low for c in quiet])


def _pool_no_noise(seed: int) -> tuple[Ratings, list[str], list[str]]:
    return _replicated_pool([100.0] * 4, [100.0] * 4, 100, 100 + seed)


def test_a_real_difference_between_starts_is_found_through_training_noise() -> None:
    noise = np.random.default_rng(3).normal(0, 30, size=(2, 4))
    ratings, a, b = _replicated_pool(list(250 + noise[0]), list(50 + noise[1]), 100, 3)
    c = compare(ratings, a, b, np.random.default_rng(3))
    assert c.verdict == "better" and 100 < c.difference < 300
    assert compare(ratings, b, a, np.random.default_rng(3)).verdict == "worse"
    mean = replicated(ratings, a, np.random.default_rng(3))
    assert mean.low < mean.value < mean.high and mean.replicates == 4
    assert mean.value == pytest.approx(np.mean([ratings.elo[x] for x in a]))


def test_replicated_rejects_mismatched_or_unknown_players() -> None:
    ratings, a, b = _replicated_pool([100.0, 120.0], [90.0, 80.0], 30, 0)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="as many to subtract"):
        compare(ratings, a, b[:1], rng)
    with pytest.raises(ValueError, match="unknown player 'nobody'"):
        replicated(ratings, ["nobody"], rng)


def test_replicate_summary_is_the_means_then_the_comparisons_on_one_stream() -> None:
    """The study's summary: each group's mean, then each paired comparison, drawing from one generator in that
    order (the numbers of plots/curves and plots/comparisons)."""
    ratings, a, b = _replicated_pool([150.0, 110.0], [90.0, 80.0], 30, 4)
    means, compared = replicate_summary(ratings, [a, b], [(a, b), (b, a)], np.random.default_rng(9))
    rng = np.random.default_rng(9)
    expected = [replicated(ratings, a, rng), replicated(ratings, b, rng)]
    assert means == expected
    assert compared == [compare(ratings, a, b, rng), compare(ratings, b, a, rng)]
    assert replicate_summary(ratings, [], [], np.random.default_rng(9)) == ([], [])


def test_a_comparison_of_starts_that_did_not_learn_is_uninformative() -> None:
    """A constructed study: JOAT's budget-0 models are 400 Elo above scratch's, multitask's level with them (it
    learned nothing), the expert's 250 above. JOAT - multitask and multitask adapted - unadapted are uninformative
    whatever their intervals say; JOAT - expert keeps its verdict; the reason names each margin."""
    from mmc.evaluation.analysis import UNINFORMATIVE_NOTE, verdict_summary
    from mmc.evaluation.comparison import UNINFORMATIVE, learned
    from mmc.evaluation.starts import Start, comparisons, learning_verdict, model_label, scratch_margins

    starts, budgets, replicates = ["joat", "multitask", "expert-gardner", "scratch"], (0, 50), (0, 1)
    true = {"greedy": 0.0}
    for r in replicates:
        true |= {f"joat-b0-r{r}": 400.0, f"multitask-b0-r{r}": -395.0, f"expert-gardner-b0-r{r}": -150.0,
                 f"scratch-b0-r{r}": -400.0, f"joat-b50-r{r}": 420.0, f"multitask-b50-r{r}": -100.0,
                 f"expert-gardner-b50-r{r}": 0.0, f"scratch-b50-r{r}": -300.0}  # fmt: skip
    rng = np.random.default_rng(47)
    ratings = fit_ratings(simulate(true, 40, rng), "greedy", rng)
    margins = scratch_margins(ratings, starts, replicates, np.random.default_rng(0))
    assert set(margins) == {Start("joat"), Start("multitask"), Start("expert-gardner")}
    assert learned(margins[Start("joat")]) and learned(margins[Start("expert-gardner")])
    assert not learned(margins[Start("multitask")])
    rows, said = [], {}
    for (a, ba), (b, bb) in comparisons(starts, budgets):
        names = [[model_label(s, budget, r) for r in replicates] for s, budget in ((a, ba), (b, bb))]
        compared = replicate_summary(ratings, [], [tuple(names)], np.random.default_rng(1))[1][0]  # type: ignore[list-item]
        verdict_, why = learning_verdict(a, b, compared, margins)
        said[(model_label(a, ba), model_label(b, bb))] = verdict_, why, compared.verdict
        rows.append({"game": "gardner", "budget": ba, "a": model_label(a, ba), "b": model_label(b, bb),
                     "difference": compared.difference, "low": compared.low, "high": compared.high,
                     "verdict": verdict_, "detectable": compared.detectable, "replicates": 2,
                     "spread": 0.0})  # fmt: skip
    verdict_, why, interval = said[("joat-b50", "multitask-b50")]
    assert (verdict_, interval) == (UNINFORMATIVE, BETTER)  # a "better" that only says multitask learned nothing
    assert (
        why.startswith("joat +")
        and " > " in why
        and "; multitask " in why
        and why.endswith(" <= {:.0f}".format(margins[Start("multitask")].detectable))
    )
    assert said[("multitask-b50", "multitask-b0")][0] == UNINFORMATIVE
    assert said[("joat-b0", "expert-gardner-b0")][0] == said[("joat-b0", "expert-gardner-b0")][2] == BETTER
    assert said[("joat-b0", "scratch-b0")][:2] == (BETTER, "joat +{:.0f} > {:.0f}".format(
        margins[Start("joat")].difference, margins[Start("joat")].detectable))  # fmt: skip
    assert scratch_margins(ratings, ["joat", "multitask"], replicates, rng) == {}  # no scratch: nothing checked
    assert learning_verdict(Start("joat"), Start("multitask"), margins[Start("joat")], {})[0] == BETTER
    summary = verdict_summary(rows, targets=["gardner"])
    assert summary.headlines[0].startswith("JOAT - multitask: after adaptation (50 games), uninformative in gardner;")
    assert summary.headlines[-1] == UNINFORMATIVE_NOTE
    assert 'title="uninformative">? ' in summary.to_html()


def test_the_probability_of_improvement_counts_every_pair_of_replicates() -> None:
    assert probability_of_improvement([10.0, 20.0], [0.0, 5.0]) == 1.0
    assert probability_of_improvement([0.0, 5.0], [10.0, 20.0]) == 0.0
    assert probability_of_improvement([1.0, 2.0], [0.0, 3.0]) == 0.5  # 2 of 4 pairs
    assert probability_of_improvement([1.0, 3.0, 5.0], [2.0]) == pytest.approx(2 / 3)
    assert probability_of_improvement([1.0], [1.0]) == 0.5  # a tie counts half
    with pytest.raises(ValueError, match="replicates on both sides"):
        probability_of_improvement([], [1.0])


def test_the_interquartile_mean_is_the_middle_half() -> None:
    assert interquartile_mean([1.0, 2.0, 3.0, 4.0]) == 2.5
    assert interquartile_mean([float(v) for v in range(8)]) == 3.5  # 2, 3, 4, 5
    assert interquartile_mean([-1000.0, 2.0, 3.0, 4.0, 1000.0]) == 3.0  # the outliers trimmed
    assert interquartile_mean([1.0, 2.0, 3.0, 4.0, 100.0]) == 3.0  # 0.15 x 2 + 0.2 x 3 + 0.15 x 4 over 0.5
    assert interquartile_mean([7.0]) == 7.0
    with pytest.raises(ValueError, match="no values"):
        interquartile_mean([])


def _differences_pool(differences: list[float], seed: int) -> tuple[Ratings, list[str], list[str]]:
    """Replicates ``a-rR`` at ``100 + differences[R]`` and ``b-rR`` at 100, 400 games a pair: the game noise small
    beside the differences."""
    return _replicated_pool([100.0 + d for d in differences], [100.0] * len(differences), 400, seed)


@pytest.mark.parametrize(
    ("differences", "verdict_", "held"),
    [
        ([300.0, 260.0, 280.0], BETTER, True),  # every replicate says so
        ([300.0, 280.0, 0.0], BETTER, False),  # better, but leave out either of the first two and 0 is in
        ([-250.0, -270.0], WORSE, True),  # two replicates: each alone says worse
        ([-250.0, 0.0], None, False),  # one of two replicates carries it (whatever the pair's interval says)
        ([0.0, 0.0, 0.0], NO_DIFFERENCE, True),  # no difference claims nothing
    ],
)
def test_a_verdict_holds_when_no_single_replicate_carries_it(
    differences: list[float], verdict_: str | None, held: bool
) -> None:
    ratings, a, b = _differences_pool(differences, len(differences))
    c = compare(ratings, a, b, np.random.default_rng(5))
    if verdict_ is not None:
        assert c.verdict == verdict_
    assert c.holds is (held or c.verdict == NO_DIFFERENCE)
    again = holds(ratings, a, b, np.random.default_rng(6), difference=c.difference, low=c.low, high=c.high)
    assert again is c.holds


def test_a_verdict_on_the_edge_of_its_interval_is_fragile() -> None:
    """A rerun repeats a verdict whose interval only just leaves out 0 about half the time: fragile, though every
    replicate agrees; the same replicates further from 0 hold."""
    assert rerun_agreement(-100.0, -200.0, 0.0) == pytest.approx(0.5)
    assert rerun_agreement(100.0, 0.0, 200.0) == pytest.approx(0.5)
    assert rerun_agreement(-300.0, -400.0, -200.0) > 0.99 > rerun_agreement(-130.0, -230.0, -30.0) > 0.5
    edge = ("a-r0", "a-r1")
    assert not holds(*_differences_pool([-250.0, -250.0], 2)[:1], edge, ("b-r0", "b-r1"), np.random.default_rng(0),
                     difference=-120.0, low=-230.0, high=-10.0)  # fmt: skip
    far = holds(*_differences_pool([-250.0, -250.0], 2)[:1], edge, ("b-r0", "b-r1"), np.random.default_rng(0),
                difference=-250.0, low=-300.0, high=-200.0)  # fmt: skip
    assert far and HOLD_AGREEMENT == 0.8


def test_a_verdict_of_one_replicate_cannot_hold_and_the_check_leaves_the_interval_alone() -> None:
    ratings, a, b = _differences_pool([300.0], 1)
    c = compare(ratings, a, b, np.random.default_rng(2))
    assert c.verdict == BETTER and not c.holds and c.iqm is None and c.improvement == 1.0
    ratings, a, b = _differences_pool([300.0, 280.0, 0.0, 260.0, 290.0], 9)
    c = compare(ratings, a, b, np.random.default_rng(3))
    # the interval is drawn as before the check existed: the check draws from a stream spawned from the generator
    plain = replicated(ratings, a, np.random.default_rng(3), minus=b)
    assert (c.difference, c.low, c.high) == (plain.value, plain.low, plain.high)
    points = sorted(ratings.elo[x] - ratings.elo[y] for x, y in zip(a, b, strict=True))
    assert c.iqm == pytest.approx((0.15 * points[1] + 0.2 * points[2] + 0.15 * points[3]) / 0.5)
    assert c.improvement == pytest.approx(probability_of_improvement([ratings.elo[x] for x in a],
                                                                     [ratings.elo[y] for y in b]))  # fmt: skip


def test_a_pooled_spread_widens_an_interval_to_the_t_interval() -> None:
    from mmc.evaluation.comparison import Spread, pooled, widened

    assert pooled([[1.0, 3.0], [10.0, 14.0]]) == Spread(math.sqrt((2 + 8) / 2), 2)  # deviations about each mean
    assert pooled([[5.0], []]) is None  # no comparison with two replicates: nothing to pool
    narrow = Comparison(-100.0, -150.0, -50.0, WORSE, 50.0, 2, 30.0, 0.0, None, True)
    wide = widened(narrow, Spread(40.0, 4))
    half = 2.776445 * 40 / math.sqrt(2)  # t(4) at 97.5 %
    assert (wide.low, wide.high) == pytest.approx((-100 - half, -100 + half)) and wide.verdict == WORSE
    assert wide.detectable == pytest.approx(half)
    covering = widened(narrow, Spread(80.0, 4))  # the t interval now reaches past 0
    assert covering.verdict == NO_DIFFERENCE and covering.holds and covering.high > 0
    assert widened(narrow, Spread(1.0, 100)) == narrow  # never narrower than the bootstrap's
    assert widened(narrow, None) is narrow
