"""Bonus: a tiny placement game in which a player sometimes moves twice, defined only here, in the tests.

It is a game wired field by field, as games were before ``build_game`` ("Add a game", docs/guides/add-a-game.md,
shows the builder): one module that builds a :class:`mmc.games.Game` and plugs
into search, self-play, training, matches, ``mmc.env`` and ``mmc.web`` with no edit under ``mmc/``. Register it for
a test with ``register_game(GAME)`` (and ``unregister_game("bonus")`` after), or use the ``bonus_game`` fixture of
``tests/conftest.py``.

Rules. An H x W board starts empty. The first player (black, ``x``) places a stone on an empty cell, then the second
(white, ``o``), and so on, except that a player whose new stone lands orthogonally next to one of their own stones
moves again (a bonus move), unless the board is now full. The game ends when the board is full: the player with
more stones wins, equal counts draw. Variants: ``bonus_2x3`` (2 ranks, 3 files) and ``bonus_3x3``.

Text. A position is its ranks from the top, separated by ``/``, one character a cell (``x``, ``o`` or ``.``), then
a space and the player to move: ``.../x.o x``. A move is its cell, named like a chess square: ``b1``.

Kernels. Cells are numbered ``4 * rank + file`` whatever the board's width, so that a move's code and its text do
not depend on the variant (as chess numbers squares 8 to a rank); ``tab`` is ``int16[2]``, the variant's height and
width; the network reads three planes (the mover's stones, the opponent's, the board's cells) and writes one
placement plane.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

import numpy as np

from mmc.games import BoardView, Game, IllegalMoveError, KernelState, Outcome
from mmc.games.actions import CodeActions
from mmc.games.jit import kernel

# --- the kernels (the game protocol's bundle: this module is Game.kernels) -----------------------------------------
BOARD_LEN = 16
"""Cells of a position array: up to 4 x 4, four to a rank."""
MAX_MOVES = 16
ONGOING, WON, LOST, DRAWN = 0, 1, 2, 3
"""End codes, from the view of the player to move."""
ALTERNATES = False
"""A bonus move keeps the turn."""


@kernel
def legal_moves_into(board, side, tab, out):
    """The empty cells, rank by rank; none once the board is full."""
    n = 0
    for rank in range(tab[0]):
        for file in range(tab[1]):
            cell = 4 * rank + file
            if board[cell] == 0:
                out[n] = cell
                n += 1
    return n


@kernel
def _full(board, tab):
    for rank in range(tab[0]):
        for file in range(tab[1]):
            if board[4 * rank + file] == 0:
                return False
    return True


@kernel
def play(board, side, move, tab):
    """Place ``side``'s stone on ``move``; the same player moves again after a stone next to its own (a bonus).
    Returns ``(next side, irreversible, plies)``: every placement is irreversible and one ply."""
    board[move] = side
    rank, file = move // 4, move % 4
    bonus = (
        (file > 0 and board[move - 1] == side)
        or (file < tab[1] - 1 and board[move + 1] == side)
        or (rank > 0 and board[move - 4] == side)
        or (rank < tab[0] - 1 and board[move + 4] == side)
    )
    if bonus and not _full(board, tab):
        return side, True, 1
    return -side, True, 1


@kernel
def status(board, side, tab):
    """The result of a full board for ``side``: more stones win."""
    mine = 0
    theirs = 0
    for rank in range(tab[0]):
        for file in range(tab[1]):
            stone = board[4 * rank + file]
            if stone == side:
                mine += 1
            elif stone == -side:
                theirs += 1
    if mine > theirs:
        return WON
    if mine < theirs:
        return LOST
    return DRAWN


@kernel
def game_end(board, side, tab, num_moves, repetitions, clock, ply, max_plies):
    """Over when the board is full (``status``), or drawn at the move cap."""
    if num_moves == 0:
        return status(board, side, tab)
    if ply >= max_plies:
        return DRAWN
    return ONGOING


@kernel
def end_value(code):
    if code == WON:
        return 1.0
    if code == LOST:
        return -1.0
    return 0.0


@kernel
def cutoff_value(board, side, tab):
    return 0.0


@kernel
def fill_planes(board, side, tab, repetitions, clock, ply, max_plies, out):
    """Planes ``[3, H, W]``: ``side``'s stones, the other player's, and 1 on every cell."""
    out[:] = 0.0
    for rank in range(tab[0]):
        for file in range(tab[1]):
            stone = board[4 * rank + file]
            if stone == side:
                out[0, rank, file] = 1.0
            elif stone == -side:
                out[1, rank, file] = 1.0
            out[2, rank, file] = 1.0


# --- the Python API --------------------------------------------------------------------------------------------------
class Stone(enum.IntEnum):
    """The players: black (``x``) moves first."""

    BLACK = 1
    WHITE = -1


class Termination(enum.Enum):
    FULL_BOARD = "full-board"
    MOVE_CAP = "move-cap"


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    height: int
    width: int
    hidden_information: bool = False
    in_default_study: bool = False


VARIANTS = {
    v.name: v
    for v in (
        Variant("bonus_2x3", "Bonus on 2 x 3: a stone next to one's own earns another move", 2, 3),
        Variant("bonus_3x3", "Bonus on 3 x 3", 3, 3),
    )
}


class State(NamedTuple):
    variant_name: str
    cells: bytes
    turn: Stone
    ply: int
    max_plies: int

    def fen(self) -> str:
        v = VARIANTS[self.variant_name]
        rows = []
        for rank in range(v.height - 1, -1, -1):
            rows.append("".join({0: ".", 1: "x", 255: "o"}[self.cells[4 * rank + f]] for f in range(v.width)))
        return "/".join(rows) + (" x" if self.turn is Stone.BLACK else " o")


def cell_name(cell: int) -> str:
    return "abcd"[cell % 4] + str(cell // 4 + 1)


def parse_move(text: str) -> int:
    """``"b1"`` -> its cell; ``ValueError`` naming the text if it is no cell."""
    t = text.strip().lower()
    if len(t) != 2 or t[0] not in "abcd" or t[1] not in "1234":
        raise ValueError(f"not a bonus move: {text!r} (expected a cell like 'b1')")
    return 4 * (int(t[1]) - 1) + "abcd".index(t[0])


@cache
def table(variant: str) -> np.ndarray:
    v = VARIANTS[variant]
    return np.array([v.height, v.width], dtype=np.int16)


def _array(state: State) -> np.ndarray:
    return np.frombuffer(state.cells, dtype=np.int8).copy()


def initial_state(variant: str, *, max_plies: int = 16) -> State:
    return State(VARIANTS[variant].name, bytes(BOARD_LEN), Stone.BLACK, 0, max_plies)


def from_text(variant: str, text: str, *, max_plies: int = 16) -> State:
    v = VARIANTS[variant]
    board, _, side = text.strip().partition(" ")
    rows = board.split("/")
    if len(rows) != v.height or any(len(row) != v.width or set(row) - set("xo.") for row in rows):
        raise ValueError(f"bonus position {text!r}: expected {v.height} ranks of {v.width} cells of x, o or .")
    if side not in ("x", "o"):
        raise ValueError(f"bonus position {text!r}: the player to move must be x or o, got {side!r}")
    cells = np.zeros(BOARD_LEN, dtype=np.int8)
    for i, row in enumerate(rows):
        for f, char in enumerate(row):
            cells[4 * (v.height - 1 - i) + f] = {"x": 1, "o": -1, ".": 0}[char]
    turn = Stone.BLACK if side == "x" else Stone.WHITE
    return State(variant, cells.tobytes(), turn, int(np.count_nonzero(cells)), max_plies)


def legal_moves(state: State) -> tuple[int, ...]:
    out = np.empty(MAX_MOVES, dtype=np.int32)
    n = legal_moves_into(_array(state), int(state.turn), table(state.variant_name), out)
    return tuple(int(c) for c in out[:n])


def apply_move(state: State, move: int) -> State:
    if move not in legal_moves(state):
        raise IllegalMoveError(f"illegal move {cell_name(move)} in bonus position {state.fen()}")
    board = _array(state)
    side, _, _ = play(board, int(state.turn), move, table(state.variant_name))
    return State(state.variant_name, board.tobytes(), Stone(side), state.ply + 1, state.max_plies)


def outcome(state: State) -> Outcome | None:
    moves = len(legal_moves(state))
    code = game_end(_array(state), int(state.turn), table(state.variant_name), moves, 0, 0, state.ply,
                    state.max_plies)  # fmt: skip
    if code == ONGOING:
        return None
    why = Termination.FULL_BOARD if moves == 0 else Termination.MOVE_CAP
    winner = {WON: state.turn, LOST: Stone(-state.turn), DRAWN: None}[code]
    return Outcome(winner, why)


def perft(state: State, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(perft(apply_move(state, m), depth - 1) for m in legal_moves(state))


def render(state: State, *, coordinates: bool = False, viewer: Any = None) -> str:
    return "\n".join(state.fen().split(" ")[0].split("/"))


def observation_planes(state: State, out: np.ndarray | None = None, *, color: Any = None) -> np.ndarray:
    v = VARIANTS[state.variant_name]
    if out is None:
        out = np.zeros((3, v.height, v.width), dtype=np.float32)
    side = int(state.turn if color is None else color)
    fill_planes(_array(state), side, table(state.variant_name), 0, 0, state.ply, state.max_plies, out)
    return out


@dataclass(frozen=True, eq=False)
class BonusActions(CodeActions):
    """Action ``rank * W + file`` places a stone on that cell; its logit is the same index of the one plane (the
    table from move codes to actions, ``mmc.games.actions``, does the rest)."""

    legal_moves = staticmethod(legal_moves)


@cache
def action_space(variant: str) -> BonusActions:
    v = VARIANTS[variant]
    lookup = np.full((2, BOARD_LEN), -1, dtype=np.int32)
    for rank in range(v.height):
        for file in range(v.width):
            lookup[:, 4 * rank + file] = rank * v.width + file
    n = v.height * v.width
    return BonusActions(v, n, np.arange(n, dtype=np.int64), lookup)


def kernel_state(state: State) -> KernelState:
    return KernelState(_array(state), int(state.turn), 0, state.ply, ())


def heuristic(state: State, moves: Sequence[int]) -> np.ndarray:
    """A move scores its own neighbours (a bonus move first)."""
    board = _array(state)
    side = int(state.turn)
    return np.array([sum(int(board[m + d] == side) for d in (-4, -1, 1, 4) if 0 <= m + d < BOARD_LEN) for m in moves])


def board_view(state: State, viewer: Any = None) -> BoardView:
    v = VARIANTS[state.variant_name]
    cells = []
    for rank in range(v.height):
        for file in range(v.width):
            stone = state.cells[4 * rank + file]  # a byte: 255 is the second player's -1
            owner = 0 if stone == 0 else (1 if stone == 1 else -1)
            cells.append((owner, "●" if owner else ""))
    return BoardView(tuple("abcd"[: v.width]), tuple("1234"[: v.height]), tuple(cells))


GAME = Game(
    name="bonus",
    description="Bonus (a test game): a stone next to one's own earns another move",
    variants=VARIANTS,
    players=("black", "white"),
    default_max_plies=16,
    terminations=tuple(t.value for t in Termination),
    num_planes=3,
    num_policy_planes=1,
    kernels=sys.modules[__name__],
    initial_state=initial_state,
    from_text=from_text,
    legal_moves=legal_moves,
    apply_move=apply_move,
    outcome=outcome,
    move_text=cell_name,
    parse_move=parse_move,
    perft=perft,
    render=render,
    observation_planes=observation_planes,
    action_space=action_space,
    table=table,
    kernel_state=kernel_state,
    code_of=int,
    move_of_code=int,
    board_view=board_view,
    move_cells=lambda state, move: (cell_name(move),),
    heuristic=heuristic,
)
