"""Analysis tables add up and the figures draw from them."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from mmc import play
from mmc.evaluation.analysis import (
    ADAPTED,
    FRAGILE_NOTE,
    MATCH_COLUMNS,
    VERDICT_COLOURS,
    ZERO_SHOT,
    adaptation_figure,
    game_diagram,
    ladder_figure,
    loss_figure,
    match_table,
    verdict_summary,
    wilson_interval,
    win_rate_heatmap,
)
from mmc.evaluation.comparison import BETTER, VERDICTS, WORSE, Comparison, verdict
from mmc.evaluation.starts import comparisons, model_label, parse_model_label
from mmc.games import Game, games, get_family, get_game, initial_state, legal_moves
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


@pytest.mark.slow  # 3 s
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


TARGETS = ["gardner", "dark", "mallet", "los_alamos"]
STARTS = ["joat", "metafocus", "multitask", "expert-gardner", "scratch"]
# adapted JOAT - multitask per target: worse, worse, no detectable difference (los_alamos has no comparisons)
ADAPTED_JOAT_MULTITASK = {"gardner": (-100, -160, -40), "dark": (-190, -250, -130), "mallet": (-30, -90, 30)}


def _row(game: str, a: str, b: str, difference: float, low: float, high: float, replicates: int = 2) -> dict:
    """A ``plots/comparisons/`` row, its verdict by the study's rule."""
    budget = parse_model_label(a)[1]
    numbers = {"difference": difference, "low": low, "high": high, "verdict": verdict(low, high)}
    return {"game": game, "budget": budget, "a": a, "b": b, **numbers, "detectable": (high - low) / 2,
            "replicates": replicates, "spread": 9.0}  # fmt: skip


def _study_rows() -> list[dict]:
    """Every comparison of the study's starts at budgets 0, 20 and 100 in gardner, dark and mallet: JOAT - multitask
    after adaptation as in ``ADAPTED_JOAT_MULTITASK``, JOAT - scratch better everywhere (+290, 95% +180 to +400),
    everything else no detectable difference (+10, 95% -40 to +60 zero-shot, -70 to +90 adapted)."""
    rows = []
    for game in ADAPTED_JOAT_MULTITASK:
        for (start_a, budget_a), (start_b, budget_b) in comparisons(STARTS, (0, 20, 100)):
            a, b = model_label(start_a, budget_a), model_label(start_b, budget_b)
            if (a, b) == ("joat-b100", "multitask-b100"):
                rows.append(_row(game, a, b, *ADAPTED_JOAT_MULTITASK[game]))
            elif str(start_b) == "scratch":
                rows.append(_row(game, a, b, 290, 180, 400))
            else:
                rows.append(_row(game, a, b, 10, -40, 60) if budget_a == 0 else _row(game, a, b, 10, -70, 90))
    return rows


def test_the_verdict_table_has_each_comparison_by_target_zero_shot_and_adapted() -> None:
    summary = verdict_summary(_study_rows(), targets=TARGETS, held_out=["mallet", "los_alamos"])
    assert summary.targets == tuple(TARGETS) and summary.held_out == ("mallet", "los_alamos")
    assert summary.stages == ((ZERO_SHOT, 0), (ADAPTED, 100))  # budget 20 is in the comparisons table only
    assert summary.comparisons == (
        "JOAT - multitask", "JOAT - expert-gardner", "JOAT - scratch", "MetaFocus - JOAT", "JOAT adapted - unadapted",
        "MetaFocus adapted - JOAT unadapted", "multitask adapted - unadapted", "expert-gardner adapted - unadapted",
        "scratch adapted - unadapted",
    )  # fmt: skip
    assert summary.cells[("JOAT - multitask", "dark", ADAPTED)] == Comparison(-190, -250, -130, WORSE, 60, 2, 9.0)
    assert summary.cells[("JOAT - scratch", "gardner", ZERO_SHOT)].verdict == BETTER
    assert ("MetaFocus - JOAT", "gardner", ZERO_SHOT) not in summary.cells  # MetaFocus has no zero-shot model
    assert not any(game == "los_alamos" for _, game, _ in summary.cells)
    assert len(summary.cells) == 3 * (3 + 9)  # three targets: 3 zero-shot and 9 adapted comparisons each


def test_one_headline_per_comparison_across_the_targets() -> None:
    summary = verdict_summary(_study_rows(), targets=TARGETS)
    assert len(summary.headlines) == len(summary.comparisons) + 1
    assert summary.headlines[0] == (
        "JOAT - multitask: after adaptation (100 games), worse in 2 of 3 targets (gardner and dark) by 100 to 190 Elo "
        "and no detectable difference in 1 of 3 targets (mallet); zero-shot, no detectable difference in all 3 targets."
    )
    assert summary.headlines[2] == (
        "JOAT - scratch: after adaptation (100 games), better in all 3 targets by 290 Elo; "
        "zero-shot, better in all 3 targets by 290 Elo."
    )
    assert (
        summary.headlines[3]
        == "MetaFocus - JOAT: after adaptation (100 games), no detectable difference in all 3 targets."
    )
    assert summary.headlines[-1] == "No comparison was made in los_alamos."


