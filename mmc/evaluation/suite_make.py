"""How the shipped suites are made: ``mmc suites --make NAME`` (``docs/concepts/mistakes.md``).

A k-in-a-row suite (:data:`SPECS`) draws positions from self-play games of players of several strengths (random,
greedy, MCTS with random rollouts, and any player added with ``--player``, such as a study's networks), a position or
two from each game at or after the spec's first ply, and labels each with the family's exact solver
(:class:`mmc.games.gomoku.solver.Solver`). Most positions of weak play are easy (every move keeps the value), so the
suite keeps :attr:`SuiteSpec.critical_share` of critical positions and fills the rest with easy ones, in the order
they come.

A chess suite relabels the forced-mate suite (``benchmarks/data/mates.csv``, or ``--from``) of its variant with
every move that keeps a forced mate within :data:`MATE_HORIZON` moves (:func:`mmc.games.chess.puzzles.mating_moves`),
not only the shortest mates.

A position that is illegal, or that the solver cannot finish within the spec's node limit, stops the making with
one line naming it: nothing is dropped silently.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mmc.core.seeding import derive, rng
from mmc.evaluation.mistakes import SUITE_DIR, SuitePosition, write_suite
from mmc.games import apply_move, initial_state, legal_moves, move_notation, outcome

__all__ = ["MATE_HORIZON", "SPECS", "SuiteSpec", "make_suite", "spec"]

MATE_HORIZON = 3
"""A chess suite's move keeps the mate when the mover still forces mate within this many of its moves (the
mate suite's own horizon: its mates are in 1, 2 or 3)."""


@dataclass(frozen=True)
class SuiteSpec:
    """How one suite is drawn."""

    name: str
    variants: tuple[str, ...]
    per_variant: int
    """Positions of each variant."""
    first_ply: int = 0
    """The earliest ply a position is drawn at (the solver's reach: connect4 and 7x7 need stones down); a game that
    ends before it gives its last :attr:`last_plies` positions instead (a study model's game of 7x7 ends within
    ten plies, a random one's after twenty)."""
    last_plies: int = 0
    opening_plies: int = 2
    """Random plies that open each game, as the study's evaluation opens its games: a network searching without
    noise plays the same game from the same position."""
    critical_share: float = 0.75
    """The share of critical positions the suite keeps."""
    players: tuple[str, ...] = ("random", "greedy", "mcts:200")
    """Player specs whose self-play games the positions come from, in turn."""
    node_limit: int = 200_000_000
    """The solver's limit per position."""
    source: str | None = None
    """Chess: the mate suite relabelled (``--from`` overrides it)."""
    description: str = ""


_SMALL = (
    "mnk_3x3_k3", "mnk_4x3_k3", "mnk_4x4_k3", "mnk_4x4_k4", "mnk_5x4_k4",
    "mnk_5x5_k4", "grav_4x4_k3", "grav_4x4_k4", "grav_5x4_k4", "grav_5x5_k4",
)  # fmt: skip

SPECS: dict[str, SuiteSpec] = {
    s.name: s
    for s in (
        SuiteSpec("connect4", ("connect4",), 240, first_ply=10,
                  description="connect4 (a gomoku study target), from ply 10"),
        SuiteSpec("mnk_7x7_k4", ("mnk_7x7_k4",), 240, first_ply=18, node_limit=1_000_000_000,
                  description="four in a row on 7x7, freestyle (a gomoku study target), from ply 18"),
        SuiteSpec("small", _SMALL, 30, first_ply=1, critical_share=0.65,
                  description="ten small freestyle and gravity boards, 30 positions each"),
        SuiteSpec("gardner-mates", ("gardner",), 80, source="benchmarks/data/mates.csv",
                  description="gardner's forced mates in 1-3 and stalemate traps, every mate-keeping move"),
        SuiteSpec("baby-mates", ("baby",), 80, source="benchmarks/data/mates.csv",
                  description="baby's forced mates in 1-3 and stalemate traps, every mate-keeping move"),
        SuiteSpec("mallet-mates", ("mallet",), 80, source="benchmarks/data/mates.csv",
                  description="mallet's forced mates in 1-3 and stalemate traps, every mate-keeping move"),
    )
}  # fmt: skip
"""Every shipped suite's recipe, by name."""


def spec(name: str) -> SuiteSpec:
    """The recipe of suite ``name``; ``ValueError`` in one line listing the suites otherwise."""
    if name not in SPECS:
        raise ValueError(f"unknown suite {name!r} (known: {', '.join(SPECS)})")
    return SPECS[name]


