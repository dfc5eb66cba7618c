"""The jump game's Python API: an immutable state and the verbs (initial_state, from_text, legal_moves, apply_move,
outcome), over the compiled kernels of ``mmc.games.jump.chain``.

A :class:`State` holds the kernels' position array (squares, the chain under way, the move counter) as bytes, the
player to move, the move cap and the chain's path (the squares its piece stood on, in order: what the position text
and the rule book's move text show). A :class:`Move` is one action of the chain encoding (``chain``): a step, one
hop, the end of a chain or the pass. Its text::

    c3-c4      a step (from and to)
    c3-c5      one hop (from and landing; during a chain the chain's piece hops on: c5-e5)
    end@e5     end the chain whose piece stands on e5 (only during a chain, after at least one hop)
    pass       the forced pass (only without a step and a hop)

so that a step and a chain of one hop read as the rule book's moves; a longer chain ``c3-c5-e5`` is the actions
``c3-c5 c5-e5`` and, if the piece could hop on from e5, ``end@e5`` (``mmc.games.jump.view.complete_moves`` joins
them back). Records hold these texts, and a person at ``mmc play`` types them too, one hop at a time (the generic
human player takes one action per prompt, and is asked again while its chain goes on). A move that is not legal is
refused with one line naming the first square that fails (:func:`apply_move`).
"""

from __future__ import annotations

import enum
import threading
from functools import cache
from operator import itemgetter
from typing import NamedTuple

import numpy as np

from mmc.games.jump import chain as K
from mmc.games.jump.fen import hop_direction, parse_position, position_text, start_text
from mmc.games.jump.rules import DIRECTIONS, build_table
from mmc.games.jump.variants import Variant, get_variant, square_name, square_of
from mmc.games.protocol import IllegalMoveError, Outcome

__all__ = [
    "DEFAULT_MAX_PLIES",
    "MOVES",
    "Move",
    "Player",
    "State",
    "Termination",
    "apply_move",
    "from_text",
    "initial_state",
    "legal_moves",
    "outcome",
    "parse_move",
    "table",
]

DEFAULT_MAX_PLIES = 400
"""The family's default cap: ``jump``'s 200 moves each (a variant's own cap applies where it is lower)."""


class Player(enum.IntEnum):
    """The players; the value is the sign of their pieces. Black moves first and races up the board."""

    BLACK = 1
    WHITE = -1


class Termination(enum.Enum):
    """Why a game ended (the result is by score either way)."""

    ALL_IN_TARGET = "all-in-target"
    MOVE_CAP = "move-cap"


class Move(NamedTuple):
    """One action of the chain encoding, by its kernel code (``mmc.games.jump.chain``)."""

    code: int

    @property
    def kind(self) -> str:
        """``"step"``, ``"hop"``, ``"end"`` or ``"pass"``."""
        if self.code == K.PASS:
            return "pass"
        if self.code >= K.END:
            return "end"
        return "hop" if self.code & K.HOP else "step"

    @property
    def square(self) -> int:
        """The square the piece moves from (an end: where the chain's piece stands); -1 for a pass."""
        return -1 if self.code == K.PASS else self.code & 63

    @property
    def direction(self) -> int:
        """The direction of a step or a hop (``rules.DIRECTIONS``)."""
        return (self.code >> 6) & 7

    @property
    def to_square(self) -> int:
        """Where the piece ends up: a step's square, a hop's landing, the chain's square for an end; -1 for a pass
        (also for a step or a hop that would leave the 8x8 grid: no move of any board)."""
        if self.code >= K.END:
            return self.square
        df, dr = DIRECTIONS[self.direction]
        reach = 2 if self.code & K.HOP else 1
        file, rank = self.square % 8 + reach * df, self.square // 8 + reach * dr
        return 8 * rank + file if 0 <= file < 8 and 0 <= rank < 8 else -1

    def text(self) -> str:
        """The move's text (module docstring)."""
        if self.code == K.PASS:
            return "pass"
        if self.code >= K.END:
            return f"end@{square_name(self.square)}"
        return f"{square_name(self.square)}-{square_name(self.to_square)}"

    def __repr__(self) -> str:
        return f"Move({self.text()!r})" if self.to_square >= 0 or self.code == K.PASS else f"Move({self.code})"


