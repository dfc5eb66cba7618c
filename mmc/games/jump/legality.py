"""Why a move is illegal, in one line naming the first square that fails (the message of ``apply_move``'s
:class:`~mmc.games.IllegalMoveError`). Only the error path runs this; legality itself is the kernels' move list."""

from __future__ import annotations

from mmc.games.jump.rules import DIRECTIONS
from mmc.games.jump.state import Move, State, codes, outcome
from mmc.games.jump.variants import square_name

__all__ = ["why_illegal"]


def why_illegal(state: State, move: Move) -> str:
    """The reason ``move`` is not legal in ``state`` (assumed so), naming the first square that fails."""
    if state.path:
        reason = _during_chain(state, move)
    elif outcome(state) is not None or not codes(state):
        reason = "the game is over"
    elif move.kind == "end":
        reason = "no chain is under way"
    elif move.kind == "pass":
        reason = f"pass only without a step or a hop, and {state.turn.name.lower()} has one"
    else:
        reason = _piece_move(state, move)
    return reason


def _during_chain(state: State, move: Move) -> str:
    square = state.path[-1]
    name = square_name(square)
    if move.kind in ("end", "pass", "step") or move.square != square:
        what = f"{square_name(move.square)}: " if move.square >= 0 else ""
        return f"{what}a chain is under way: the piece on {name} hops on or ends (end@{name})"
    reason = _piece_move(state, move)
    landing = move.to_square
    if not reason and landing in state.path:
        reason = f"{square_name(landing)} was stood on already in this move"
    return reason or "the chain has made its hops"


def _piece_move(state: State, move: Move) -> str:
    """The first square that fails for a step or a hop (empty text if none does)."""
    v = state.variant
    board = state.board_array()
    frm = move.square
    if not _on_board(frm, v.height, v.width):
        return f"{square_name(frm)} is off the {v.name} board"
    if board[frm] != state.turn:
        return f"{square_name(frm)} holds no {state.turn.name.lower()} piece"
    df, dr = DIRECTIONS[move.direction]
    reach = 2 if move.kind == "hop" else 1
    cells = [(frm % 8 + k * df, frm // 8 + k * dr) for k in range(1, reach + 1)]
    for file, rank in cells:
        if not (0 <= file < v.width and 0 <= rank < v.height):
            inside = 0 <= file < 8 and 0 <= rank < 8
            return f"{square_name(8 * rank + file) if inside else 'the square beyond'} is off the {v.name} board"
    squares = [8 * rank + file for file, rank in cells]
    if move.direction % 2 and not v.diagonal:
        return f"{square_name(squares[-1])} is diagonal from {square_name(frm)}: {v.name} moves orthogonally only"
    if move.kind == "hop" and board[squares[0]] == 0:
        return f"{square_name(squares[0])} is empty: nothing to hop over"
    if board[squares[-1]] != 0:
        return f"{square_name(squares[-1])} is not empty"
    return ""


def _on_board(square: int, height: int, width: int) -> bool:
    return 0 <= square < 64 and square % 8 < width and square // 8 < height
