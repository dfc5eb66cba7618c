"""Analysis for the report: match tables in the seed's format, Wilson intervals, the study's figures, and the
verdict table with its headline sentences (:func:`verdict_summary`, from ``mmc.evaluation.verdict_table``: this
module is the report notebook's one door, and re-exports it).

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

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mmc.evaluation.verdict_table import (
    ADAPTED,
    FRAGILE,
    FRAGILE_NOTE,
    UNINFORMATIVE_NOTE,
    VERDICT_COLOURS,
    ZERO_SHOT,
    Verdicts,
    verdict_summary,
)
from mmc.games import get_game
from mmc.play import GameRecord, replay, wilson_interval

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
            # estimate (mmc.evaluation.rating), which an error bar around the point cannot show
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
