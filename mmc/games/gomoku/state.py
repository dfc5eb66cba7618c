"""The k-in-a-row game API: an immutable state and its verbs (initial_state, from_text, legal_moves, apply_move,
outcome).

A :class:`State` is a hashable tuple: the variant, the kernels' position array as bytes (the stones, the last
stone, whether a line was made: ``mmc.games.gomoku._kernels``), the player to move, the ply and the move cap. A
move is its cell code ``16 * rank + file`` (a plain ``int``; its text is the cell's name, ``d5``). The rules run in
the compiled kernels: one call per move places the stone, tests the lines through it and lists the next player's
legal cells, which the child state keeps.
"""

from __future__ import annotations

import enum
import threading
from bisect import bisect_left
from functools import cache
from typing import NamedTuple

import numpy as np

from mmc.games.gomoku import _kernels as K
from mmc.games.gomoku.text import board_text, cell_name, parse_position
from mmc.games.gomoku.variants import Variant, build_table, get_variant
from mmc.games.protocol import IllegalMoveError, Outcome

__all__ = [
    "DEFAULT_MAX_PLIES",
    "State",
    "Stone",
    "Termination",
    "apply_move",
    "from_text",
    "initial_state",
    "kernel_board",
    "legal_moves",
    "outcome",
    "perft",
    "table",
]

DEFAULT_MAX_PLIES = 225
"""The move cap when none is asked for: the cells of the largest board, so that the cap never ends a game before
its board is full."""


class Stone(enum.IntEnum):
    """The players, by the colour of their stones: black (``x``) moves first. The value is the stone's sign."""

    BLACK = 1
    WHITE = -1

    @property
    def other(self) -> Stone:
        return _OTHER[self]


_OTHER = {Stone.BLACK: Stone.WHITE, Stone.WHITE: Stone.BLACK}


class Termination(enum.Enum):
    """Why a game ended."""

    LINE = "line"
    FULL_BOARD = "full-board"
    MOVE_CAP = "move-cap"


class _StateFields(NamedTuple):
    variant_name: str
    board: bytes  # the kernels' int8[BOARD_LEN] position array (mmc.games.gomoku._kernels)
    turn: Stone
    ply: int  # stones placed since the start (a position read from text: the stones on its board)
    max_plies: int  # the move cap: the game is drawn once ply reaches it


class State(_StateFields):
    """An immutable, hashable position. Build one with :func:`initial_state` or :func:`from_text`.

    Two states are equal when their stones, last stone, player to move, ply and cap are: a position read from text
    has no last stone, so it equals the played position only when that one has none either. What the kernels
    compute of a state (its array, its legal moves, its outcome) is kept with it.
    """

    @property
    def variant(self) -> Variant:
        return get_variant(self.variant_name)

    @property
    def last(self) -> int | None:
        """The cell of the last stone placed, or ``None`` (the start, or a position read from text)."""
        rank = self.board[K.LAST_RANK]
        return None if rank == 255 else 16 * rank + self.board[K.LAST_FILE]

    @property
    def won(self) -> bool:
        """Whether the last stone made a winning line (the player not to move has won)."""
        return self.board[K.WON] != 0

    def fen(self) -> str:
        """The position text: ``8/8/8/3x4/8/8/8/8 o``."""
        return f"{board_text(self.board, self.variant)} {'x' if self.turn > 0 else 'o'}"

    def __repr__(self) -> str:
        return f"State({self.variant_name!r}, {self.fen()!r})"


@cache
def table(variant_name: str) -> np.ndarray:
    """The kernels' rule table of a variant (built once per process)."""
    return build_table(get_variant(variant_name))


def kernel_board(state: State) -> np.ndarray:
    """``state``'s position array as the kernels take it, kept with the state: read it, never write it (it is writable
    so that the kernels are compiled for one array type)."""
    cache = state.__dict__
    array = cache.get("array")
    if array is None:
        array = cache["array"] = np.frombuffer(state.board, dtype=np.int8).copy()
    return array


def initial_state(variant: str | Variant, *, max_plies: int = DEFAULT_MAX_PLIES) -> State:
    """The empty board of the variant, black to move."""
    v = get_variant(variant)
    return from_text(v, f"{'/'.join([str(v.width)] * v.height)} x", max_plies=max_plies)


def from_text(variant: str | Variant, text: str, *, max_plies: int = DEFAULT_MAX_PLIES) -> State:
    """The position of a text (:mod:`mmc.games.gomoku.text`); ``ValueError`` with one line naming what is wrong: the
    text's form, stone counts impossible for the player to move, a stone that floats above an empty cell under
    gravity, or a winning line of the player to move (the game would have ended when it was made). A line of the
    other player's is the end of the game."""
    v = get_variant(variant)
    if max_plies < 1:
        raise ValueError(f"max_plies must be >= 1, got {max_plies}")
    board, side = parse_position(text, v)
    where = f"{v.name} position {text!r}"
    black, white = int(np.count_nonzero(board[: K.CELLS] == 1)), int(np.count_nonzero(board[: K.CELLS] == -1))
    if black - white not in (0, 1):
        raise ValueError(f"{where}: x has {black} stones and o {white}: x must have as many as o or one more")
    if (black - white == 1) != (side < 0):
        raise ValueError(f"{where}: x has {black} stones and o {white}, so {'o' if black > white else 'x'} is to move")
    if v.gravity:
        _check_gravity(board, v, where)
    tab = table(v.name)
    mover_line = int(K.has_line(board, side, tab))
    if mover_line >= 0:
        cell = cell_name(mover_line)
        raise ValueError(f"{where}: the player to move has a winning line through {cell} (the game ended before)")
    board[K.WON] = K.has_line(board, -side, tab) >= 0
    return State(v.name, board.tobytes(), Stone(side), black + white, max_plies)


