"""Every way a k-in-a-row game ends, from hand-made positions: each line direction under each rule, overlines, caro's
blocked fives (both ends, one end, an edge), a full board, gravity, the move cap; and the moves that are refused."""

from __future__ import annotations

import pytest

from mmc.games import IllegalMoveError, get_game
from mmc.games.gomoku import (
    VARIANTS,
    State,
    Stone,
    Termination,
    apply_move,
    board_view,
    from_text,
    initial_state,
    legal_moves,
    outcome,
    parse_cell,
)
from mmc.games.gomoku.text import FILES, cell_name


def position(variant: str, black: str, white: str, *, max_plies: int = 225) -> State:
    """The position with black stones on the cells ``black`` and white ones on ``white`` (space-separated names), the
    player to move given by the counts."""
    v = VARIANTS[variant]
    stones = {parse_cell(c): "x" for c in black.split()} | {parse_cell(c): "o" for c in white.split()}
    ranks = []
    for rank in range(v.height - 1, -1, -1):
        row = "".join(stones.get(16 * rank + file, ".") for file in range(v.width))
        ranks.append("".join(str(len(run)) if run[0] == "." else run for run in _runs(row)))
    side = "x" if len(black.split()) == len(white.split()) else "o"
    return from_text(variant, f"{'/'.join(ranks)} {side}", max_plies=max_plies)


def _runs(row: str) -> list[str]:
    runs: list[str] = []
    for char in row:
        if runs and (char == "." == runs[-1][0]):
            runs[-1] += char
        else:
            runs.append(char)
    return runs


def play(state: State, *cells: str) -> State:
    for cell in cells:
        state = apply_move(state, parse_cell(cell))
    return state