def test_the_resolution_is_the_median_half_width_per_budget_and_names_the_replicates() -> None:
    summary = verdict_summary(_study_rows(), targets=TARGETS)
    # zero-shot: 6 of 9 half-widths 50, 3 (scratch) 110; adapted: 80 (most), 110 (scratch), 60 (multitask)
    assert summary.resolution.startswith(
        "The smallest difference this study can tell from 0 (half the width of a paired 95% interval) is 50 Elo "
        "zero-shot (the median over 9 comparisons; 50 to 110) and 80 Elo after 100 games of adaptation "
        "(the median over 27 comparisons; 60 to 110)"
    )
    assert summary.resolution.endswith("It rests on 2 training replicates per model (the intervals cover game and "
                                       "training noise; measured on the gomoku study with ten replicates, "
                                       "two-replicate intervals contained the ten replicates' mean in 95 % of draws, "
                                       "and in 82 % in the worst cell).")  # fmt: skip


def test_a_single_replicate_and_a_single_target() -> None:
    rows = [_row("gardner", "joat-b0", "scratch-b0", -120, -200, -40, replicates=1)]
    summary = verdict_summary(rows)
    assert summary.targets == ("gardner",) and summary.stages == ((ZERO_SHOT, 0),)
    assert summary.headlines == ("JOAT - scratch: zero-shot, worse in gardner by 120 Elo.",)
    both = verdict_summary([*rows, {**rows[0], "game": "dark", "difference": -150}])
    assert both.headlines == ("JOAT - scratch: zero-shot, worse in both targets by 120 to 150 Elo.",)
    assert "80 Elo zero-shot (the median over 1 comparison)" in summary.resolution
    assert summary.resolution.endswith(
        "one training replicate per model, so the intervals cover the games only, not training noise."
    )


def test_each_verdict_gets_its_colour_in_offline_html() -> None:
    rows = [
        _row("gardner", "joat-b20", "multitask-b20", 150, 40, 260),
        _row("gardner", "joat-b20", "scratch-b20", -150, -260, -40),
        _row("gardner", "joat-b20", "joat-b0", 5, -100, 110),
        {**_row("gardner", "multitask-b20", "multitask-b0", 200, 90, 310), "verdict": "uninformative"},
    ]
    page = verdict_summary(rows, targets=["gardner", "dark"], held_out=["dark"]).to_html()
    cells = re.findall(r'<td style="[^"]*background: (#[0-9a-f]{6})" title="([^"]+)">(.*?)</td>', page)
    assert [(colour, title) for colour, title, _ in cells] == [(VERDICT_COLOURS[v], v) for v in VERDICTS]
    assert cells[0][2] == '▲ +150<br><span style="font-size: 11px">+40 to +260<br>P(a&gt;b) 0.50</span>'
    assert len(set(VERDICT_COLOURS.values())) == 4
    assert "dark (held out)" in page and page.count(">-</td>") == 4  # dark: no comparisons, its cells marked
    assert "adapted (20 games)" in page and "zero-shot" not in page
    assert "<script" not in page and "http" not in page and "<link" not in page


def test_a_fragile_verdict_is_labelled_in_the_table_and_the_headline() -> None:
    """A verdict that does not hold (``holds`` False) reads ``worse (fragile)`` in its headline, apart from the
    targets where it holds, and its cell says fragile (striped); uninformative takes precedence; the note says what
    the check is and what it costs. Each cell shows the probability of improvement and, when given, the IQM."""
    rows = [
        {**_row("gardner", "joat-b20", "multitask-b20", -150, -260, -40), "improvement": 0.0, "holds": True},
        {**_row("dark", "joat-b20", "multitask-b20", -120, -230, -10), "improvement": 0.25, "holds": "False"},
        {**_row("mallet", "joat-b20", "multitask-b20", -100, -200, -5), "improvement": 0.25, "holds": False,
         "verdict": "uninformative"},
        {**_row("atomic", "joat-b20", "multitask-b20", 30, -60, 120), "improvement": 0.6, "iqm": 25.0,
         "holds": True, "replicates": 5},
    ]  # fmt: skip
    summary = verdict_summary(rows, targets=["gardner", "dark", "mallet", "atomic"])
    assert summary.headlines[0] == (
        "JOAT - multitask: after adaptation (20 games), worse in 1 of 4 targets (gardner) by 150 Elo, worse (fragile) "
        "in 1 of 4 targets (dark) by 120 Elo, no detectable difference in 1 of 4 targets (atomic) and uninformative in "
        "1 of 4 targets (mallet)."
    )
    assert summary.headlines[-1] == FRAGILE_NOTE and "no game more" in FRAGILE_NOTE and "0.8" in FRAGILE_NOTE
    cell = summary.cells[("JOAT - multitask", "dark", ADAPTED)]
    assert (cell.verdict, cell.holds, cell.improvement, cell.iqm) == (WORSE, False, 0.25, None)
    assert summary.cells[("JOAT - multitask", "atomic", ADAPTED)].iqm == 25.0
    page = summary.to_html()
    titles = re.findall(r'<td style="[^"]*" title="([^"]+)">', page)
    assert titles == ["worse", "worse (fragile)", "uninformative", "no detectable difference"]
    dark = page.split('title="worse (fragile)">')[1].split("</td>")[0]
    assert dark.startswith("▼ -120 <b>fragile</b>") and "P(a&gt;b) 0.25" in dark
    assert "repeating-linear-gradient" in page.split('title="worse (fragile)"')[0].rsplit("<td", 1)[1]
    assert "IQM +25" in page.split('title="no detectable difference">')[1].split("</td>")[0]
    assert page.count("<b>fragile</b>") == 2  # the dark cell and the legend: mallet is uninformative
    holding = [{**row, "holds": True} for row in rows]
    assert FRAGILE_NOTE not in verdict_summary(holding).headlines


