"""Elo by maximum likelihood: it recovers the ratings games were drawn from, perfect scores stay finite, and the
bootstrap intervals cover the truth and shrink with more games."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from mmc.evaluation.rating import Pairing, Ratings, elo_difference, expected_score, fit_ratings, pairing
from mmc.play.arena import MatchResult

TRUE = {"weak": -300.0, "greedy": 0.0, "fair": 100.0, "good": 250.0, "strong": 400.0}


def simulate(true: dict[str, float], games: int, rng: np.random.Generator) -> list[Pairing]:
    """A round robin of ``games`` games a pair, drawn with the model's expected score; draws are 30% at even
    strength, fewer the more lopsided the pair (``0.3 * 4 E (1 - E)``)."""
    names, out = list(true), []
    for k, a in enumerate(names):
        for b in names[k + 1 :]:
            score = expected_score(true[a], true[b])
            draw = 0.3 * 4 * score * (1 - score)
            wins, draws, losses = rng.multinomial(games, [score - draw / 2, draw, 1 - score - draw / 2])
            out.append(Pairing(a, b, int(wins), int(draws), int(losses)))
    return out


def width(ratings: Ratings, name: str) -> float:
    return ratings.high[name] - ratings.low[name]


def test_fit_recovers_the_true_ratings_and_intervals_shrink_with_more_games() -> None:
    mean_width = {}
    for games in (50, 400, 3000):
        misses, widths = 0, []
        for seed in range(8):
            rng = np.random.default_rng([games, seed])
            ratings = fit_ratings(simulate(TRUE, games, rng), "greedy", rng)
            assert ratings.elo["greedy"] == ratings.low["greedy"] == ratings.high["greedy"] == 0
            for name, true in TRUE.items():
                if name != "greedy":
                    misses += not ratings.low[name] <= true <= ratings.high[name]
                    widths.append(width(ratings, name))
                    assert abs(ratings.elo[name] - true) < width(ratings, name)
        # 95% intervals: about 2 of the 32 should miss (the percentile bootstrap runs a little under)
        assert misses <= 6, f"{misses} of 32 intervals at {games} games a pair miss the true rating"
        mean_width[games] = float(np.mean(widths))
    # the width falls as 1 / sqrt(games): 50 -> 400 -> 3000 games is sqrt(8) ~ 2.8, then sqrt(7.5) ~ 2.7
    assert 2.2 < mean_width[50] / mean_width[400] < 3.4
    assert 2.2 < mean_width[400] / mean_width[3000] < 3.4


def test_perfect_scores_get_finite_extreme_ratings_with_wide_intervals() -> None:
    rng = np.random.default_rng(1)
    champion = [Pairing("champion", name, 50, 0, 0) for name in TRUE]
    loser = [Pairing(name, "loser", 50, 0, 0) for name in TRUE]
    ratings = fit_ratings(simulate(TRUE, 50, rng) + champion + loser, "greedy", rng)
    assert all(math.isfinite(v) for v in (*ratings.elo.values(), *ratings.low.values(), *ratings.high.values()))
    assert ratings.low["champion"] > max(ratings.high[name] for name in TRUE)
    assert ratings.high["loser"] < min(ratings.low[name] for name in TRUE)
    widest_other = max(width(ratings, name) for name in TRUE)
    assert width(ratings, "champion") > 1.5 * widest_other
    assert width(ratings, "loser") > 1.5 * widest_other
    assert ratings.games["champion"] == ratings.games["loser"] == 250


def test_two_copies_of_one_player_differ_by_an_interval_covering_zero() -> None:
    rng = np.random.default_rng(2)
    ratings = fit_ratings(simulate({**TRUE, "twin": 250.0}, 200, rng), "greedy", rng)
    estimate, low, high = ratings.difference("good", "twin")
    assert low < 0 < high
    assert low <= estimate <= high
    estimate, low, high = ratings.difference("strong", "weak")
    assert 0 < low < 700 < high
    assert estimate == pytest.approx(ratings.elo["strong"] - ratings.elo["weak"])


def test_a_pair_given_in_parts_and_either_way_round_is_merged() -> None:
    parts = [Pairing("a", "b", 3, 1, 2), Pairing("b", "a", 4, 0, 1), Pairing("b", "c", 5, 5, 5)]
    whole = [Pairing("a", "b", 4, 1, 6), Pairing("c", "b", 5, 5, 5)]
    split = fit_ratings(parts, "a", np.random.default_rng(3))
    merged = fit_ratings(whole, "a", np.random.default_rng(3))
    assert split.elo == pytest.approx(merged.elo)
    assert split.games == merged.games == {"a": 11, "b": 26, "c": 15}


def test_the_anchor_only_shifts_the_ratings() -> None:
    pairings = simulate(TRUE, 100, np.random.default_rng(4))
    at_zero = fit_ratings(pairings, "greedy", np.random.default_rng(5))
    at_1500 = fit_ratings(pairings, "greedy", np.random.default_rng(5), anchor_elo=1500)
    by_fair = fit_ratings(pairings, "fair", np.random.default_rng(5))
    for name in TRUE:
        assert at_1500.elo[name] == pytest.approx(at_zero.elo[name] + 1500)
        assert by_fair.elo[name] == pytest.approx(at_zero.elo[name] - at_zero.elo["fair"], abs=1e-6)


def test_expected_score_and_elo_difference_are_inverses() -> None:
    assert elo_difference(0.75) == pytest.approx(190.85, abs=0.01)
    assert expected_score(0, 0) == 0.5
    assert expected_score(400, 0) == pytest.approx(10 / 11)
    for score in (0.01, 0.2, 0.5, 0.64, 0.99):
        assert expected_score(elo_difference(score), 0) == pytest.approx(score)
    for difference in (-800.0, -35.0, 0.0, 191.0, 600.0):
        assert elo_difference(expected_score(100 + difference, 100)) == pytest.approx(difference, abs=1e-9)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        elo_difference(1.0)


def test_pairing_reads_a_match_result() -> None:
    assert pairing("az", "greedy", MatchResult(7, 2, 1, [])) == Pairing("az", "greedy", 7, 2, 1)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Pairing("a", "b", 3, -1, 2), "negative draws .* 'a' vs 'b'"),
        (lambda: Pairing("a", "a", 1, 0, 0), "pairing of player 'a' with itself"),
        (lambda: fit_ratings([Pairing("a", "b", 1, 1, 1)], "z", np.random.default_rng()), "anchor 'z' is not among"),
        (lambda: fit_ratings([], "a", np.random.default_rng()), "no pairings"),
        (
            lambda: fit_ratings(
                [Pairing("a", "b", 1, 1, 1), Pairing("c", "d", 2, 0, 0), Pairing("a", "e", 0, 0, 0)],
                "a",
                np.random.default_rng(),
            ),
            "no games connect 'c', 'd', 'e' to the anchor 'a'",
        ),
    ],
)
def test_bad_input_raises_a_one_line_value_error(make: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message) as error:
        make()
    assert "\n" not in str(error.value)