def line_mark(state: State) -> list[str]:
    view = board_view(state)
    marks = dict(view.marks)
    width = len(view.files)
    return sorted(cell_name(16 * (i // width) + i % width) for i in marks.get("line", ()))


FAR_WHITE = "a9 c9 e9 g9"
"""Four white stones on the top rank of a 9x9 board, apart: no line, nothing blocked below."""
DIRECTIONS = {
    "rank": ("b3 c3 e3 f3", "d3", "b3 c3 d3 e3 f3"),
    "file": ("d1 d2 d4 d5", "d3", "d1 d2 d3 d4 d5"),
    "diagonal": ("b1 c2 e4 f5", "d3", "b1 c2 d3 e4 f5"),
    "antidiagonal": ("b5 c4 e2 f1", "d3", "b5 c4 d3 e2 f1"),
}
"""Four black stones, the cell that makes the five between them (so both scans count), and the five."""


@pytest.mark.parametrize("variant", ["gomoku_9x9", "exact_9x9", "caro_9x9"])
@pytest.mark.parametrize("direction", list(DIRECTIONS))
def test_five_in_each_direction_wins_under_each_rule(variant: str, direction: str) -> None:
    four, move, five = DIRECTIONS[direction]
    state = play(position(variant, four, FAR_WHITE), move)
    assert outcome(state) == (Stone.BLACK, Termination.LINE)
    assert legal_moves(state) == () and state.won
    assert line_mark(state) == sorted(five.split())
    assert dict(board_view(state).marks)["last"] == ((parse_cell(move) >> 4) * 9 + (parse_cell(move) & 15),)


def test_k_depends_on_the_variant() -> None:
    assert outcome(play(position("gomoku_6x6", "a1 b1 c1", "a6 c6 e6"), "d1")) == (Stone.BLACK, Termination.LINE)
    assert outcome(play(position("tictactoe", "a1 b2", "a3 c1"), "c3")) == (Stone.BLACK, Termination.LINE)
    assert outcome(play(position("gomoku_9x9", "a1 b1 c1", "a9 c9 e9"), "d1")) is None


@pytest.mark.parametrize(("variant", "wins"), [("gomoku_9x9", True), ("exact_9x9", False), ("caro_9x9", False)])
def test_an_overline_wins_only_under_freestyle(variant: str, wins: bool) -> None:
    six = play(position(variant, "a2 b2 d2 e2 f2", FAR_WHITE + " i9"), "c2")  # a2-f2: six in a row
    assert (outcome(six) is not None) is wins
    white_six = play(position(variant, "a1 c1 e1 g1 i1 h3", "a4 b4 d4 e4 f4"), "c4")  # white's a4-f4
    assert (outcome(white_six) == (Stone.WHITE, Termination.LINE)) is wins


@pytest.mark.parametrize("variant", ["exact_9x9", "caro_9x9"])
def test_a_stone_that_wins_in_one_direction_wins_whatever_it_makes_in_another(variant: str) -> None:
    # d5 makes six along rank 5 (a5-f5: no win) and five along file d (d1-d5)
    state = play(position(variant, "a5 b5 c5 e5 f5 d1 d2 d3 d4", "a9 c9 e9 g9 i9 a7 c7 e7 g7"), "d5")
    assert outcome(state) == (Stone.BLACK, Termination.LINE)
    assert line_mark(state) == ["d1", "d2", "d3", "d4", "d5"]


@pytest.mark.parametrize(
    ("white", "caro_wins"),
    [
        ("a3 g3", False),  # blocked at both ends: no win under caro
        ("a3 i9", True),  # blocked at one end
        ("h9 i9", True),  # open at both ends
    ],
)
def test_caro_refuses_a_five_blocked_at_both_ends(white: str, caro_wins: bool) -> None:
    for variant, wins in (("caro_9x9", caro_wins), ("exact_9x9", True), ("gomoku_9x9", True)):
        state = play(position(variant, "b3 c3 e3 f3", white + " a9 c9"), "d3")
        assert (outcome(state) == (Stone.BLACK, Termination.LINE)) is wins, variant


def test_a_board_edge_counts_as_open_under_caro() -> None:
    at_edge = play(position("caro_9x9", "a4 b4 c4 e4", "f4 a9 c9 e9"), "d4")  # a4-e4: the edge, then white's f4
    assert outcome(at_edge) == (Stone.BLACK, Termination.LINE)
    corner = play(position("caro_9x9", "a1 b2 c3 d4", "f6 a9 c9 e9"), "e5")  # diagonal from the corner to white's f6
    assert outcome(corner) == (Stone.BLACK, Termination.LINE)
    edge_file = play(position("caro_9x9", "i1 i2 i3 i4", "a9 c9 e9 g9"), "i5")  # along the edge, from the bottom
    assert outcome(edge_file) == (Stone.BLACK, Termination.LINE)
    blocked_diagonal = play(position("caro_9x9", "b2 c3 d4 e5", "a1 g7 a9 c9"), "f6")
    assert outcome(blocked_diagonal) is None


def test_a_full_board_is_a_draw_and_a_line_on_the_last_cell_still_wins() -> None:
    moves = ("b1", "b2", "a2", "a1", "c1", "c2", "a3", "b3", "c3")
    before = play(initial_state("tictactoe"), *moves[:-1])
    assert outcome(before) is None and len(legal_moves(before)) == 1
    draw = play(before, moves[-1])
    assert outcome(draw) == (None, Termination.FULL_BOARD) and legal_moves(draw) == ()
    assert draw.fen() == "xox/xoo/oxx o" and "line" not in dict(board_view(draw).marks)
    filled_by_a_line = play(from_text("tictactoe", "xox/oxo/ox1 x"), "c1")  # a3-b2-c1 on the last cell
    assert outcome(filled_by_a_line) == (Stone.BLACK, Termination.LINE)
    read = from_text("tictactoe", "x1x/xox/ooo x")  # a line of the player who just moved: the game is over
    assert outcome(read) == (Stone.WHITE, Termination.LINE) and read.last is None


def test_gravity_takes_the_lowest_empty_cell_of_each_column() -> None:
    start = initial_state("connect4")
    assert [cell_name(m) for m in legal_moves(start)] == [f + "1" for f in FILES[:7]]
    state = play(start, "d1", "d2", "d3")
    assert cell_name(legal_moves(state)[3]) == "d4"
    with pytest.raises(IllegalMoveError, match=r"^illegal move d6 in connect4 position "):
        apply_move(state, parse_cell("d6"))
    full = play(start, *[f"a{r}" for r in range(1, 7)])
    assert [cell_name(m) for m in legal_moves(full)] == [f + "1" for f in FILES[1:7]]


def test_gravity_lines_end_the_game() -> None:
    vertical = play(initial_state("connect4"), "a1", "b1", "a2", "b2", "a3", "b3", "a4")
    assert outcome(vertical) == (Stone.BLACK, Termination.LINE)
    rising = play(initial_state("connect4"), "a1", "b1", "b2", "c1", "c2", "d1", "c3", "d2", "d3", "g1", "d4")
    assert outcome(rising) == (Stone.BLACK, Termination.LINE)
    assert line_mark(rising) == ["a1", "b2", "c3", "d4"]
    white = play(initial_state("connect4"), "a1", "b1", "a2", "b2", "c1", "b3", "g1", "b4")
    assert outcome(white) == (Stone.WHITE, Termination.LINE)


def test_the_move_cap_draws_unless_the_last_move_makes_a_line() -> None:
    capped = play(initial_state("gomoku_8x8", max_plies=4), "a1", "h8", "b1", "g8")
    assert outcome(capped) == (None, Termination.MOVE_CAP) and legal_moves(capped)
    assert initial_state("gomoku").max_plies == 225 == get_game("gomoku").default_max_plies
    line = play(position("gomoku_8x8", "a1 b1 c1 d1", "a8 b8 c8 d8", max_plies=9), "e1")
    assert line.ply == 9 and outcome(line) == (Stone.BLACK, Termination.LINE)


def test_illegal_moves_are_refused_naming_the_cell() -> None:
    state = play(initial_state("gomoku_8x8"), "d5")
    for cell, text in ((parse_cell("d5"), "d5"), (parse_cell("i1"), "i1"), (parse_cell("a15"), "a15")):
        with pytest.raises(IllegalMoveError, match=rf"^illegal move {text} in gomoku_8x8 position ") as error:
            apply_move(state, cell)
        assert "\n" not in str(error.value)
    over = play(initial_state("tictactoe"), "a1", "a2", "b1", "b2", "c1")
    with pytest.raises(IllegalMoveError, match="illegal move c3"):
        apply_move(over, parse_cell("c3"))


def test_black_moves_first_and_the_players_alternate() -> None:
    game = get_game("gomoku_8x8")
    assert game.players == ("black", "white") and game.name == "gomoku"
    state = initial_state("gomoku_8x8")
    turns = []
    for cell in ("a1", "b1", "c1", "d1"):
        turns.append(state.turn)
        state = play(state, cell)
    assert turns == [Stone.BLACK, Stone.WHITE] * 2 and state.ply == 4