MOVES = tuple(Move(code) for code in range(K.NUM_CODES))
"""Every move, indexed by its code (shared objects)."""


def parse_move(text: str) -> Move:
    """``c3-c4``, ``c3-c5``, ``end@e5`` or ``pass`` as a move; ``ValueError`` naming the text otherwise."""
    t = text.strip().lower()
    if t == "pass":
        return MOVES[K.PASS]
    if t.startswith("end"):
        if t.startswith("end@") and len(t) == 6:
            return MOVES[K.END + square_of(t[4:])]
        raise ValueError(f"not a jump move: {text!r} (the end of a chain names the square it stops on: 'end@e5')")
    parts = t.split("-")
    hint = "a step 'c3-c4', a hop 'c3-c5', 'end@e5' or 'pass'"
    if len(parts) > 2:
        raise ValueError(f"not a jump move: {text!r} (a chain is played one hop at a time: {hint})")
    try:
        frm, to = (square_of(p) for p in parts) if len(parts) == 2 else (-1, -1)
    except ValueError:
        frm = to = -1
    if frm < 0:
        raise ValueError(f"not a jump move: {text!r} (expected {hint})")
    delta = (to % 8 - frm % 8, to // 8 - frm // 8)
    if delta in DIRECTIONS:
        return MOVES[frm | DIRECTIONS.index(delta) << 6]
    d = hop_direction(frm, to)
    if d is None:
        raise ValueError(f"not a jump move: {text!r} ({parts[1]} is neither a step nor a hop from {parts[0]})")
    return MOVES[frm | d << 6 | K.HOP]


class _StateFields(NamedTuple):
    variant_name: str
    board: bytes  # chain.BOARD_LEN signed bytes: squares, the chain under way, the move counter (mmc.games.jump.chain)
    turn: Player
    max_plies: int  # the cap the game is played to: it ends by score at min(max_plies, the variant's cap)
    path: tuple[int, ...]  # the chain under way: the squares its piece stood on in order (start first); () between


class State(_StateFields):
    """An immutable, hashable state. Build one with :func:`initial_state` or :func:`from_text`."""

    @property
    def variant(self) -> Variant:
        return get_variant(self.variant_name)

    @property
    def ply(self) -> int:
        """Complete moves played since the start (passes included): Black moves at even plies."""
        return self.board[K.PLY] | self.board[K.PLY + 1] << 8

    @property
    def chain_square(self) -> int | None:
        """The square of the piece whose chain is under way, ``None`` between moves."""
        return self.path[-1] if self.path else None

    def board_array(self) -> np.ndarray:
        """The 64 squares as a read-only ``int8[64]`` array (+1 Black, -1 White, 0 empty)."""
        return np.frombuffer(self.board, dtype=np.int8, count=64)

    def fen(self) -> str:
        """The position text (``mmc.games.jump.fen``), with the chain under way if there is one."""
        return position_text(self.board_array(), int(self.turn), self.ply, self.path, self.variant)

    def __repr__(self) -> str:
        return f"State({self.variant_name!r}, {self.fen()!r})"


_PLAYERS = {1: Player.BLACK, -1: Player.WHITE}


@cache
def table(variant_name: str) -> np.ndarray:
    """The kernels' rule table of a variant (built once per process)."""
    return build_table(get_variant(variant_name))


def initial_state(variant: str | Variant, *, max_plies: int = DEFAULT_MAX_PLIES) -> State:
    """The variant's start position, Black to move."""
    v = get_variant(variant)
    return from_text(v, start_text(v), max_plies=max_plies)


def from_text(variant: str | Variant, text: str, *, max_plies: int = DEFAULT_MAX_PLIES) -> State:
    """A state from its position text; ``ValueError`` naming the bad field."""
    v = get_variant(variant)
    if max_plies < 1:
        raise ValueError(f"max_plies must be >= 1, got {max_plies}")
    board, side, path = parse_position(v, text.strip())
    state = State(v.name, board.tobytes(), _PLAYERS[side], max_plies, path)
    state.__dict__["array"] = board
    return state


def _array(state: State) -> np.ndarray:
    """The position as the kernels' ``int8[BOARD_LEN]``, kept with the state (never handed out: it is writable)."""
    arr = state.__dict__.get("array")
    if arr is None:
        arr = state.__dict__["array"] = np.frombuffer(state.board, dtype=np.int8).copy()
    return arr


def _scratch() -> np.ndarray:
    """This thread's move buffer; each call copies what it needs out before returning."""
    try:
        return _local.moves  # type: ignore[no-any-return]
    except AttributeError:
        _local.moves = np.empty(K.MAX_MOVES, dtype=np.int32)
        return _local.moves  # type: ignore[no-any-return]


_local = threading.local()


def codes(state: State) -> list[int]:
    """The legal move codes of ``state``, in the kernels' order (cached with the state)."""
    found: list[int] | None = state.__dict__.get("codes")
    if found is None:
        out = _scratch()
        n = K.legal_moves_into(_array(state), int(state.turn), table(state.variant_name), out)
        found = state.__dict__["codes"] = out[:n].tolist()
    return found


def legal_moves(state: State) -> tuple[Move, ...]:
    """The legal actions (module docstring); empty once the game is over by the race or the variant's cap (a lower
    ``max_plies`` ends the game without emptying it: ask :func:`outcome`)."""
    moves: tuple[Move, ...] | None = state.__dict__.get("moves")
    if moves is None:
        found = codes(state)
        # itemgetter builds the tuple in C, some 3x faster than tuple(map(...)); with one key it returns the item.
        moves = (MOVES[found[0]],) if len(found) == 1 else itemgetter(*found)(MOVES) if found else ()
        state.__dict__["moves"] = moves
    return moves


def apply_move(state: State, move: Move) -> State:
    """The state after ``move``; :class:`IllegalMoveError` naming the first square that fails if it is not legal."""
    cache = state.__dict__
    legal = cache.get("codes")
    code = move.code
    if code not in (codes(state) if legal is None else legal):
        reason = _why_illegal(state, move)
        raise IllegalMoveError(f"illegal move {move.text()} in {state.variant_name} position {state.fen()}: {reason}")
    after = np.empty(K.BOARD_LEN, dtype=np.int8)
    out = _scratch()
    side, plies, n = K.advance(_array(state), int(state.turn), code, table(state.variant_name), after, out)
    path: tuple[int, ...] = ()
    if not plies:
        path = (*(state.path or (move.square,)), int(after[K.CHAIN]))
    child = _new_state(State, (state.variant_name, after.tobytes(), _PLAYERS[side], state.max_plies, path))
    child_cache = child.__dict__
    child_cache["array"] = after
    child_cache["codes"] = out[:n].tolist()
    return child


_new_state = tuple.__new__


def outcome(state: State) -> Outcome | None:
    """How the game has ended, or ``None`` while it goes on: the race (a player with all its pieces in its target
    region) or the cap (``min(max_plies, the variant's cap)``), the winner by score either way; never during a
    chain."""
    if state.path:
        return None
    moves = codes(state)
    if moves and state.ply < state.max_plies:
        return None
    code = K.game_end(_array(state), int(state.turn), table(state.variant_name), len(moves), 0, 0, state.ply,
                      state.max_plies)  # fmt: skip
    why = Termination.ALL_IN_TARGET if code <= K.HOME_DRAWN else Termination.MOVE_CAP
    won = code in (K.HOME_WON, K.CAP_WON)
    lost = code in (K.HOME_LOST, K.CAP_LOST)
    return Outcome(state.turn if won else (_PLAYERS[-state.turn] if lost else None), why)


def _why_illegal(state: State, move: Move) -> str:
    """The reason ``move`` is not legal in ``state`` (assumed so), naming the first square that fails: the message of
    :func:`apply_move`'s :class:`IllegalMoveError`. Only the error path runs this; legality itself is the kernels'
    move list."""
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