def _check_gravity(board: np.ndarray, variant: Variant, where: str) -> None:
    for file in range(variant.width):
        for rank in range(1, variant.height):
            if board[16 * rank + file] != 0 and board[16 * (rank - 1) + file] == 0:
                below = cell_name(16 * (rank - 1) + file)
                raise ValueError(f"{where}: the stone on {cell_name(16 * rank + file)} floats above the empty {below}")


def _scratch() -> np.ndarray:
    """This thread's move buffer, ``uint8`` (every cell code fits a byte, and a tuple of bytes' ints is quick to
    make); each call copies what it needs out before returning."""
    try:
        return _local.moves  # type: ignore[no-any-return]
    except AttributeError:
        _local.moves = np.empty(K.MAX_MOVES, dtype=np.uint8)
        return _local.moves  # type: ignore[no-any-return]


_local = threading.local()


def legal_moves(state: State) -> tuple[int, ...]:
    """The legal cells, rank by rank from a1 (with gravity: the lowest empty cell of each column, file by file);
    empty once a line is made or the board is full. The move cap does not empty it: ask :func:`outcome`."""
    cache = state.__dict__
    moves = cache.get("moves")
    if moves is None:
        out = _scratch()
        n = K.legal_moves_into(kernel_board(state), int(state.turn), table(state.variant_name), out)
        moves = cache["moves"] = tuple(out[:n].tobytes())
    return moves  # type: ignore[no-any-return]


def apply_move(state: State, move: int) -> State:
    """The state after the player to move places a stone on ``move``; :class:`IllegalMoveError` naming the cell if it
    is not a legal move here (an occupied cell, a cell off the board, not the lowest empty cell of its column under
    gravity, or a finished game)."""
    if not _is_legal(state, move):
        text = cell_name(int(move)) if isinstance(move, int | np.integer) and 0 <= move < K.CELLS else repr(move)
        raise IllegalMoveError(f"illegal move {text} in {state.variant_name} position {state.fen()}")
    after = np.empty(K.BOARD_LEN, dtype=np.int8)
    out = _scratch()
    ply, cap = state.ply + 1, state.max_plies
    n, end = K.advance(kernel_board(state), int(state.turn), move, table(state.variant_name), ply, cap, after, out)
    child = _new_state(State, (state.variant_name, after.tobytes(), _OTHER[state.turn], ply, cap))
    child.__dict__.update(array=after, moves=tuple(out[:n].tobytes()), end=end)
    return child


def _is_legal(state: State, move: int) -> bool:
    """Whether ``move`` is one of ``legal_moves(state)``: without gravity they are in increasing order (rank by rank),
    so a binary search finds it."""
    moves = legal_moves(state)
    if _gravity(state.variant_name) or not isinstance(move, int | np.integer):
        return move in moves
    i = bisect_left(moves, move)
    return i < len(moves) and moves[i] == move


def _gravity(variant_name: str) -> bool:
    """Whether the variant has gravity (looked up once per variant and process)."""
    gravity = _GRAVITY.get(variant_name)
    if gravity is None:
        gravity = _GRAVITY[variant_name] = get_variant(variant_name).gravity
    return gravity


_GRAVITY: dict[str, bool] = {}


_new_state = tuple.__new__


def outcome(state: State) -> Outcome | None:
    """How the game has ended (a line: the player who made it wins; a full board or the move cap: a draw), or
    ``None`` while it goes on (:func:`mmc.games.gomoku.board.game_end`)."""
    cache = state.__dict__
    code = cache.get("end")
    if code is None:
        code = cache["end"] = K.game_end(kernel_board(state), int(state.turn), table(state.variant_name),
                                         len(legal_moves(state)), 0, 0, state.ply, state.max_plies)  # fmt: skip
    if code == K.ONGOING:
        return None
    return Outcome(*_ENDS[code](state))


_ENDS = {
    K.LOST: lambda state: (state.turn.other, Termination.LINE),
    K.FULL_BOARD: lambda state: (None, Termination.FULL_BOARD),
    K.MOVE_CAP: lambda state: (None, Termination.MOVE_CAP),
}


def perft(state: State, depth: int) -> int:
    """Leaves of the legal-move tree ``depth`` moves below ``state`` (``depth`` >= 0); a line or a full board ends a
    branch (a finished game has no moves), the move cap does not."""
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, got {depth}")
    return int(K.perft(kernel_board(state), int(state.turn), depth, table(state.variant_name)))