def make_suite(
    name: str | SuiteSpec,
    *,
    seed: int = 0,
    players: Sequence[str] = (),
    source: str | os.PathLike[str] | None = None,
    out: str | os.PathLike[str] | None = None,
    progress: Callable[[str], None] = print,
) -> Path:
    """Draw and label suite ``name`` (a shipped suite's name, or a recipe of one's own), with ``players`` added to
    its own and ``source`` for a chess suite's mate file, and write it to ``out`` (default: the shipped file,
    ``mmc/evaluation/suites/NAME.csv``)."""
    s = name if isinstance(name, SuiteSpec) else spec(name)
    name = s.name
    t0 = time.time()
    if s.source is not None:
        positions = _relabel_mates(s, Path(source or s.source))
    else:
        positions = []
        for variant in s.variants:
            positions += _draw(s, variant, (*s.players, *players), derive(np.random.SeedSequence(seed), "suite", name))
            progress(f"{name}: {variant} done, {len(positions)} positions, {time.time() - t0:.0f} s")
    path = write_suite(positions, Path(out) if out else SUITE_DIR / f"{name}.csv")
    critical = sum(p.critical for p in positions)
    progress(f"{name}: {len(positions)} positions ({critical} critical) to {path} in {time.time() - t0:.0f} s")
    return path


def _draw(s: SuiteSpec, variant: str, players: Sequence[str], seed: np.random.SeedSequence) -> list[SuitePosition]:
    from mmc.games.gomoku.solver import Solver
    from mmc.play.players import close_player, parse_player

    solver = Solver(variant, node_limit=s.node_limit)
    stream = rng(derive(seed, variant))
    want_critical = round(s.per_variant * s.critical_share)
    critical: list[SuitePosition] = []
    easy: list[SuitePosition] = []
    seen: set[str] = set()
    made = {spec_: parse_player(spec_, variant=variant) for spec_ in players}
    try:
        for game in range(200 * s.per_variant):
            if len(critical) >= want_critical and len(easy) >= s.per_variant - want_critical:
                break
            who = players[game % len(players)]
            game_positions = _game(made[who], variant, s.opening_plies, stream)
            for state, ply in _sample(game_positions, s.first_ply, s.last_plies, stream):
                text = state.fen()
                if text in seen:
                    continue
                seen.add(text)
                solution = solver.solve(state)
                legal = legal_moves(state)
                keeping = frozenset(move_notation(state, m) for m in solution.keeping)
                p = SuitePosition(variant, text, solution.value, keeping, len(legal), _label(who), ply, solution.nodes)
                bucket, full = (critical, want_critical) if p.critical else (easy, s.per_variant - want_critical)
                if len(bucket) < full:
                    bucket.append(p)
        else:
            raise ValueError(
                f"suite {s.name}: {variant} gave {len(critical)} critical and {len(easy)} easy positions of "
                f"{want_critical} and {s.per_variant - want_critical} in {200 * s.per_variant} games"
            )
    finally:
        for player in made.values():
            close_player(player)
    return critical + easy


def _label(player: str) -> str:
    """A player spec as a suite records it: a network's path cut to its last three parts (``net:connect4/r0/
    joat_b064.pt:sims=24``), so that a suite file names no folder of the machine that made it."""
    fields = player.split(":")
    if fields[0] == "net" and len(fields) > 1:
        fields[1] = "/".join(Path(fields[1]).parts[-3:])
    return ":".join(fields)


def _game(player: Any, variant: str, opening_plies: int, stream: np.random.Generator) -> list[tuple[Any, int]]:
    """The positions (not over) of one self-play game of ``player`` after ``opening_plies`` random ones, with their
    plies."""
    state = initial_state(variant)
    out = []
    ply = 0
    while outcome(state) is None:
        if ply >= opening_plies:
            out.append((state, ply))
            move = player.play([state], stream)[0]
        else:
            moves = legal_moves(state)
            move = moves[int(stream.integers(len(moves)))]
        state = apply_move(state, move)
        ply += 1
    return out


def _sample(
    positions: list[tuple[Any, int]], first_ply: int, last_plies: int, stream: np.random.Generator
) -> list[tuple[Any, int]]:
    """Up to two positions of a game, at ``first_ply`` or later (a game that ends before: among its last
    ``last_plies``), drawn uniformly."""
    late = [p for p in positions if p[1] >= first_ply]
    if not late and positions and positions[-1][1] < first_ply:
        late = positions[-last_plies:] if last_plies else []
    if not late:
        return []
    picks = stream.choice(len(late), size=min(2, len(late)), replace=False)
    return [late[int(i)] for i in sorted(picks)]


def _relabel_mates(s: SuiteSpec, source: Path) -> list[SuitePosition]:
    from mmc.games.chess import from_fen
    from mmc.games.chess.puzzles import mating_moves, read_puzzles

    out = []
    for puzzle in read_puzzles(source):
        if puzzle.variant not in s.variants:
            continue
        try:
            state = from_fen(puzzle.variant, puzzle.fen)
        except ValueError as e:
            raise ValueError(f"suite {s.name}: illegal position {puzzle.fen!r} in {source}: {e}") from None
        keeping = frozenset(m.uci() for m in mating_moves(state, MATE_HORIZON))
        if not keeping:
            raise ValueError(f"suite {s.name}: no forced mate within {MATE_HORIZON} moves in {puzzle.fen!r}")
        source_name = f"mates:{puzzle.kind}-in-{puzzle.mate_in}"
        out.append(SuitePosition(puzzle.variant, puzzle.fen, 1, keeping, len(legal_moves(state)), source_name, 0))
    if len(out) != s.per_variant:
        raise ValueError(f"suite {s.name}: {source} holds {len(out)} positions of {s.variants}, not {s.per_variant}")
    return out
