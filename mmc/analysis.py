"""Analysis for the report: match tables in the seed's format, Wilson intervals, the study's figures, and the
verdict table with its headline sentences (:func:`verdict_summary`).

The report notebooks read stage outputs and plot through these functions, so that a figure means the
same thing wherever it appears. Tables are pandas DataFrames; figures are seaborn on matplotlib (both
imported when first used, so ``import mmc`` stays light).

Match table columns (the seed README's "game, player 1, player 2, wins, draws, losses", plus the score
and its interval)::

    game  player 1  player 2  wins  draws  losses  games  score  ci_low  ci_high

``score`` counts a draw as half a win, from player 1's view; the interval is Wilson's 95% interval on that
score treated as a proportion over ``games``.
"""

from __future__ import annotations

import html
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from mmc.games import get_game
from mmc.play import GameRecord, replay, wilson_interval
from mmc.rating import BETTER, NO_DIFFERENCE, UNINFORMATIVE, VERDICTS, WORSE, Comparison
from mmc.starts import parse_model_label
from mmc.starts import title as start_title

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "ADAPTED",
    "FRAGILE",
    "FRAGILE_NOTE",
    "MATCH_COLUMNS",
    "UNINFORMATIVE_NOTE",
    "VERDICT_COLOURS",
    "ZERO_SHOT",
    "Verdicts",
    "adaptation_figure",
    "elo_curve_figure",
    "game_diagram",
    "ladder_figure",
    "loss_figure",
    "match_table",
    "time_split_figure",
    "verdict_summary",
    "wilson_interval",
    "win_rate_heatmap",
]

GAME_DIAGRAM_COLUMNS = 8
"""Boards side by side in one row of :func:`game_diagram`."""

MATCH_COLUMNS = ["game", "player 1", "player 2", "wins", "draws", "losses", "games", "score", "ci_low", "ci_high"]


