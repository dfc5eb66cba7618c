"""The mistake rate: an exact yardstick beside Elo (``docs/concepts/mistakes.md``).

A *suite* is a list of positions labelled by an exact search: each position's value for the player to move (win,
draw or loss) and the set of its legal moves that keep that value. A player makes a *mistake* in a position when its
move changes the value (a win thrown to a draw or a loss, a draw to a loss), and its *mistake rate* is the share of
the suite's positions where it does, with Wilson's 95 % interval, over all positions and over the *critical* ones
(where some legal move changes the value). A move that is not legal counts as a mistake and is named.

The suites ship with the package (``mmc/evaluation/suites/NAME.csv``, :func:`suite_names`) and are made by
``mmc suites --make NAME`` (:mod:`mmc.evaluation.suite_make`): the k-in-a-row ones by the family's solver
(:mod:`mmc.games.gomoku.solver`), the chess ones by its exhaustive forced-mate search
(:mod:`mmc.games.chess.puzzles`). No game is played: a player sees each position once, in a batch.

>>> from mmc.evaluation.mistakes import mistake_rate, read_suite
>>> from mmc.play import GreedyPlayer
>>> import numpy as np
>>> rate = mistake_rate(GreedyPlayer(), read_suite("small"), np.random.default_rng(0))
>>> 0 <= rate.rate <= 1
True
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mmc.core import seeding
from mmc.core.atomic import atomic_write
from mmc.core.fanout import Job
from mmc.evaluation.rating import Ratings, _percentiles
from mmc.games import from_text, legal_moves, move_notation

__all__ = [
    "FIELDS",
    "SCALE",
    "SUITE_DIR",
    "VALUES",
    "MistakeRate",
    "SuitePosition",
    "mistake_jobs",
    "mistake_rate",
    "mistake_ratings",
    "model_mistakes",
    "read_suite",
    "suite_for",
    "suite_names",
    "suite_path",
    "wilson",
    "write_suite",
]

SCALE = 100.0
"""The mistake rate's scale in comparisons: percentage points (:func:`mistake_ratings`)."""
SUITE_DIR = Path(__file__).parent / "suites"
"""Where the shipped suites live: one ``NAME.csv`` each."""
VALUES = {1: "win", 0: "draw", -1: "loss"}
"""A position's value for the player to move, as a suite file writes it."""
_BY_NAME = {v: k for k, v in VALUES.items()}
FIELDS = ("variant", "position", "value", "keeping", "moves", "source", "ply", "nodes")
"""A suite file's columns: the variant id, the position text (``mmc show``'s), its value, the keeping moves
(space-separated move texts), the number of legal moves, the player whose game it came from, its ply in that game,
and the positions the exact search visited to label it (0 where it does not count them)."""


@dataclass(frozen=True)
class SuitePosition:
    """One labelled position of a suite."""

    variant: str
    position: str
    """The game's position text (a FEN in chess, ``8/8/3x4/... o`` in k in a row)."""
    value: int
    """1 the player to move wins with perfect play, 0 draws, -1 loses."""
    keeping: frozenset[str]
    """The legal moves (as move texts) that keep :attr:`value`."""
    moves: int
    """The number of legal moves."""
    source: str = ""
    """The player spec whose game the position came from (``random``, ``greedy``, ``mcts:200``, ``net:...``)."""
    ply: int = 0
    """The position's ply in that game."""
    nodes: int = 0
    """Positions the exact search visited to label it (what re-solving it costs)."""

    @property
    def critical(self) -> bool:
        """Whether some legal move changes the value: a mistake is possible."""
        return len(self.keeping) < self.moves

    @property
    def state(self) -> Any:
        return from_text(self.variant, self.position)


def suite_names() -> tuple[str, ...]:
    """The shipped suites, by name."""
    return tuple(sorted(p.stem for p in SUITE_DIR.glob("*.csv")))


