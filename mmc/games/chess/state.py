"""The game API: an immutable state and four verbs (initial_state, legal_moves, apply_move, outcome).

A :class:`State` is a hashable tuple in absolute coordinates (White at the bottom); the side to
move's perspective is applied only when encoding for the network (``mmc.games.chess.actions``,
``mmc.games.chess.observe``). Move generation and the game-end rules run in the compiled kernels (public as
``mmc.games.chess.board``); this module keeps what they need from the game's history: the repetition count, the
fifty-move clock and the ply.
"""

from __future__ import annotations

import enum
import threading
from functools import cache
from typing import NamedTuple

import numpy as np

from mmc.games.chess import _kernels as K
from mmc.games.chess.fen import FenError, board_fen, castling_fen, parse_fen
from mmc.games.chess.variants import CaptureRule, CheckRule, EndRule, PieceType, Variant, get_variant
from mmc.games.protocol import IllegalMoveError, Outcome

__all__ = [
    "Color",
    "IllegalMoveError",
    "Move",
    "Outcome",
    "State",
    "Termination",
    "apply_move",
    "from_fen",
    "initial_state",
    "legal_moves",
    "outcome",
    "square_name",
]

DEFAULT_MAX_PLIES = 150
"""The seed study's cap: 75 moves each."""


