"""The exact mate search on hand-made positions, checked against a search written on the game API alone, and the
suite's file format."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from mmc.games.chess import Color, Move, State, apply_move, from_fen, initial_state, legal_moves, outcome
from mmc.games.chess.puzzles import (
    Puzzle,
    mate_distance,
    mating_moves,
    playout_positions,
    read_puzzles,
    stalemating_moves,
    write_puzzles,
)
from mmc.play import FairyPlayer
from mmc.play.fairy import DEFAULT_BINARY

MATE_IN_ONE = "k4/5/1K3/4Q/5 w - - 0 1"  # Qe5 mates; Qd3, Qc4 and Ka3 stalemate
MATE_IN_TWO = "k4/5/2K2/5/3R1 w - - 0 1"
MATE_IN_THREE = "4k/5/5/5/K2Q1 w - - 0 1"  # Kb2 Ke4 Kc3, then Qd4 or Qd3 mates
BLACK_MATES_IN_TWO = "k4/p1K2/5/1r3/q4 b - - 0 1"


def _uci(moves: tuple[Move, ...]) -> list[str]:
    return [m.uci() for m in moves]


def _mated_after(after: State, n: int, attacker: Color) -> bool:
    """Whether ``attacker``, having just moved into ``after``, has mated or mates within ``n - 1`` more moves:
    the definition, on the game API alone."""
    end = outcome(after)
    if end is not None:
        return end.winner == attacker
    return n > 1 and all(_wins(apply_move(after, reply), n - 1) for reply in legal_moves(after))


def _wins(state: State, n: int) -> bool:
    end = outcome(state)
    if end is not None:
        return end.winner == state.turn.other  # the attacker moved last and won
    return any(_mated_after(apply_move(state, m), n, state.turn) for m in legal_moves(state))


@pytest.mark.parametrize(
    ("fen", "distance", "best"),
    [
        (MATE_IN_ONE, 1, ["e2e5"]),
        (MATE_IN_TWO, 2, ["c3b3", "c3c4"]),
        (MATE_IN_THREE, 3, ["a1b2"]),
        (BLACK_MATES_IN_TWO, 2, None),
    ],
)
def test_mate_distance_and_the_mating_moves(fen: str, distance: int, best: list[str] | None) -> None:
    state = from_fen("gardner", fen)
    assert mate_distance(state, 3) == distance
    assert mate_distance(state, distance - 1) is None if distance > 1 else True
    found = _uci(mating_moves(state, distance))
    if best is not None:
        assert sorted(found) == best
    assert found and all(m in _uci(legal_moves(state)) for m in found)
    if distance > 1:
        assert mating_moves(state, distance - 1) == ()


def test_the_mating_moves_agree_with_a_search_on_the_game_api() -> None:
    for fen in (MATE_IN_ONE, MATE_IN_TWO, BLACK_MATES_IN_TWO):
        state = from_fen("gardner", fen)
        for n in (1, 2):
            direct = [m.uci() for m in legal_moves(state) if _mated_after(apply_move(state, m), n, state.turn)]
            assert _uci(mating_moves(state, n)) == direct, (fen, n)
            assert (mate_distance(state, n) is not None) == _wins(state, n)


def test_no_mate_from_the_start_and_none_in_a_finished_game() -> None:
    assert mate_distance(initial_state("gardner"), 2) is None
    mated = apply_move(from_fen("gardner", MATE_IN_ONE), Move.from_uci("e2e5"))
    assert outcome(mated) is not None and mate_distance(mated, 3) is None and mating_moves(mated, 1) == ()
    with pytest.raises(ValueError, match="n must be >= 1"):
        mating_moves(mated, 0)


def test_a_stalemate_trap_and_its_file(tmp_path: Path) -> None:
    trap = Puzzle.of(from_fen("gardner", MATE_IN_ONE.replace("0 1", "7 30")), 3)
    assert trap is not None and trap.kind == "stalemate-trap" and trap.mate_in == 1
    assert trap.fen == MATE_IN_ONE, "clocks reset"
    assert trap.best == ("e2e5",) and sorted(trap.stalemating) == ["b3a3", "e2c4", "e2d3"]
    assert sorted(_uci(stalemating_moves(trap.state))) == sorted(trap.stalemating)
    mate = Puzzle.of(from_fen("gardner", MATE_IN_TWO), 3)
    assert mate is not None and (mate.kind, mate.mate_in, mate.stalemating) == ("mate", 2, ())
    assert Puzzle.of(initial_state("gardner"), 1) is None
    path = write_puzzles([trap, mate], tmp_path / "suite.csv")
    assert read_puzzles(path) == [trap, mate]
    path.write_text(path.read_text().replace("stalemate-trap", "trap"))
    with pytest.raises(ValueError, match=r"suite\.csv:2: Puzzle\.kind must be one of"):
        read_puzzles(path)


def test_playouts_are_seeded_and_give_the_greedy_side_the_move() -> None:
    def first(seed: int) -> list[str]:
        stream = playout_positions("mallet", np.random.default_rng(seed))
        return [next(stream).fen() for _ in range(30)]

    assert first(3) == first(3) and first(3) != first(4)


@pytest.mark.skipif(shutil.which(DEFAULT_BINARY) is None, reason="Fairy-Stockfish is not installed")
def test_fairy_stockfish_reports_the_same_mates() -> None:
    with FairyPlayer("gardner", nodes=1) as engine:
        for fen, distance in ((MATE_IN_ONE, 1), (MATE_IN_TWO, 2), (MATE_IN_THREE, 3), (BLACK_MATES_IN_TWO, 2)):
            move, reported = engine.mate(from_fen("gardner", fen), distance)
            assert reported == distance, fen
            assert move in mating_moves(from_fen("gardner", fen), distance)
        assert engine.mate(initial_state("gardner"), 1, nodes=2000)[1] is None