def suite_path(name: str) -> Path:
    """The file of the shipped suite ``name``; ``ValueError`` in one line listing the suites if there is none."""
    path = SUITE_DIR / f"{name}.csv"
    if not isinstance(name, str) or "/" in name or not path.is_file():
        raise ValueError(f"unknown suite {name!r} (known: {', '.join(suite_names())})")
    return path


def read_suite(suite: str | os.PathLike[str]) -> list[SuitePosition]:
    """The positions of a shipped suite (by name) or of a suite file (a path ending ``.csv``)."""
    path = Path(suite) if str(suite).endswith(".csv") else suite_path(str(suite))
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    out = []
    for i, row in enumerate(rows, start=2):
        try:
            out.append(
                SuitePosition(
                    row["variant"],
                    row["position"],
                    _BY_NAME[row["value"]],
                    frozenset(row["keeping"].split()),
                    int(row["moves"]),
                    row.get("source", ""),
                    int(row.get("ply") or 0),
                    int(row.get("nodes") or 0),
                )
            )
        except (KeyError, ValueError) as e:
            raise ValueError(f"{path}, line {i}: not a suite row ({e}): {row}") from None
    return out


def write_suite(positions: Sequence[SuitePosition], path: str | os.PathLike[str]) -> Path:
    """Write ``positions`` as a suite file, atomically."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(FIELDS)
    for p in positions:
        keeping = " ".join(sorted(p.keeping))
        w.writerow([p.variant, p.position, VALUES[p.value], keeping, p.moves, p.source, p.ply, p.nodes])
    data = buf.getvalue().encode()
    return atomic_write(Path(path), lambda file: file.write(data))


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval of ``k`` successes in ``n`` trials ((0, 1) for none)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, float(centre - half)), min(1.0, float(centre + half))


@dataclass(frozen=True)
class MistakeRate:
    """A player's mistakes on a suite."""

    player: str
    positions: int
    mistakes: int
    critical_positions: int
    critical_mistakes: int
    illegal: int = 0
    """Moves that were not legal (each also counted as a mistake)."""
    marks: tuple[bool, ...] = field(default=(), repr=False)
    """Per position, in suite order: whether the move was a mistake (for paired comparisons)."""

    @property
    def rate(self) -> float:
        return self.mistakes / self.positions if self.positions else 0.0

    @property
    def ci(self) -> tuple[float, float]:
        return wilson(self.mistakes, self.positions)

    @property
    def critical_rate(self) -> float:
        return self.critical_mistakes / self.critical_positions if self.critical_positions else 0.0

    @property
    def critical_ci(self) -> tuple[float, float]:
        return wilson(self.critical_mistakes, self.critical_positions)

    def summary(self) -> str:
        """One line: the rates with their intervals, and the illegal moves if any."""
        lo, hi = self.ci
        clo, chi = self.critical_ci
        line = (
            f"{self.player}: mistakes {self.rate:.3f} [{lo:.3f}, {hi:.3f}] of {self.positions} positions, "
            f"{self.critical_rate:.3f} [{clo:.3f}, {chi:.3f}] of {self.critical_positions} critical"
        )
        if self.illegal:
            line += f"; {self.illegal} illegal moves by {self.player} (counted as mistakes)"
        return line


def mistake_rate(
    player: Any | Callable[[str], Any],
    positions: Sequence[SuitePosition],
    rng: np.random.Generator,
    *,
    batch: int = 64,
) -> MistakeRate:
    """The mistake rate of ``player`` on ``positions``.

    ``player`` is a player (``mmc.play.Player``: ``play(states, rng)``) or a function of a variant id returning one
    (a suite of several variants: ``lambda v: parse_player("mcts:200", variant=v)``). The positions are handed to it
    ``batch`` at a time, variant by variant."""
    make = player if callable(player) and not hasattr(player, "play") else (lambda _v: player)
    marks = [False] * len(positions)
    illegal = 0
    name = ""
    by_variant: dict[str, list[int]] = {}
    for i, p in enumerate(positions):
        by_variant.setdefault(p.variant, []).append(i)
    for variant, indices in by_variant.items():
        who = make(variant)
        name = name or who.name
        for start in range(0, len(indices), batch):
            chunk = indices[start : start + batch]
            states = [positions[i].state for i in chunk]
            moves = who.play(states, rng)
            for i, state, move in zip(chunk, states, moves, strict=True):
                if move not in legal_moves(state):
                    illegal += 1
                    marks[i] = True
                    continue
                marks[i] = move_notation(state, move) not in positions[i].keeping
    critical = [i for i, p in enumerate(positions) if p.critical]
    return MistakeRate(
        name,
        len(positions),
        sum(marks),
        len(critical),
        sum(marks[i] for i in critical),
        illegal,
        tuple(marks),
    )