def test_no_comparisons_and_bad_rows() -> None:
    empty = verdict_summary([], targets=["gardner"])
    assert empty.comparisons == () and empty.headlines == () and empty.resolution == "No comparisons were made."
    assert empty.to_html() == "<p>No comparisons were made.</p>"
    good = _row("gardner", "joat-b20", "scratch-b20", 150, 40, 260)
    with pytest.raises(ValueError, match="unknown verdict 'maybe'"):
        verdict_summary([{**good, "verdict": "maybe"}])
    with pytest.raises(ValueError, match="given twice"):
        verdict_summary([good, good])
    with pytest.raises(ValueError, match="START-bBUDGET: 'joat'"):
        verdict_summary([{**good, "a": "joat"}])
    with pytest.raises(ValueError, match="holds must be True or False, got 'maybe'"):
        verdict_summary([{**good, "holds": "maybe"}])


def _playable(variant: str) -> bool:
    return bool(legal_moves(initial_state(variant)))


def _records_of(family: Game, games: int, max_plies: int) -> list[play.GameRecord]:
    """``games`` random games of each playable variant of ``family`` (random openings, random players)."""
    records: list[play.GameRecord] = []
    for number, variant in enumerate(v for v in family.variants if _playable(v)):
        rng = np.random.default_rng(number)
        match = play.play_match(play.RandomPlayer(), play.RandomPlayer(), variant, games, rng, max_plies=max_plies)
        records += match.records
    return records


def _check_diagram(record: play.GameRecord, text: str, columns: int) -> None:
    """Every board of ``record`` stands whole in ``text``, under its label, at its column of its row of boards; a row
    of boards is as tall as its tallest board."""
    game = get_game(record.variant)
    boards = [game.render(state).splitlines() for state in play.replay(record)]
    labels = ["start"] + [f"{ply}. {move}" for ply, move in enumerate(record.moves, start=1)]
    lines = text.split("\n")
    width = 10**6  # one board a row: its column is the whole line
    if columns > 1 and len(labels) > 1:
        width = lines[0].index(labels[1])
        assert width > max(len(line) for board in boards for line in board)
    at = 0
    for first in range(0, len(boards), columns):
        shown = range(first, min(first + columns, len(boards)))
        assert lines[at] == "".join(labels[i].ljust(width) for i in shown).rstrip(), (record.variant, first)
        height = max(len(boards[i]) for i in shown)
        block = lines[at + 1 : at + 1 + height]
        assert len(block) == height and lines[at + 1 + height] == "", (record.variant, first)
        for slot, i in enumerate(shown):
            for line, drawn in enumerate(block):
                want = boards[i][line] if line < len(boards[i]) else ""
                assert drawn[slot * width : (slot + 1) * width].rstrip() == want.rstrip(), (record.variant, i, line)
        assert all(len(drawn) <= len(shown) * width for drawn in block)
        at += height + 2
    assert at == len(lines)  # nothing after the last row of boards but its blank line


@pytest.mark.slow  # 208 random games: 16 s in all
@pytest.mark.parametrize("family", ["chess", "gomoku", "jump", "bonus"])
def test_the_reports_game_diagram_draws_any_game_of_every_family(family: str, bonus_game: Game) -> None:
    """The report's sample-game drawing on random games of every playable variant of every registered family (the
    test family with bonus moves included): every board whole, whatever its height and width, which the jump family
    changes from one position to the next (9 or 10 lines)."""
    assert {g.name for g in games()} == {"chess", "gomoku", "jump", "bonus"}
    records = _records_of(get_family(family), games=8, max_plies=60)
    assert len(records) >= 16
    heights = set()
    for number, record in enumerate(records):
        columns = (8, 3, 1)[number % 3]
        _check_diagram(record, game_diagram(record, columns=columns), columns)
        heights |= {len(get_game(record.variant).render(s).splitlines()) for s in play.replay(record)}
    if family == "jump":
        assert len(heights) > 1  # the case the report once failed on: boards of different heights in one game


def test_the_game_diagram_refuses_no_columns() -> None:
    rng = np.random.default_rng(0)
    record = play.play_match(play.RandomPlayer(), play.RandomPlayer(), "tictactoe", 1, rng).records[0]
    with pytest.raises(ValueError, match="columns must be at least 1, got 0"):
        game_diagram(record, columns=0)
