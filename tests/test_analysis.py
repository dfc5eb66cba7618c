"""Analysis tables add up and the figures draw from them."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from mmc import play
from mmc.analysis import (
    MATCH_COLUMNS,
    adaptation_figure,
    ladder_figure,
    loss_figure,
    match_table,
    wilson_interval,
    win_rate_heatmap,
)
from mmc.play import MatchResult


def test_match_table_counts_add_up_and_agree_with_the_arena() -> None:
    table = match_table([
        {"game": "gardner", "player 1": "joat", "player 2": "random", "wins": 90, "draws": 6, "losses": 4},
        {"game": "atomic", "player 1": "joat", "player 2": "greedy", "wins": 10, "draws": 0, "losses": 30},
    ])  # fmt: skip
    assert list(table.columns[: len(MATCH_COLUMNS)]) == MATCH_COLUMNS
    assert (table["wins"] + table["draws"] + table["losses"] == table["games"]).all()
    assert table.loc[0, "score"] == pytest.approx(0.93)
    arena = MatchResult(90, 6, 4, [])
    assert (table.loc[0, "ci_low"], table.loc[0, "ci_high"]) == pytest.approx(arena.wilson_interval())
    with pytest.raises(ValueError, match="at least one game"):
        match_table([{"game": "g", "player 1": "a", "player 2": "b", "wins": 0, "draws": 0, "losses": 0}])


def test_wilson_interval_brackets_the_score() -> None:
    low, high = wilson_interval(0.5, 100)
    assert low < 0.5 < high and high - low == pytest.approx(0.1923, abs=0.001)
    assert wilson_interval(1.0, 10)[1] == 1.0 and wilson_interval(0.0, 0) == (0.0, 1.0)


def test_one_wilson_interval_serves_the_arena_and_the_tables() -> None:
    result = MatchResult(7, 3, 5, [])
    assert wilson_interval is play.wilson_interval
    assert result.wilson_interval() == wilson_interval(result.score, result.games)
    assert result.wilson_interval(2.58) == wilson_interval(result.score, result.games, 2.58)


def test_figures_draw() -> None:
    losses = pd.DataFrame({"generation": [0, 1, 0, 1], "series": ["a", "a", "b", "b"], "policy": [2, 1, 2, 1.5],
                           "value": [0.5, 0.3, 0.6, 0.4], "total": [2.5, 1.3, 2.6, 1.9]})  # fmt: skip
    assert loss_figure(losses).axes
    rows = [{"game": g, "player 1": s, "player 2": o, "wins": w, "draws": 1, "losses": 2, "budget": b, "start": s}
            for g in ("rifle", "dark") for s in ("joat", "scratch") for o in ("random", "greedy")
            for b, w in ((0, 3), (20, 6))]  # fmt: skip
    table = match_table(rows)
    assert win_rate_heatmap(table).axes
    figure = adaptation_figure(table)
    assert len(figure.axes) == 4


def test_heatmap_with_long_matchups_lays_out_without_warnings() -> None:
    rows = [{"game": g, "player 1": f"{s}@{b}", "player 2": o, "wins": 3, "draws": 1, "losses": 2, "budget": b,
             "start": s} for g in ("rifle", "dark") for s in ("multitask", "expert") for o in ("unadapted", "greedy")
            for b in (0, 100)]  # fmt: skip
    table = match_table(rows)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # tight_layout warns when the labels do not fit
        assert win_rate_heatmap(table).axes
        assert adaptation_figure(table).legends


def test_the_ladder_draws_an_interval_that_leaves_out_its_estimate() -> None:
    """With few games a percentile bootstrap interval may lie beside the estimate (a tiny study's dark ratings did:
    -469.6 with [-460.8, -297.2]); the ladder draws it as it is instead of failing on a negative error bar."""
    ratings = pd.DataFrame(
        [
            ["dark", "greedy", "anchor", "", -1, -1, 0.0, 0.0, 0.0, 40],
            ["dark", "scratch-b0-r1", "model", "scratch", 0, 1, -469.6, -460.8, -297.2, 10],
            ["dark", "joat-b0-r1", "model", "joat", 0, 1, 35.0, -20.0, 80.0, 10],
        ],
        columns=["game", "player", "kind", "start", "budget", "replicate", "elo", "low", "high", "games"],
    )
    figure = ladder_figure(ratings)
    (axes,) = figure.axes
    assert [tick.get_text() for tick in axes.get_yticklabels()] == ["scratch-b0-r1", "greedy", "joat-b0-r1"]
    drawn = [line.get_xdata() for line in axes.get_lines() if len(line.get_xdata()) == 2]
    assert any(list(x) == [-460.8, -297.2] for x in drawn)
