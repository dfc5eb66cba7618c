"""Position and move texts: round trips, two-digit numbers on 15x15, and every refusal as one line naming the
problem."""

from __future__ import annotations

import pytest

from mmc.games import from_text as any_from_text
from mmc.games.gomoku import VARIANTS, cell_name, from_text, initial_state, parse_cell
from tests.games.gomoku import random_positions


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_position_text_reads_back_as_the_same_stones(variant: str) -> None:
    for state in random_positions(variant, 10, seed=3, near=0.5):
        again = from_text(variant, state.fen())
        assert again.fen() == state.fen() and again.turn == state.turn and again.ply == state.ply
        assert again.last is None and (state.last is not None or state.ply == 0)
        assert again == state._replace(board=again.board) and again.board[:240] == state.board[:240]


def test_starts_and_two_digit_numbers() -> None:
    assert initial_state("gomoku_8x8").fen() == "8/8/8/8/8/8/8/8 x"
    assert initial_state("connect4").fen() == "7/7/7/7/7/7 x"
    assert initial_state("gomoku").fen() == "/".join(["15"] * 15) + " x"
    text = "/".join(["15"] * 7 + ["7x7", "6o8", "x14"] + ["15"] * 5) + " o"
    state = from_text("gomoku", text)
    assert state.fen() == text and state.ply == 3
    assert {cell_name(c) for c in range(240) if state.board[c] == 1} == {"h8", "a6"}
    assert from_text("gomoku", "/".join(["15"] * 14 + ["o13x"]) + " x").fen().endswith("/o13x x")


def test_cell_names_cover_the_15x15_board() -> None:
    cells = [16 * rank + file for rank in range(15) for file in range(15)]
    assert [parse_cell(cell_name(c)) for c in cells] == cells
    assert (cell_name(0), cell_name(16 * 14 + 14), cell_name(16 * 9 + 3)) == ("a1", "o15", "d10")
    assert parse_cell(" D5 ") == parse_cell("d5") == 16 * 4 + 3


@pytest.mark.parametrize("text", ["z5", "a16", "a0", "p1", "d", "d5x", "", "P@d5"])
def test_a_move_text_that_is_no_cell_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(ValueError, match=rf"^not a cell: {text!r} \(expected a file a-o and a rank 1-15") as error:
        parse_cell(text)
    assert "\n" not in str(error.value)


REFUSALS = [
    ("gomoku_8x8", "8/8/8/8/8/8/8 x", "7 ranks, gomoku_8x8 has 8"),
    ("gomoku_8x8", "8/8/8/8/8/8/8/9 x", r"rank 1 \('9'\) has 9 cells, gomoku_8x8 has 8"),
    ("gomoku_8x8", "8/8/8/3x3/8/8/8/8 o", r"rank 5 \('3x3'\) has 7 cells, gomoku_8x8 has 8"),
    ("gomoku_8x8", "8/8/8/3xx4/8/8/8/8 o", r"rank 5 \('3xx4'\) has 9 cells"),
    ("gomoku", "/".join(["15"] * 14 + ["16"]) + " x", r"rank 1 \('16'\) holds '16': only x, o and numbers 1-15"),
    ("gomoku_8x8", "8/8/8/3X4/8/8/8/8 o", r"rank 5 \('3X4'\) holds 'X'"),
    ("gomoku_8x8", "8/8/8/8/8/8/8/0x7 o", r"rank 1 \('0x7'\) holds '0'"),
    ("gomoku_8x8", "8/8/8/8/8/8/8/8 w", "the player to move must be x or o, got 'w'"),
    ("gomoku_8x8", "8/8/8/8/8/8/8/8", r"expected 2 fields \(the board, then x or o to move\), got 1"),
    ("gomoku_8x8", "8/8/8/8/8/8/8/8 x 0 1", "expected 2 fields"),
    ("gomoku_8x8", "8/8/8/8/8/8/8/xx6 o", "x has 2 stones and o 0: x must have as many as o or one more"),
    ("gomoku_8x8", "8/8/8/8/8/8/8/oo6 x", "x has 0 stones and o 2: x must have as many as o or one more"),
    ("gomoku_8x8", "8/8/8/8/8/8/8/x7 x", "x has 1 stones and o 0, so o is to move"),
    ("gomoku_8x8", "8/8/8/8/8/8/8/xo6 o", "x has 1 stones and o 1, so x is to move"),
    ("connect4", "7/7/7/7/3x3/7 o", "the stone on d2 floats above the empty d1"),
    ("connect4", "7/7/7/6o/x6/x6 o", "the stone on g3 floats above the empty g2"),
    ("tictactoe", "xxx/oo1/o2 x", "the player to move has a winning line through a3"),
]


@pytest.mark.parametrize(("variant", "text", "message"), REFUSALS)
def test_a_bad_position_is_refused_in_one_line_naming_the_problem(variant: str, text: str, message: str) -> None:
    with pytest.raises(ValueError, match=rf"^{variant} position {text!r}: {message}") as error:
        any_from_text(variant, text)
    assert "\n" not in str(error.value)


def test_stacked_stones_do_not_float_and_gravity_is_only_checked_with_gravity() -> None:
    assert from_text("connect4", "7/7/7/o6/x6/x5o x").ply == 4
    assert from_text("gomoku_6x6", "6/6/6/6/5x/6 o").ply == 1


def test_a_bad_move_cap_is_refused() -> None:
    with pytest.raises(ValueError, match="max_plies must be >= 1, got 0"):
        initial_state("tictactoe", max_plies=0)