class Color(enum.IntEnum):
    """The side to move; the value is the sign of that side's pieces on the board."""

    WHITE = 1
    BLACK = -1

    @property
    def other(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE


WHITE, BLACK = Color.WHITE, Color.BLACK


class Termination(enum.Enum):
    """Why a game ended."""

    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    REPETITION = "repetition"
    FIFTY_MOVES = "fifty-move"
    PLY_CAP = "ply-cap"
    INSUFFICIENT_MATERIAL = "insufficient-material"
    KING_EXPLODED = "king-exploded"
    KING_CAPTURED = "king-captured"
    EXTINCTION = "extinction"


def square_name(square: int) -> str:
    """``a1`` for square 0; squares are ``8 * rank + file`` on every board size."""
    return "abcdefgh"[square % 8] + str(square // 8 + 1)


class Move(NamedTuple):
    """A move in absolute squares (``8 * rank + file``), promotion piece or ``None``."""

    from_square: int
    to_square: int
    promotion: PieceType | None = None

    def uci(self) -> str:
        """UCI-style text: ``b2b3``, ``a4a5q``."""
        promo = "" if self.promotion is None else "?pnbrqk"[self.promotion]
        return square_name(self.from_square) + square_name(self.to_square) + promo

    @classmethod
    def from_uci(cls, text: str) -> Move:
        """Parse ``b2b3`` or ``a4a5q``; raise ``ValueError`` naming the text if it is not a move."""
        t = text.strip().lower()
        ok = len(t) in (4, 5) and t[0] in "abcdefgh" and t[2] in "abcdefgh" and t[1] in "12345678"
        ok = ok and t[3] in "12345678" and (len(t) == 4 or t[4] in "nbrqk")
        if not ok:
            raise ValueError(f"not a move in UCI notation: {text!r} (expected like 'b2b3' or 'a4a5q')")
        frm = 8 * (int(t[1]) - 1) + "abcdefgh".index(t[0])
        to = 8 * (int(t[3]) - 1) + "abcdefgh".index(t[2])
        promo = PieceType("?pnbrqk".index(t[4])) if len(t) == 5 else None
        return _MOVES[frm | to << 6 | (promo or 0) << 12]

    @property
    def code(self) -> int:
        """The kernels' ``int32`` form: ``from | to << 6 | promotion << 12``."""
        return self.from_square | self.to_square << 6 | (self.promotion or 0) << 12


def _all_moves() -> tuple[Move, ...]:
    """Every move object, indexed by its code, so that move lists reuse them instead of building new ones."""
    moves: list[Move] = [Move(0, 0)] * (7 << 12)
    squares = [8 * r + f for r in range(8) for f in range(8)]
    for promo in (None, *PieceType):
        for frm in squares:
            for to in squares:
                moves[frm | to << 6 | (promo or 0) << 12] = Move(frm, to, promo)
    return tuple(moves)


_MOVES = _all_moves()


class _StateFields(NamedTuple):
    variant_name: str
    board: bytes  # K.BOARD_LEN signed bytes: 64 squares, castling rights, en-passant square (mmc.games.chess._kernels)
    turn: Color
    halfmove_clock: int  # plies since the last capture or pawn move
    fullmove_number: int
    max_plies: int  # the ply cap: the game is drawn once ply reaches it
    history: tuple[bytes, ...]  # boards before each move since the last capture or pawn move


class State(_StateFields):
    """An immutable, hashable game state. Build one with :func:`initial_state` or :func:`from_fen`."""

    @property
    def variant(self) -> Variant:
        return get_variant(self.variant_name)

    @property
    def ply(self) -> int:
        """Plies played since the start position (from the FEN's fullmove number)."""
        return 2 * (self.fullmove_number - 1) + (self.turn is Color.BLACK)

    def board_array(self) -> np.ndarray:
        """The 64 squares as a read-only ``int8[64]`` array (``+type`` White, ``-type`` Black, 0 empty)."""
        return np.frombuffer(self.board, dtype=np.int8, count=64)

    @property
    def castling_rights(self) -> int:
        """Bits ``1`` White O-O, ``2`` White O-O-O, ``4`` Black O-O, ``8`` Black O-O-O (0 without castling)."""
        return self.board[K.CASTLING]

    @property
    def ep_square(self) -> int | None:
        """The square an en-passant capture may land on, when one is legal; ``None`` otherwise."""
        return self.board[K.EP] or None

    def piece_at(self, square: int) -> int:
        """Signed piece code on ``square`` (0 when empty)."""
        v = self.board[square]
        return v - 256 if v > 127 else v

    def fen(self) -> str:
        """Standard FEN with the board sized to the variant; the en-passant square only where the capture is legal."""
        side = "w" if self.turn is Color.WHITE else "b"
        fields = castling_fen(self.board)
        return f"{board_fen(self.board, self.variant)} {side} {fields} {self.halfmove_clock} {self.fullmove_number}"

    def repetitions(self) -> int:
        """How many times this position (board, castling rights, en-passant possibility and side to move) occurred
        before, since the last irreversible move."""
        return self.history[-2::-2].count(self.board)

    def __repr__(self) -> str:
        return f"State({self.variant_name!r}, {self.fen()!r})"


@cache
def table(variant_name: str) -> np.ndarray:
    """The kernels' rule table for a variant (built once per process)."""
    return K.build_table(get_variant(variant_name))


def initial_state(variant: str | Variant, *, max_plies: int = DEFAULT_MAX_PLIES) -> State:
    """The variant's start position, White to move."""
    v = get_variant(variant)
    return from_fen(v, v.start_fen, max_plies=max_plies)


def from_fen(variant: str | Variant, fen: str, *, max_plies: int = DEFAULT_MAX_PLIES) -> State:
    """A state from FEN; raise :class:`FenError` naming the problem if the FEN is not a valid position."""
    v = get_variant(variant)
    if max_plies < 1:
        raise ValueError(f"max_plies must be >= 1, got {max_plies}")
    board, side, halfmove, fullmove = parse_fen(fen, v)
    _check_kings(board, side, v, fen)
    if board[K.EP]:
        board = _keep_legal_ep(board, side, v)
    turn = Color.WHITE if side == 1 else Color.BLACK
    return State(v.name, board, turn, halfmove, fullmove, max_plies, ())


def _check_kings(board: bytes, side: int, v: Variant, fen: str) -> None:
    if v.check is not CheckRule.ROYAL:
        return
    arr = np.frombuffer(board, dtype=np.int8)
    for color, name in ((1, "White"), (-1, "Black")):
        kings = int(np.count_nonzero(arr[:64] == 6 * color))
        allowed = (0, 1) if v.end is EndRule.KING_LOST else (1,)
        if kings not in allowed:
            raise FenError(f"FEN {fen!r}: {name} has {kings} kings, {v.name} needs exactly one")
    # With a king gone (atomic, the game is over) there is no check to test.
    if np.count_nonzero(np.abs(arr[:64]) == 6) == 2 and K.in_check(arr, -side, table(v.name)):
        raise FenError(f"FEN {fen!r}: the side not to move is in check")


def _keep_legal_ep(board: bytes, side: int, v: Variant) -> bytes:
    """The board with its en-passant square cleared unless an en-passant capture is legal (as the kernels keep it)."""
    arr = np.frombuffer(board, dtype=np.int8).copy()
    ep = int(arr[K.EP])
    for code in K.legal_moves(arr, side, table(v.name)):
        if (code >> 6) & 63 == ep and arr[code & 63] == side * K.PAWN:
            return board
    arr[K.EP] = 0
    return arr.tobytes()


def _array(state: State) -> np.ndarray:
    """The board as the kernels' ``int8[BOARD_LEN]``, kept with the state (never handed out: it is writable)."""
    cache = state.__dict__
    arr = cache.get("array")
    if arr is None:
        # A writable copy, so that the kernels are compiled for (and cached with) one array type.
        arr = cache["array"] = np.frombuffer(state.board, dtype=np.int8).copy()
    return arr


def _scratch() -> np.ndarray:
    """This thread's move buffer; each call copies what it needs out before returning."""
    try:
        return _local.moves
    except AttributeError:
        _local.moves = np.empty(K.MAX_MOVES, dtype=np.int32)
        return _local.moves


_local = threading.local()


def _codes(state: State) -> list[int]:
    cache = state.__dict__
    codes = cache.get("codes")
    if codes is None:
        out = _scratch()
        n = K.legal_moves_into(_array(state), int(state.turn), table(state.variant_name), out)
        codes = cache["codes"] = out[:n].tolist()
    return codes


def legal_moves(state: State) -> tuple[Move, ...]:
    """The legal moves; empty once the game has ended by checkmate, stalemate or a variant rule.

    Draws by repetition, the fifty-move rule, the ply cap and insufficient material do not empty
    the list: ask :func:`outcome` whether the game is over.
    """
    cache = state.__dict__
    moves = cache.get("moves")
    if moves is None:
        moves = cache["moves"] = tuple(map(_MOVES.__getitem__, _codes(state)))
    return moves


def apply_move(state: State, move: Move) -> State:
    """The state after ``move``; raise :class:`IllegalMoveError` if it is not legal here."""
    if move not in legal_moves(state):
        raise IllegalMoveError(f"illegal move {move.uci()} in {state.variant_name} position {state.fen()}")
    board = state.board
    frm, to = move.from_square, move.to_square
    irreversible = board[to] != 0 or board[frm] in (1, 255)  # a capture or a pawn move
    after = np.empty(K.BOARD_LEN, dtype=np.int8)
    out = _scratch()
    n = K.advance(_array(state), move.code, int(state.turn), table(state.variant_name), after, out)
    black_moved = state.turn is BLACK
    child = _new_state(
        State,
        (
            state.variant_name,
            after.tobytes(),
            WHITE if black_moved else BLACK,
            0 if irreversible else state.halfmove_clock + 1,
            state.fullmove_number + black_moved,
            state.max_plies,
            () if irreversible else (*state.history, board),
        ),
    )
    child.__dict__.update(array=after, codes=out[:n].tolist())
    return child


_new_state = tuple.__new__


def outcome(state: State) -> Outcome | None:
    """How the game has ended, or ``None`` while it goes on.

    Decisive ends and stalemate come first, then insufficient material, threefold repetition, the
    fifty-move rule (100 plies without capture or pawn move) and the ply cap (``mmc.games.chess.board.game_end``).
    """
    repetitions = state.repetitions() if len(state.history) >= 4 else 0
    code = K.game_end(
        _array(state), int(state.turn), table(state.variant_name), len(_codes(state)), repetitions,
        state.halfmove_clock, state.ply, state.max_plies,
    )  # fmt: skip
    if code == K.ONGOING:
        return None
    if code in _DRAWS:
        return Outcome(None, _DRAWS[code])
    loser_moves = state.turn.other
    if code == K.CHECKMATED:
        return Outcome(loser_moves, Termination.CHECKMATE)
    if code == K.KING_LOST:
        exploded = state.variant.capture is CaptureRule.ATOMIC
        return Outcome(loser_moves, Termination.KING_EXPLODED if exploded else Termination.KING_CAPTURED)
    if code == K.EXTINCT:
        return Outcome(loser_moves, Termination.EXTINCTION)
    return Outcome(state.turn, Termination.EXTINCTION)  # K.OPPONENT_EXTINCT


_DRAWS = {
    K.STALEMATE: Termination.STALEMATE,
    K.INSUFFICIENT_MATERIAL: Termination.INSUFFICIENT_MATERIAL,
    K.REPETITION: Termination.REPETITION,
    K.FIFTY_MOVES: Termination.FIFTY_MOVES,
    K.PLY_CAP: Termination.PLY_CAP,
}
