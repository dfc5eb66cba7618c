"""Hexapawn as a :class:`mmc.games.Game`: its variants, state, verbs, texts, network layout and what people see.

Every field of the game protocol (``mmc/games/protocol.py``) is one function here, over the kernels of
``hexapawn.rules``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

import numpy as np

from hexapawn import rules
from mmc.games import BoardView, IllegalMoveError, KernelState, Outcome, build_game
from mmc.games.actions import CodeActions

__all__ = ["GAME", "VARIANTS", "Player", "State", "Termination", "Variant"]

DEFAULT_MAX_PLIES = 64
"""A game of 4x4 lasts at most 12 plies (every pawn steps three times at most): the cap is never reached."""
FILES = "abcd"


class Player(enum.IntEnum):
    """White moves first, up the ranks; Black down."""

    WHITE = 1
    BLACK = -1


class Termination(enum.Enum):
    FAR_RANK = "far-rank"
    """A pawn reached the far rank."""
    CAPTURED = "captured"
    """Every pawn of the loser was taken."""
    BLOCKED = "blocked"
    """The player to move has no legal move."""
    MOVE_CAP = "move-cap"


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    height: int
    width: int
    hidden_information: bool = False
    in_default_study: bool = True


VARIANTS = {
    v.name: v
    for v in (
        Variant("hexapawn", "Hexapawn: three pawns a side on 3x3 (Gardner, 1962)", 3, 3),
        Variant("octapawn", "Octapawn: four pawns a side on 4x4", 4, 4),
    )
}


def _variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except KeyError:
        raise ValueError(f"unknown hexapawn variant {name!r} (known: {', '.join(VARIANTS)})") from None


class State(NamedTuple):
    """An immutable position: the kernels' array as bytes, the player to move, the ply and the move cap."""

    variant_name: str
    cells: bytes
    turn: Player
    ply: int
    max_plies: int

    def fen(self) -> str:
        """The ranks from the top, ``P`` White, ``p`` Black, ``.`` empty, then ``w`` or ``b``: ``ppp/.../PPP w``."""
        v = VARIANTS[self.variant_name]
        glyph = {0: ".", 1: "P", 255: "p"}
        ranks = ["".join(glyph[self.cells[4 * r + f]] for f in range(v.width)) for r in range(v.height - 1, -1, -1)]
        return "/".join(ranks) + (" w" if self.turn is Player.WHITE else " b")