def match_table(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """A match table from rows with ``game``, ``player 1``, ``player 2``, ``wins``, ``draws``, ``losses``
    (any extra keys are kept); adds ``games``, ``score`` and its Wilson interval. ``ValueError`` on a row
    with negative counts or no games."""
    import pandas as pd

    records = []
    for row in rows:
        wins, draws, losses = int(row["wins"]), int(row["draws"]), int(row["losses"])
        games = wins + draws + losses
        if min(wins, draws, losses) < 0 or games == 0:
            raise ValueError(f"a match row needs non-negative counts and at least one game, got {dict(row)}")
        score = (wins + draws / 2) / games
        low, high = wilson_interval(score, games)
        records.append({**row, "wins": wins, "draws": draws, "losses": losses, "games": games, "score": score,
                        "ci_low": low, "ci_high": high})  # fmt: skip
    table = pd.DataFrame.from_records(records)
    extra = [c for c in table.columns if c not in MATCH_COLUMNS]
    return table.reindex(columns=MATCH_COLUMNS + extra) if len(table) else pd.DataFrame(columns=MATCH_COLUMNS)


def game_diagram(record: GameRecord, *, columns: int = GAME_DIAGRAM_COLUMNS) -> str:
    """The game of ``record`` as text, position by position: its family's own ``render`` of the start and of the
    position after each move, ``columns`` boards side by side under their labels (``start``, ``1. MOVE``, ...).

    A family's board may change height or width from one position to the next (the jump family draws 9 or 10
    lines): each row of boards is as tall as its tallest board, shorter boards are padded with blank lines, and
    every board starts at the same column of its row, so nothing is cut or shifted. Trailing spaces are dropped.
    """
    if columns < 1:
        raise ValueError(f"game_diagram: columns must be at least 1, got {columns}")
    game = get_game(record.variant)
    boards = [game.render(state).splitlines() for state in replay(record)]
    labels = ["start"] + [f"{ply}. {move}" for ply, move in enumerate(record.moves, start=1)]
    width = max(len(text) for text in [*labels, *(line for board in boards for line in board)]) + 3
    rows: list[str] = []
    for first in range(0, len(boards), columns):
        shown = range(first, min(first + columns, len(boards)))
        height = max(len(boards[i]) for i in shown)
        rows.append("".join(labels[i].ljust(width) for i in shown).rstrip())
        padded = [boards[i] + [""] * (height - len(boards[i])) for i in shown]
        rows += ["".join(board[line].ljust(width) for board in padded).rstrip() for line in range(height)]
        rows.append("")
    return "\n".join(rows)


def loss_figure(losses: pd.DataFrame, *, x: str = "generation", hue: str = "series",
                title: str = "Training losses") -> Figure:  # fmt: skip
    """Policy, value and total loss against ``x`` (columns ``policy``, ``value``, ``total``), one line per ``hue``."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    long = losses.melt(id_vars=[c for c in losses.columns if c not in ("policy", "value", "total")],
                       value_vars=["policy", "value", "total"], var_name="loss", value_name="value_")  # fmt: skip
    grid = sns.relplot(data=long, x=x, y="value_", hue=hue if hue in long else None, col="loss", kind="line",
                       marker="o", facet_kws={"sharey": False}, height=3, aspect=1.2)  # fmt: skip
    grid.set_axis_labels(x, "loss")
    grid.figure.suptitle(title, y=1.04)
    plt.close(grid.figure)
    return grid.figure


def win_rate_heatmap(table: pd.DataFrame, *, rows: str = "game", columns: str = "matchup",
                     title: str = "Score (wins + draws / 2) per game") -> Figure:  # fmt: skip
    """A heatmap of ``score`` with ``rows`` x ``columns`` (a ``matchup`` column is made from the players if absent)."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    data = table.copy()
    if columns == "matchup" and "matchup" not in data:
        data["matchup"] = data["player 1"].astype(str) + " vs " + data["player 2"].astype(str)
    grid = data.pivot_table(index=rows, columns=columns, values="score", aggfunc="mean")
    # Room below the cells for the slanted column labels, so that tight_layout fits them in.
    label_height = 0.06 * max((len(str(c)) for c in grid.columns), default=0)
    figure, axes = plt.subplots(figsize=(1.6 + 1.1 * len(grid.columns), 1.6 + 0.5 * len(grid.index) + label_height))
    sns.heatmap(grid, annot=True, fmt=".2f", vmin=0, vmax=1, cmap="vlag_r", ax=axes, cbar_kws={"label": "score"})
    axes.tick_params(axis="x", labelrotation=30)
    plt.setp(axes.get_xticklabels(), ha="right", rotation_mode="anchor")
    axes.set_title(title)
    figure.tight_layout()
    plt.close(figure)
    return figure


def adaptation_figure(table: pd.DataFrame, *, budget: str = "budget", start: str = "start",
                      opponents: Sequence[str] | None = None) -> Figure:  # fmt: skip
    """Score against each opponent versus the adaptation budget (self-play games), one line per starting
    model, with the Wilson intervals as bands; one panel per (target ``game``, opponent)."""
    import matplotlib.pyplot as plt

    data = table if opponents is None else table[table["player 2"].isin(opponents)]
    games = sorted(data["game"].unique())
    versus = sorted(data["player 2"].unique())
    figure, grid = plt.subplots(len(games), len(versus), figsize=(3.6 * len(versus), 2.8 * len(games)),
                                squeeze=False, sharey=True)  # fmt: skip
    palette = _palette(data[start])
    for i, game in enumerate(games):
        for j, opponent in enumerate(versus):
            axes: Axes = grid[i][j]
            cell = data[(data["game"] == game) & (data["player 2"] == opponent)]
            for name, line in cell.groupby(start):
                _line_with_band(
                    axes, line.sort_values(budget), budget, ("score", "ci_low", "ci_high"), palette[name], name
                )
            axes.set_title(f"{game}: vs {opponent}", fontsize=9)
            axes.set_ylim(0, 1)
            axes.set_xlabel("self-play games")
            axes.set_ylabel("score")
    _legend_right(figure, grid[0][0])
    plt.close(figure)
    return figure


def elo_curve_figure(
    curves: pd.DataFrame, *, models: pd.DataFrame | None = None, held_out: Sequence[str] = ()
) -> Figure:
    """Elo (greedy = 0) versus the adaptation budget, one line per starting model with its 95 % interval as a
    band, one panel per target ``game`` (held-out targets marked in the title). ``curves`` has the columns of
    ``plots/curves/{t}.csv``: ``game, start, budget, elo, low, high`` (the mean over the training replicates);
    ``models``, the ratings table (``plots/ratings/{t}.csv``), adds each replicate's model as a dot."""
    import matplotlib.pyplot as plt

    games = list(dict.fromkeys(curves["game"]))
    palette = _palette(curves["start"])
    figure, grid = plt.subplots(1, len(games), figsize=(3.4 * len(games), 3.0), squeeze=False, sharey=True)
    for axes, game in zip(grid[0], games, strict=True):
        for name, line in curves[curves["game"] == game].groupby("start"):
            _line_with_band(axes, line.sort_values("budget"), "budget", ("elo", "low", "high"), palette[name], name)
        if models is not None:
            dots = models[(models["game"] == game) & (models["kind"] == "model")]
            for name, points in dots.groupby("start"):
                axes.scatter(points["budget"], points["elo"], s=10, color=palette[name], alpha=0.5, linewidths=0)
        axes.axhline(0, color="grey", linewidth=0.8, linestyle=":")
        axes.set_title(f"{game} (held out)" if game in held_out else game, fontsize=9)
        axes.set_xlabel("self-play games")
        axes.set_ylabel("Elo (greedy = 0)")
    _legend_right(figure, grid[0][0])
    plt.close(figure)
    return figure


def ladder_figure(ratings: pd.DataFrame) -> Figure:
    """Every model and anchor of each target on one vertical Elo axis (greedy = 0), with its 95 % interval:
    one panel per ``game``, anchors in grey, models coloured by start."""
    import matplotlib.pyplot as plt

    games = list(dict.fromkeys(ratings["game"]))
    palette = _palette(ratings.loc[ratings["kind"] == "model", "start"])
    tallest = max(len(ratings[ratings["game"] == game]) for game in games)
    figure, grid = plt.subplots(1, len(games), figsize=(3.4 * len(games), 0.28 * tallest + 1.2), squeeze=False)
    for axes, game in zip(grid[0], games, strict=True):
        rows = ratings[ratings["game"] == game].sort_values("elo").reset_index(drop=True)
        for y, row in rows.iterrows():
            colour = "grey" if row["kind"] == "anchor" else palette[row["start"]]
            # the interval as drawn from low to high: with few games a percentile interval may leave out the
            # estimate (mmc.rating), which an error bar around the point cannot show
            axes.plot([row["low"], row["high"]], [y, y], color=colour, linewidth=1)
            axes.plot([row["low"], row["high"]], [y, y], "|", color=colour, markersize=5)
            axes.plot(row["elo"], y, "o", color=colour, markersize=4)
        axes.set_yticks(range(len(rows)), rows["player"], fontsize=7)
        axes.axvline(0, color="grey", linewidth=0.8, linestyle=":")
        axes.set_title(game, fontsize=9)
        axes.set_xlabel("Elo (greedy = 0)")
    figure.tight_layout()
    plt.close(figure)
    return figure


def time_split_figure(rows: pd.DataFrame) -> Figure:
    """Where a study's time went: one horizontal bar per stage (``stage``), its wall seconds stacked by ``part``
    (columns ``stage``, ``part``, ``wall_seconds``; :mod:`pipelines.timing`'s rows), parts in their first order."""
    import matplotlib.pyplot as plt

    parts = list(dict.fromkeys(rows["part"]))
    stages = list(dict.fromkeys(rows["stage"]))
    table = rows.pivot_table(index="stage", columns="part", values="wall_seconds", aggfunc="sum", fill_value=0.0)
    table = table.reindex(index=stages[::-1], columns=parts, fill_value=0.0)
    colours = plt.get_cmap("tab20")
    figure, axes = plt.subplots(figsize=(9, 0.26 * len(stages) + 1.6))
    left = [0.0] * len(stages)
    for index, part in enumerate(parts):
        widths = table[part].tolist()
        axes.barh(range(len(stages)), widths, left=left, color=colours(index % 20), label=part, height=0.75)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    axes.set_yticks(range(len(stages)), table.index, fontsize=7)
    axes.set_xlabel("wall seconds")
    axes.legend(fontsize=7, loc="lower right", frameon=False)
    figure.tight_layout()
    plt.close(figure)
    return figure


ZERO_SHOT = "zero-shot"
"""The stage of a comparison at budget 0: each start as it is, never trained on the target."""
ADAPTED = "adapted"
"""The stage of a comparison at the largest budget."""
VERDICT_COLOURS = {BETTER: "#b7e1b0", WORSE: "#f2b8b0", NO_DIFFERENCE: "#e6e6e6", UNINFORMATIVE: "#f6efd2"}
"""The background of a verdict table cell, by verdict (:data:`mmc.rating.VERDICTS`)."""
_MARKS = {BETTER: "▲ ", WORSE: "▼ ", NO_DIFFERENCE: "", UNINFORMATIVE: "? "}  # the verdict without colour
UNINFORMATIVE_NOTE = (
    "A comparison is uninformative where one of its starts did not beat scratch (a freshly initialised network with "
    "the same search) at budget 0 by more than the smallest difference that comparison detects: those starts learned "
    "too little for their difference to say anything of how they were trained."
)
"""The headlines' last line but one when a cell is :data:`mmc.rating.UNINFORMATIVE`."""
FRAGILE = "fragile"
"""The label of a verdict that does not hold (:func:`mmc.rating.holds`); :data:`mmc.rating.UNINFORMATIVE` wins."""
FRAGILE_NOTE = (
    "A verdict is fragile where a rerun would repeat it with probability below 0.8 (its interval leaves out 0 by too "
    "little) or leaving out any one training replicate (with two, taking each replicate alone) would not give it: the "
    "run checks every verdict so on the games it played, no game more. Such verdicts are the ones that flip when "
    "meta-training stops a generation earlier or later (BENCHMARKS.md, issue 61); read them as a direction to confirm "
    "with more replicates, not a finding."
)
"""The headlines' last line when a verdict is :data:`FRAGILE`."""


@dataclass(frozen=True)
class Verdicts:
    """The study's answer at a glance (:func:`verdict_summary`): a cell per (comparison, target, stage), with the
    headline sentences (one per comparison) and the sentence on the instrument's resolution."""

    comparisons: tuple[str, ...]
    """The rows: each comparison's label (``JOAT - multitask``, ``JOAT adapted - unadapted``), in study order."""
    targets: tuple[str, ...]
    held_out: tuple[str, ...]
    stages: tuple[tuple[str, int], ...]
    """``(ZERO_SHOT, 0)`` and ``(ADAPTED, largest budget)``, those the rows have."""
    cells: Mapping[tuple[str, str, str], Comparison]
    """Keyed by (comparison, target, stage); a missing key is a comparison not made there."""
    headlines: tuple[str, ...]
    resolution: str

    def to_html(self) -> str:
        """The verdict table as an HTML fragment with inline styles (no stylesheet, no script), and its legend."""
        if not self.stages:
            return "<p>No comparisons were made.</p>"
        edge = "border: 1px solid #999; padding: 3px 8px"
        heads = "".join(
            f'<th colspan="{len(self.stages)}" style="{edge}; text-align: center">{html.escape(t)}'
            + (" (held out)" if t in self.held_out else "") + "</th>"
            for t in self.targets
        )  # fmt: skip
        stages = "".join(
            f'<th style="{edge}; text-align: center">{stage}' + (f" ({budget} games)" if budget else "") + "</th>"
            for _ in self.targets for stage, budget in self.stages
        )  # fmt: skip
        rows = []
        for comparison in self.comparisons:
            cells = [self.cells.get((comparison, t, stage)) for t in self.targets for stage, _ in self.stages]
            row = "".join(_cell_html(cell, edge) for cell in cells)
            rows.append(f'<tr><th style="{edge}; text-align: left">{html.escape(comparison)}</th>{row}</tr>')
        legend = " ".join(
            f'<span style="background: {VERDICT_COLOURS[v]}; padding: 1px 6px">{_MARKS[v]}{v}</span>' for v in VERDICTS
        )
        return (
            '<table class="verdict-table" style="border-collapse: collapse; font-size: 13px">'
            f'<thead><tr><th rowspan="2" style="{edge}">a - b (Elo)</th>{heads}</tr><tr>{stages}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
            f'<p style="font-size: 12px">Each cell: the mean difference in Elo points over the training replicates, '
            f"below it its 95 % interval, then the probability of improvement P(a&gt;b) (how often a replicate of a is "
            f"rated above one of b; 0.5: no tendency) and, from 5 replicates, the interquartile mean (IQM) of the "
            f"replicates' differences; {legend}; <b>{FRAGILE}</b> (striped): a verdict a rerun would repeat with "
            f"probability below 0.8, or that leaving out any one replicate would not give; - not compared.</p>"
        )


def verdict_summary(
    rows: Iterable[Mapping[str, Any]], *, targets: Sequence[str] = (), held_out: Sequence[str] = ()
) -> Verdicts:
    """The verdict table of the paired comparisons ``rows`` (``plots/comparisons/`` rows: ``game``, ``a``, ``b``
    (``START-bBUDGET``), ``difference``, ``low``, ``high``, ``verdict``, ``detectable``, ``replicates``), zero-shot
    (budget 0) and adapted (the largest budget), in ``targets`` order (those of the rows follow any not listed),
    ``held_out`` ones marked; the verdicts are the rows' (:func:`mmc.rating.verdict`). ``ValueError`` naming the
    row (or the model name) if a verdict is unknown, a model name malformed, or a cell given twice."""
    rows = list(rows)
    targets = tuple(dict.fromkeys([*targets, *(str(row["game"]) for row in rows)]))
    budgets = {parse_model_label(str(row["a"]))[1] for row in rows}
    largest = max(budgets, default=0)
    stages = ((ZERO_SHOT, 0),) * (0 in budgets) + ((ADAPTED, largest),) * (largest > 0)
    stage_of = {budget: stage for stage, budget in stages}
    cells: dict[tuple[str, str, str], Comparison] = {}
    for row in rows:
        if row["verdict"] not in VERDICTS:
            raise ValueError(f"unknown verdict {row['verdict']!r} (expected one of {list(VERDICTS)}) in {dict(row)}")
        label, budget = _comparison_label(str(row["a"]), str(row["b"]))
        if budget not in stage_of:
            continue  # an intermediate budget: in the comparisons table, not at a glance
        key = (label, str(row["game"]), stage_of[budget])
        if key in cells:
            raise ValueError(f"comparison {label} in {key[1]} {key[2]} given twice: {dict(row)}")
        difference, low, high, detectable, spread = (
            float(row[k]) for k in ("difference", "low", "high", "detectable", "spread")
        )
        improvement, iqm = float(row.get("improvement", 0.5)), _number(row.get("iqm"))
        cells[key] = Comparison(difference, low, high, str(row["verdict"]), detectable, int(row["replicates"]), spread,
                                improvement, iqm, _flag(row.get("holds", True), row))  # fmt: skip
    comparisons = tuple(dict.fromkeys(label for label, _, _ in cells))
    headlines = [_headline(c, targets, stages, cells) for c in comparisons]
    missing = [t for t in targets if not any(key[1] == t for key in cells)]
    if missing and cells:
        headlines.append(f"No comparison was made in {_words(missing)}.")
    if any(cell.verdict == UNINFORMATIVE for cell in cells.values()):
        headlines.append(UNINFORMATIVE_NOTE)
    if any(_fragile(cell) for cell in cells.values()):
        headlines.append(FRAGILE_NOTE)
    held = tuple(t for t in targets if t in held_out)
    return Verdicts(comparisons, targets, held, stages, cells, tuple(headlines), _resolution(stages, cells))


def _comparison_label(a: str, b: str) -> tuple[str, int]:
    """A comparison's row label and stage budget from its models' names: ``JOAT - multitask`` (the same budget),
    ``JOAT adapted - unadapted`` or ``MetaFocus adapted - JOAT unadapted`` (against a budget-0 model)."""
    (start_a, budget_a), (start_b, budget_b) = parse_model_label(a), parse_model_label(b)
    name_a, name_b = start_title(start_a), start_title(start_b)
    if budget_a == budget_b:
        return f"{name_a} - {name_b}", budget_a
    if budget_b == 0:
        unadapted = "unadapted" if start_a == start_b else f"{name_b} unadapted"
        return f"{name_a} adapted - {unadapted}", budget_a
    return f"{a} - {b}", budget_a


def _headline(
    comparison: str,
    targets: Sequence[str],
    stages: Sequence[tuple[str, int]],
    cells: Mapping[tuple[str, str, str], Comparison],
) -> str:
    """``JOAT - multitask: after adaptation (100 games), worse in 3 of 4 targets (gardner, dark and mallet) by 100
    to 190 Elo and no detectable difference in 1 of 4 targets (los_alamos); zero-shot, no detectable difference in
    all 4 targets.``: per stage, adapted first, the targets grouped by verdict, the most frequent first."""
    parts = []
    for stage, budget in reversed(stages):
        found = {t: cells[(comparison, t, stage)] for t in targets if (comparison, t, stage) in cells}
        if not found:
            continue
        groups = {v: [t for t, cell in found.items() if _said(cell) == v] for v in _LABELS}
        # the most frequent verdict first; sorted is stable, so ties keep _LABELS' order
        ranked = sorted((v for v in _LABELS if groups[v]), key=lambda v: -len(groups[v]))
        said = []
        for v in ranked:
            where = groups[v]
            if len(found) == 1:
                place = f"in {where[0]}"
            elif len(where) == len(found):
                place = "in both targets" if len(found) == 2 else f"in all {len(found)} targets"
            else:
                place = f"in {len(where)} of {len(found)} targets ({_words(where)})"
            sized = v not in (NO_DIFFERENCE, UNINFORMATIVE)
            said.append(f"{v} {place}" + (f" by {_span(found[t] for t in where)}" if sized else ""))
        when = "zero-shot" if stage == ZERO_SHOT else f"after adaptation ({budget} games)"
        parts.append(f"{when}, {_words(said)}")
    return f"{comparison}: " + "; ".join(parts) + "."


def _resolution(stages: Sequence[tuple[str, int]], cells: Mapping[tuple[str, str, str], Comparison]) -> str:
    """The smallest difference the instrument detects per stage (the median half-width of the intervals obtained)
    and the replicates it rests on."""
    if not cells:
        return "No comparisons were made."
    said = []
    for stage, budget in stages:
        widths = sorted(cell.detectable for key, cell in cells.items() if key[2] == stage)
        when = "zero-shot" if stage == ZERO_SHOT else f"after {budget} games of adaptation"
        spread = f"; {widths[0]:.0f} to {widths[-1]:.0f}" if round(widths[0]) != round(widths[-1]) else ""
        said.append(f"{statistics.median(widths):.0f} Elo {when} (the median over {len(widths)} comparison"
                    f"{'s' if len(widths) > 1 else ''}{spread})")  # fmt: skip
    counts = sorted({cell.replicates for cell in cells.values()})
    if counts == [1]:
        rests = "one training replicate per model, so the intervals cover the games only, not training noise"
    else:
        many = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
        rests = (f"{many} training replicates per model (the intervals cover game and training noise; measured on "
                 "the gomoku study with ten replicates, two-replicate intervals contained the ten replicates' mean in "
                 "95 % of draws, and in 82 % in the worst cell)")  # fmt: skip
    return (
        f"The smallest difference this study can tell from 0 (half the width of a paired 95% interval) is "
        f"{_words(said)}: a smaller observed difference reads as no detectable difference (a true difference of "
        f"that size is found about half the time, one 1.4 times as large four times in five). It rests on {rests}."
    )


_LABELS = (BETTER, WORSE, f"{BETTER} ({FRAGILE})", f"{WORSE} ({FRAGILE})", NO_DIFFERENCE, UNINFORMATIVE)
"""What a headline groups targets by: the verdicts, a fragile one apart from one that holds."""


def _fragile(cell: Comparison) -> bool:
    """Whether the cell's verdict is labelled fragile: a verdict that does not hold, unless uninformative."""
    return not cell.holds and cell.verdict in (BETTER, WORSE)


def _said(cell: Comparison) -> str:
    """The verdict as the headline says it: ``worse (fragile)`` for a fragile one."""
    return f"{cell.verdict} ({FRAGILE})" if _fragile(cell) else cell.verdict


def _number(value: Any) -> float | None:
    """A row's optional number: ``None`` for a missing one (empty in the CSV, NaN in pandas)."""
    if value is None or value == "":
        return None
    number = float(value)
    return None if math.isnan(number) else number


def _flag(value: Any, row: Mapping[str, Any]) -> bool:
    """A row's ``holds`` (a bool, or ``True``/``False`` as text); ``ValueError`` naming the row otherwise."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if value in ("True", "False"):
        return value == "True"
    raise ValueError(f"holds must be True or False, got {value!r} in {dict(row)}")


def _span(cells: Iterable[Comparison]) -> str:
    """The size of the differences: ``120 Elo``, or ``100 to 190 Elo``."""
    sizes = sorted(round(abs(cell.difference)) for cell in cells)
    return f"{sizes[0]} Elo" if sizes[0] == sizes[-1] else f"{sizes[0]} to {sizes[-1]} Elo"


def _cell_html(cell: Comparison | None, edge: str) -> str:
    if cell is None:
        return f'<td style="{edge}; text-align: center; color: #888">-</td>'
    fragile = _fragile(cell)
    style = f"{edge}; text-align: center; background: {VERDICT_COLOURS[cell.verdict]}"
    if fragile:  # the verdict's colour, striped: it does not hold
        style += f"; background: repeating-linear-gradient(135deg, {VERDICT_COLOURS[cell.verdict]} 0 6px, #fff 6px 9px)"
    iqm = "" if cell.iqm is None else f"; IQM {cell.iqm:+.0f}"
    return (
        f'<td style="{style}" title="{_said(cell)}">'
        f"{_MARKS[cell.verdict]}{cell.difference:+.0f}" + (f" <b>{FRAGILE}</b>" if fragile else "") + "<br>"
        f'<span style="font-size: 11px">{cell.low:+.0f} to {cell.high:+.0f}<br>'
        f"P(a&gt;b) {cell.improvement:.2f}{iqm}</span></td>"
    )


def _words(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return ", ".join(items[:-1]) + f" and {items[-1]}" if len(items) > 1 else "".join(items)


def _palette(starts: Iterable[Any]) -> dict[Any, Any]:
    """One colour per start, in sorted order, the same in every figure of a report."""
    import seaborn as sns

    names = sorted(set(starts))
    return dict(zip(names, sns.color_palette(n_colors=len(names)), strict=True))


def _line_with_band(
    axes: Axes, line: pd.DataFrame, x: str, columns: tuple[str, str, str], colour: Any, name: Any
) -> None:
    """``line[y]`` against ``line[x]`` with the band ``[low, high]``; ``columns`` is ``(y, low, high)``."""
    y, low, high = columns
    axes.plot(line[x], line[y], marker="o", color=colour, label=str(name))
    axes.fill_between(line[x], line[low], line[high], color=colour, alpha=0.15)


def _legend_right(figure: Figure, axes: Axes) -> None:
    """The legend of ``axes``' lines beside the panels, right of them (a figure saved with ``bbox_inches="tight"``
    grows to include it), after laying the panels out."""
    handles, labels = axes.get_legend_handles_labels()
    figure.tight_layout()
    figure.legend(handles, labels, title="start", loc="center left", bbox_to_anchor=(1.0, 0.5))