def suite_for(variant: str) -> str | None:
    """The shipped suite a study measures ``variant``'s models on: the suite named after the variant (``connect4``),
    else its mate suite (``gardner-mates``); ``None`` where there is none."""
    names = suite_names()
    for name in (variant, f"{variant}-mates"):
        if name in names:
            return name
    return None


def model_mistakes(
    net: Any, player: str, positions: Sequence[SuitePosition], search: Any, seed: np.random.SeedSequence,
    device: str = "cpu",
) -> MistakeRate:  # fmt: skip
    """The mistake rate of the network ``net`` searching with ``search`` (a ``mmc.search.SearchConfig``: the
    evaluation's, no root noise, the most visited move), named ``player``: one job of a study's evaluation
    (:func:`mistake_jobs`)."""
    from mmc.nn import on_device, resolve_device
    from mmc.play.search_players import MCTSPlayer
    from mmc.search import NetworkLeafEvaluator

    evaluator = NetworkLeafEvaluator(on_device(net, resolve_device(device)), precision=search.precision)
    return mistake_rate(MCTSPlayer(evaluator, search, name=player), positions, seeding.rng(seed))


def mistake_jobs(
    models: dict[str, Any], variant: str, suite: str, search: Any, seed: np.random.SeedSequence, device: str = "cpu"
) -> list[Job[MistakeRate]]:
    """One job per model (``models``: networks by name) measuring its mistake rate on ``suite``, named
    ``mistakes-{variant}-{model}``; each model's search draws from ``(name,)`` of ``seed``."""
    positions = read_suite(suite)
    jobs = []
    for name, net in models.items():
        kwargs = {"net": net, "player": name, "positions": positions, "search": search,
                  "seed": seeding.derive(seed, name), "device": device}  # fmt: skip
        jobs.append(Job("mistakes", (variant, name), model_mistakes, kwargs))
    return jobs


def mistake_ratings(rates: Sequence[MistakeRate], rng: np.random.Generator, samples: int = 1000,
                    level: float = 0.95) -> Ratings:  # fmt: skip
    """The mistake rates of models measured on one suite as a ``mmc.evaluation.rating.Ratings``, so that
    ``mmc.evaluation.comparison`` compares them as it compares Elo: each model's value is minus its mistake rate in
    percentage points (higher is better: ``a - b`` > 0 when ``a`` errs less), and the bootstrap redraws the suite's
    positions, the same draw for every model (the comparisons are paired by position as well as by replicate)."""
    if not rates or len({len(r.marks) for r in rates}) != 1:
        raise ValueError("mistake_ratings needs rates of one suite, each with its marks")
    marks = np.array([r.marks for r in rates], dtype=float)  # [models, positions]
    n = marks.shape[1]
    picks = rng.integers(n, size=(samples, n))
    drawn = -SCALE * marks[:, picks].mean(axis=2).T  # [samples, models]
    players = tuple(r.player for r in rates)
    values = {p: float(-SCALE * r.rate) for p, r in zip(players, rates, strict=True)}
    bounds = [_percentiles(drawn[:, i], level) for i in range(len(players))]
    low = {p: float(b[0]) for p, b in zip(players, bounds, strict=True)}
    high = {p: float(b[1]) for p, b in zip(players, bounds, strict=True)}
    return Ratings(players, values, low, high, {p: n for p in players}, "", level, drawn)
