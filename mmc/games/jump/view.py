"""What people see of the jump game: the board as text (``render``) and as a picture (``board_view``), the cells a
person clicks for a move (``move_cells``), each side's score, and the rule book's complete-move text of a run of
actions (:func:`complete_moves`).

A text board, rank 8 at the top, ``●`` a Black piece, ``○`` a White one, ``·`` an empty square; under it the
scores and, while a chain is under way, its squares in the rule book's move text::

    8 · ○ · ○ · ○ · ○
    7 · · ○ · ○ · ○ ·
    ...
    1 ● · ● · ● · ● ·
      a b c d e f g h
    score: black 0 of 9 home, white 0 of 9 home

Clicks (the web app matches them against every legal action's cells): a step is its piece then its square; a hop
its piece then its landing (during a chain the chain's piece, which the page keeps selected after each hop, then
the next landing); the end of a chain the chain's piece alone (a second click on the last landing, or the page's
"end here" button); a pass no cell (a button).
"""

from __future__ import annotations

from collections.abc import Sequence

from mmc.games.jump.state import Move, Player, State, apply_move
from mmc.games.jump.variants import square_name
from mmc.games.protocol import BoardView

__all__ = ["GLYPH", "board_view", "captions", "complete_moves", "move_cells", "render", "scores"]

GLYPH = "●"
"""Every piece is a disc, drawn in its owner's colour."""
_TEXT = {1: "●", -1: "○", 0: "·"}
_FILES = "abcdefgh"


def scores(state: State) -> dict[Player, tuple[int, int]]:
    """Each player's ``(score, pieces)``: its pieces in its own target region, and all its pieces."""
    v = state.variant
    board = state.board_array()
    found = {}
    for player in Player:
        mine = [s for s in range(64) if board[s] == player]
        found[player] = (sum(v.in_target(s, player) for s in mine), len(mine))
    return found


def captions(state: State) -> list[str]:
    """The lines under a board: the scores, and the chain under way if there is one."""
    parts = [f"{p.name.lower()} {home} of {pieces} home" for p, (home, pieces) in scores(state).items()]
    lines = ["score: " + ", ".join(parts)]
    if state.path:
        mover = state.turn.name.lower()
        lines.append(f"chain under way: {'-'.join(map(square_name, state.path))} ({mover} hops on or ends)")
    return lines


def render(state: State, *, coordinates: bool = False, viewer: int | None = None) -> str:
    """The board as text (module docstring); ``viewer`` is ignored (everything is visible)."""
    v = state.variant
    board = state.board_array()
    lines = []
    for rank in range(v.height - 1, -1, -1):
        cells = " ".join(_TEXT[int(board[8 * rank + file])] for file in range(v.width))
        lines.append((f"{rank + 1} " if coordinates else "") + cells)
    if coordinates:
        lines.append("  " + " ".join(_FILES[: v.width]))
    return "\n".join(lines + captions(state))


def board_view(state: State, viewer: int | None = None) -> BoardView:
    """The board as a picture, rank 1 first: the pieces, both target regions (marks ``target-first`` and
    ``target-second``), the squares of a chain under way (mark ``chain``) and the scores (the caption)."""
    v = state.variant
    board = state.board_array()
    cells: list[tuple[int, str]] = []
    first: list[int] = []
    second: list[int] = []
    for rank in range(v.height):
        for file in range(v.width):
            square = 8 * rank + file
            piece = int(board[square])
            cells.append((piece, GLYPH if piece else ""))
            if v.in_target(square, 1):
                first.append(len(cells) - 1)
            elif v.in_target(square, -1):
                second.append(len(cells) - 1)
    marks = [("target-first", tuple(first)), ("target-second", tuple(second))]
    if state.path:
        marks.append(("chain", tuple((s // 8) * v.width + s % 8 for s in state.path)))
    files = tuple(_FILES[: v.width])
    ranks = tuple(str(r + 1) for r in range(v.height))
    return BoardView(files, ranks, tuple(cells), marks=tuple(marks), caption="; ".join(captions(state)))


def move_cells(state: State, move: Move) -> tuple[str, ...]:
    """The cells a person clicks for ``move`` (module docstring)."""
    if move.kind == "pass":
        return ()
    if move.kind == "end":
        return (square_name(move.square),)
    return square_name(move.square), square_name(move.to_square)


def complete_moves(state: State, moves: Sequence[Move]) -> list[str]:
    """The rule book's text of the complete moves the actions ``moves`` make from ``state``: a step ``c3-c4``, a
    chain ``c3-c5-e5`` (its squares in order), ``pass``. A chain still under way after the last action is left out;
    one under way in ``state`` is completed with the squares it already stood on. ``IllegalMoveError`` if an action
    is not legal."""
    texts = []
    for move in moves:
        after = apply_move(state, move)
        if move.kind in ("step", "pass"):
            texts.append(move.text())
        elif move.kind == "end":
            texts.append("-".join(map(square_name, state.path)))
        elif not after.path:
            texts.append("-".join(map(square_name, (*(state.path or (move.square,)), move.to_square))))
        state = after
    return texts