def cell_name(cell: int) -> str:
    return FILES[cell % 4] + str(cell // 4 + 1)


def move_text(move: int) -> str:
    """A move's text: its from-cell and to-cell, ``b1b2``."""
    return cell_name(move // 16) + cell_name(move % 16)


def parse_move(text: str) -> int:
    """``"b1b2"`` -> its code; ``ValueError`` naming the text if it is no move's form (legality is the state's)."""
    t = text.strip().lower()
    if len(t) != 4 or any(t[i] not in FILES or t[i + 1] not in "1234" for i in (0, 2)):
        raise ValueError(f"not a hexapawn move: {text!r} (expected from-cell to-cell, like 'b1b2')")
    cells = [4 * (int(t[i + 1]) - 1) + FILES.index(t[i]) for i in (0, 2)]
    return 16 * cells[0] + cells[1]


@cache
def table(variant: str) -> np.ndarray:
    v = _variant(variant)
    return np.array([v.height, v.width], dtype=np.int16)


def _array(state: State) -> np.ndarray:
    return np.frombuffer(state.cells, dtype=np.int8).copy()


def initial_state(variant: str, *, max_plies: int = DEFAULT_MAX_PLIES) -> State:
    """White's pawns on its first rank, Black's on the last, White to move."""
    v = _variant(variant)
    board = np.zeros(rules.BOARD_LEN, dtype=np.int8)
    board[: v.width] = 1
    board[4 * (v.height - 1) : 4 * (v.height - 1) + v.width] = -1
    return State(v.name, board.tobytes(), Player.WHITE, 0, max_plies)


def from_text(variant: str, text: str, *, max_plies: int = DEFAULT_MAX_PLIES) -> State:
    """The position of ``text`` (:meth:`State.fen`'s form); its ply is 0, since a position's text has no history.
    ``ValueError`` naming what is wrong."""
    v = _variant(variant)
    board, _, side = text.strip().partition(" ")
    ranks = board.split("/")
    if len(ranks) != v.height or any(len(r) != v.width or set(r) - set("Pp.") for r in ranks):
        raise ValueError(f"hexapawn position {text!r}: expected {v.height} ranks of {v.width} cells of P, p or .")
    if side not in ("w", "b"):
        raise ValueError(f"hexapawn position {text!r}: the player to move must be w or b, got {side!r}")
    cells = np.zeros(rules.BOARD_LEN, dtype=np.int8)
    for i, rank in enumerate(ranks):
        for f, char in enumerate(rank):
            cells[4 * (v.height - 1 - i) + f] = {"P": 1, "p": -1, ".": 0}[char]
    return State(v.name, cells.tobytes(), Player.WHITE if side == "w" else Player.BLACK, 0, max_plies)


def legal_moves(state: State) -> tuple[int, ...]:
    out = np.empty(rules.MAX_MOVES, dtype=np.int32)
    n = rules.legal_moves_into(_array(state), int(state.turn), table(state.variant_name), out)
    return tuple(int(c) for c in out[:n])


def apply_move(state: State, move: int) -> State:
    if move not in legal_moves(state):
        text = move_text(move) if isinstance(move, int) and 0 <= move < 256 else repr(move)
        raise IllegalMoveError(f"illegal move {text} in hexapawn position {state.fen()}")
    board = _array(state)
    side, _, _ = rules.play(board, int(state.turn), move, table(state.variant_name))
    return State(state.variant_name, board.tobytes(), Player(side), state.ply + 1, state.max_plies)


def outcome(state: State) -> Outcome | None:
    board, side = _array(state), int(state.turn)
    moves = len(legal_moves(state))
    code = rules.game_end(board, side, table(state.variant_name), moves, 0, 0, state.ply, state.max_plies)
    if code == rules.ONGOING:
        return None
    if code == rules.DRAWN:
        return Outcome(None, Termination.MOVE_CAP)
    v = VARIANTS[state.variant_name]
    far = 0 if side > 0 else v.height - 1
    if any(board[4 * far + f] == -side for f in range(v.width)):
        why = Termination.FAR_RANK
    elif not np.any(board == side):
        why = Termination.CAPTURED
    else:
        why = Termination.BLOCKED
    return Outcome(Player(-side), why)


def perft(state: State, depth: int) -> int:
    """Leaves of the legal-move tree ``depth`` moves deep (a finished game has no moves)."""
    if depth == 0:
        return 1
    return sum(perft(apply_move(state, m), depth - 1) for m in legal_moves(state))


def render(state: State, *, coordinates: bool = False, viewer: Any = None) -> str:
    ranks = state.fen().split(" ")[0].split("/")
    if not coordinates:
        return "\n".join(ranks)
    height = len(ranks)
    lines = [f"{height - i} {' '.join(rank)}" for i, rank in enumerate(ranks)]
    return "\n".join([*lines, "  " + " ".join(FILES[: len(ranks[0])])])


def observation_planes(state: State, out: np.ndarray | None = None, *, color: Any = None) -> np.ndarray:
    """``float32[3, H, W]`` from ``color``'s view (default: the player to move; ``hexapawn.rules.fill_planes``)."""
    v = VARIANTS[state.variant_name]
    if out is None:
        out = np.zeros((3, v.height, v.width), dtype=np.float32)
    side = int(state.turn if color is None else color)
    rules.fill_planes(_array(state), side, table(state.variant_name), 0, 0, state.ply, state.max_plies, out)
    return out


@dataclass(frozen=True, eq=False)
class HexapawnActions(CodeActions):
    """Three policy planes over the board from the mover's view: a step forward (plane 0), a capture towards file
    ``a`` (1), towards the last file (2), each at its from-cell."""

    legal_moves = staticmethod(legal_moves)

    def text(self, move: int) -> str:
        return move_text(int(move))


@cache
def action_space(variant: str) -> HexapawnActions:
    v = _variant(variant)
    cells = v.height * v.width
    lookup = np.full((2, 256), -1, dtype=np.int32)
    for row, side in enumerate((1, -1)):
        for rank in range(v.height):
            ahead = rank + side
            if not 0 <= ahead < v.height:
                continue
            seen = rank if side > 0 else v.height - 1 - rank  # the from-cell's rank from the mover's view
            for file in range(v.width):
                for plane, to_file in ((0, file), (1, file - 1), (2, file + 1)):
                    if 0 <= to_file < v.width:
                        code = 16 * (4 * rank + file) + 4 * ahead + to_file
                        lookup[row, code] = plane * cells + seen * v.width + file
    return HexapawnActions(v, 3 * cells, np.arange(3 * cells, dtype=np.int64), lookup)


def kernel_state(state: State) -> KernelState:
    return KernelState(_array(state), int(state.turn), 0, state.ply, ())


def heuristic(state: State, moves: Sequence[int]) -> np.ndarray:
    """Greedy: a move onto the far rank first, then a capture, then a step."""
    v, board, side = VARIANTS[state.variant_name], _array(state), int(state.turn)
    far = v.height - 1 if side > 0 else 0
    return np.array([100.0 if (m % 16) // 4 == far else 10.0 if board[m % 16] == -side else 1.0 for m in moves])


def board_view(state: State, viewer: Any = None) -> BoardView:
    v = VARIANTS[state.variant_name]
    cells = []
    for rank in range(v.height):
        for file in range(v.width):
            stone = state.cells[4 * rank + file]  # a byte: 255 is Black's -1
            owner = 0 if stone == 0 else (1 if stone == 1 else -1)
            cells.append((owner, "♟" if owner else ""))
    return BoardView(tuple(FILES[: v.width]), tuple("1234"[: v.height]), tuple(cells))


def move_cells(state: State, move: int) -> tuple[str, ...]:
    return cell_name(move // 16), cell_name(move % 16)


GAME = build_game(
    globals(),  # every verb above under its field's name; VARIANTS, DEFAULT_MAX_PLIES and Termination too
    name="hexapawn",
    description="Hexapawn and Octapawn: pawns race to the far rank (an installed plugin, examples/hexapawn)",
    players=("white", "black"),
    num_planes=3,
    num_policy_planes=3,
    kernels=rules,
    code_of=int,
    move_of_code=int,
    opening_plies=0,
)
"""The family: a game of 3 to 12 plies wants no random opening."""
