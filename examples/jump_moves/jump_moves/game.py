"""The jump game under one action per complete move, as a game of the protocol (``GAME``, family ``jump_moves``):
the other side of issue 33's encoding comparison (BENCHMARKS.md, "Issue 33: the jump game chain encoding measured").

The variants ``jump_moves`` and ``jump_6x6_moves`` (and their generated races, ``jump_moves_p100``) are ``jump`` and
``jump_6x6``: the same rules, states and position text (``mmc.games.jump.state``; a position never has a chain
under way here), played through the kernels of ``jump_moves.kernels``: a move is a step, a whole chain or the pass,
and the turn passes after each. The jump package finds these variants too (``add_variants``), so its states, planes,
outcome and pictures serve them unchanged. A :class:`Move`'s text::

    c3-c4      a step
    c3-e5      the chain from c3 that ends on e5 (the first result there, module ``kernels``)
    c3-e5/1    the next one (the same squares, other pieces captured: a loop around a block of pieces)
    pass       the forced pass

**The network's actions** are a move's start square and where it ends, in the mover's view: one policy plane per
step direction, one per chain offset (both offsets even, from -6 to 6: every landing of a chain keeps the file and
rank parity of its start) and the pass (:data:`NUM_POLICY_PLANES` = 58, on both board sizes). Chains that differ only
by ``k`` share an action: the search gives each the action's prior, self-play's target adds their visits, and an
environment's action plays the first of them (``JumpMoveActions.decode``), so a ``k > 0`` chain is reached by the
search, ``mmc play`` and the web app, not by an environment's agent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import NamedTuple

import numpy as np

from jump_moves import kernels as K
from mmc.games.actions import CodeActions
from mmc.games.jump.board import kernel_board
from mmc.games.jump.fen import start_text
from mmc.games.jump.game import GAME as JUMP
from mmc.games.jump.perft import MAX_DEPTH
from mmc.games.jump.rules import DIRECTIONS
from mmc.games.jump.state import DEFAULT_MAX_PLIES, Player, State, table
from mmc.games.jump.state import from_text as _from_text
from mmc.games.jump.variants import NAMED, Variant, add_variants, get_variant, square_name, square_of, with_races
from mmc.games.protocol import IllegalMoveError, build_game

__all__ = [
    "GAME",
    "MOVES_VARIANTS",
    "NUM_POLICY_PLANES",
    "Move",
    "action_space",
    "apply_move",
    "from_text",
    "initial_state",
    "legal_moves",
    "move_cells",
    "parse_move",
    "perft",
]

MOVES_VARIANTS = with_races(
    {
        f"{name}_moves": replace(
            NAMED[name],
            name=f"{name}_moves",
            description=f"{NAMED[name].description}; one action per complete move (the encoding benchmark's other)",
        )
        for name in ("jump", "jump_6x6")
    }
)
"""The family's variants, named and generated (``jump_moves_p100``): ``jump`` and ``jump_6x6`` under ids of their
own, which the jump package's ``get_variant`` finds once added."""
add_variants(MOVES_VARIANTS)

STEP_PLANE, CHAIN_PLANE, PASS_PLANE = 0, 8, 57
NUM_POLICY_PLANES = 58
"""8 step directions, 7 x 7 chain offsets (the plane of offset 0 is never used) and the pass."""


class Move(NamedTuple):
    """A complete move by its kernel code (``jump_moves.kernels``)."""

    code: int

    @property
    def kind(self) -> str:
        """``"step"``, ``"chain"`` or ``"pass"``."""
        if self.code == K.PASS:
            return "pass"
        return "chain" if self.code >= K.CHAINS else "step"

    @property
    def square(self) -> int:
        """The square the piece moves from; -1 for a pass."""
        if self.code == K.PASS:
            return -1
        return self.code & 63 if self.code < K.CHAINS else ((self.code - K.CHAINS) >> 6) & 63

    @property
    def to_square(self) -> int:
        """Where the piece ends up; -1 for a pass (and for a step off the 8x8 grid: no move of any board)."""
        if self.code == K.PASS:
            return -1
        if self.code >= K.CHAINS:
            return (self.code - K.CHAINS) & 63
        df, dr = DIRECTIONS[(self.code >> 6) & 7]
        file, rank = self.code % 8 + df, (self.code & 63) // 8 + dr
        return 8 * rank + file if 0 <= file < 8 and 0 <= rank < 8 else -1

    @property
    def k(self) -> int:
        """Which result on its end square a chain is (0 the first); 0 for a step or a pass."""
        return (self.code - K.CHAINS) >> 12 if K.CHAINS <= self.code < K.PASS else 0

    def text(self) -> str:
        """The move's text (module docstring)."""
        if self.code == K.PASS:
            return "pass"
        text = f"{square_name(self.square)}-{square_name(self.to_square)}"
        return f"{text}/{self.k}" if self.k else text

    def __repr__(self) -> str:
        return f"Move({self.text()!r})"


PASS_MOVE = Move(K.PASS)


def parse_move(text: str) -> Move:
    """``c3-c4``, ``c3-e5``, ``c3-e5/1`` or ``pass`` as a move; ``ValueError`` naming the text otherwise."""
    t = text.strip().lower()
    if t == "pass":
        return PASS_MOVE
    hint = "a step 'c3-c4', a chain 'c3-e5' (or 'c3-e5/1', the next chain there) or 'pass'"
    squares, _, k_text = t.partition("/")
    parts = squares.split("-")
    try:
        start, end = (square_of(p) for p in parts) if len(parts) == 2 else (-1, -1)
        k = int(k_text) if k_text else 0
    except ValueError:
        start = end = k = -1
    if start < 0 or not 0 <= k < K.MAX_K:
        raise ValueError(f"not a complete jump move: {text!r} (expected {hint})")
    delta = (end % 8 - start % 8, end // 8 - start // 8)
    if delta in DIRECTIONS and not k_text:
        return Move(start | DIRECTIONS.index(delta) << 6)
    if delta[0] % 2 or delta[1] % 2 or delta == (0, 0):
        raise ValueError(f"not a complete jump move: {text!r} ({parts[1]} is neither a step nor a chain's end from "
                         f"{parts[0]}: a chain keeps the file and rank parity of its start)")  # fmt: skip
    return Move(K.CHAINS + (k << 12 | start << 6 | end))


def initial_state(variant: str | Variant, *, max_plies: int = DEFAULT_MAX_PLIES) -> State:
    """The variant's start position, Black to move."""
    v = get_variant(variant)
    return from_text(v, start_text(v), max_plies=max_plies)


def from_text(variant: str | Variant, text: str, *, max_plies: int = DEFAULT_MAX_PLIES) -> State:
    """A state from its position text (``mmc.games.jump.fen``); ``ValueError`` naming the bad field, and for a
    position with a chain under way (none in this encoding)."""
    v = get_variant(variant)
    if v.name not in MOVES_VARIANTS:
        raise ValueError(f"unknown jump_moves variant {v.name!r} (known: {', '.join(MOVES_VARIANTS)})")
    state = _from_text(v, text, max_plies=max_plies)
    if state.path:
        raise ValueError(f"{v.name}: the position has a chain under way ({text.split()[-1]!r}); in the complete-move "
                         "encoding a chain is one move, never under way")  # fmt: skip
    return state


def _codes(state: State) -> list[int]:
    """The legal move codes of ``state``, in the kernels' order (cached with the state)."""
    found: list[int] | None = state.__dict__.get("complete_codes")
    if found is None:
        out = np.empty(K.MAX_MOVES, dtype=np.int32)
        n = K.legal_moves_into(kernel_board(state), int(state.turn), table(state.variant_name), out)
        found = state.__dict__["complete_codes"] = out[:n].tolist()
    return found


def legal_moves(state: State) -> tuple[Move, ...]:
    """The legal complete moves; empty once the game is over by the race or the variant's cap (a lower ``max_plies``
    ends the game without emptying it: ask ``outcome``)."""
    moves: tuple[Move, ...] | None = state.__dict__.get("complete_moves")
    if moves is None:
        moves = state.__dict__["complete_moves"] = tuple(map(Move, _codes(state)))
    return moves


def _why_illegal(state: State, move: Move) -> str:
    """Why ``move`` is not legal in ``state``, naming the first square that fails."""
    mover = int(state.turn)
    board = state.board_array()
    if not _codes(state):
        return "the game is over"
    if move.kind == "pass":
        return "a side passes only when it has no step and no hop"
    if _codes(state) == [K.PASS]:
        return f"{state.turn.name.lower()} has no step and no hop: it must pass"
    start, end = move.square, move.to_square
    if int(board[start]) != mover:
        return f"{square_name(start)} holds no piece of {state.turn.name.lower()}"
    if end < 0:
        return f"the step from {square_name(start)} leaves the board"
    if move.kind == "step":
        return f"{square_name(end)} is not an empty square next to {square_name(start)}"
    ends = [Move(c) for c in _codes(state) if c >= K.CHAINS and Move(c).square == start]
    if all(m.to_square != end for m in ends):
        return f"no chain of the piece on {square_name(start)} ends on {square_name(end)}"
    results = sum(m.to_square == end for m in ends)
    return f"the chains from {square_name(start)} to {square_name(end)} have {results} results (/0 to /{results - 1})"


def apply_move(state: State, move: Move) -> State:
    """The state after ``move``; :class:`IllegalMoveError` naming the first square that fails if it is not legal."""
    if move.code not in _codes(state):
        reason = _why_illegal(state, move)
        raise IllegalMoveError(f"illegal move {move.text()} in {state.variant_name} position {state.fen()}: {reason}")
    after = np.empty(K.BOARD_LEN, dtype=np.int8)
    out = np.empty(K.MAX_MOVES, dtype=np.int32)
    side, n = K.advance(kernel_board(state), int(state.turn), move.code, table(state.variant_name), after, out)
    child = State(state.variant_name, after.tobytes(), Player(side), state.max_plies, ())
    child.__dict__["complete_codes"] = out[:n].tolist()
    return child


def perft(state: State, depth: int) -> int:
    """Sequences of ``depth`` complete moves of this encoding (a chain counted once per result, not per landing
    sequence as the rule book's perft counts); ``depth`` in ``[0, MAX_DEPTH]``, as the jump game's."""
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"perft depth must be between 0 and {MAX_DEPTH}, got {depth}")
    return int(K.perft(kernel_board(state), int(state.turn), depth, table(state.variant_name)))


def path(state: State, move: Move) -> tuple[int, ...]:
    """The squares a complete move's piece stands on in turn: its start, then a step's square or the landings of the
    chain (the first landing sequence in the walk's order that has its result); () for a pass."""
    if move.kind == "pass":
        return ()
    if move.kind == "step":
        return move.square, move.to_square
    landings = np.empty(state.variant.height * state.variant.width + 1, dtype=np.int64)
    board = kernel_board(state).copy()
    if K.chain_path(board, table(state.variant_name), move.code, landings) < 0:
        raise IllegalMoveError(f"illegal move {move.text()} in {state.variant_name} position {state.fen()}: "
                               f"{_why_illegal(state, move)}")  # fmt: skip
    return (move.square, *(int(s) for s in landings[1 : landings[0] + 1]))


def move_cells(state: State, move: Move) -> tuple[str, ...]:
    """The cells a person clicks for ``move``: the piece, then each square it stands on (a pass: none)."""
    return tuple(map(square_name, path(state, move)))


def heuristic(state: State, moves: Sequence[Move]) -> np.ndarray:
    """``float64[len(moves)]``: greedy's score of each complete move (``mmc.games.jump.greedy``'s position value)."""
    out = np.empty(len(moves), dtype=np.float64)
    codes = np.array([m.code for m in moves], dtype=np.int32)
    K.greedy_scores(kernel_board(state), int(state.turn), table(state.variant_name), codes, out)
    return out


@dataclass(frozen=True, eq=False)
class JumpMoveActions(CodeActions):
    """The action encoding of one variant (module docstring). Build with :func:`action_space`."""

    legal_moves = staticmethod(legal_moves)

    def move_codes(self, state: State) -> list[int]:
        return _codes(state)

    def code(self, move: Move) -> int:
        return move.code

    def text(self, move: Move) -> str:
        return move.text()


@cache
def action_space(variant: str | Variant) -> JumpMoveActions:
    """The action encoding of a variant (built once per process)."""
    v = get_variant(variant)
    h, w = v.height, v.width
    lookup = np.full((2, K.NUM_CODES), -1, dtype=np.int32)
    rows = np.arange(2)[:, None]

    def index(plane: np.ndarray, rank: np.ndarray, file: np.ndarray) -> np.ndarray:
        """Each row's action of a move from (rank, file) on ``plane[row]``: the second player's ranks flipped."""
        seen_rank = np.where(rows == 1, h - 1 - rank, rank)
        return ((plane * h + seen_rank) * w + file).astype(np.int32)

    steps = np.arange(K.CHAINS)
    start, direction = steps & 63, steps >> 6
    dfile = np.array([d[0] for d in DIRECTIONS])[direction]
    drank = np.array([d[1] for d in DIRECTIONS])[direction]
    on = (start // 8 < h) & (start % 8 < w) & (start // 8 + drank >= 0) & (start // 8 + drank < h)
    on &= (start % 8 + dfile >= 0) & (start % 8 + dfile < w)
    seen = np.where(rows == 1, (4 - direction) % 8, direction)  # the second player's view flips N and S
    lookup[:, steps[on]] = index(STEP_PLANE + seen, start // 8, start % 8)[:, on]

    chains = np.arange(K.CHAINS, K.PASS)
    c = chains - K.CHAINS
    start, end = (c >> 6) & 63, c & 63
    dfile, drank = end % 8 - start % 8, end // 8 - start // 8
    on = (start // 8 < h) & (start % 8 < w) & (end // 8 < h) & (end % 8 < w)
    on &= (dfile % 2 == 0) & (drank % 2 == 0) & ((dfile != 0) | (drank != 0))
    seen_drank = np.where(rows == 1, -drank, drank)
    plane = CHAIN_PLANE + (seen_drank // 2 + 3) * 7 + dfile // 2 + 3
    lookup[:, chains[on]] = index(plane, start // 8, start % 8)[:, on]
    lookup[:, K.PASS] = PASS_PLANE * h * w
    num_actions = NUM_POLICY_PLANES * h * w
    return JumpMoveActions(v, num_actions, np.arange(num_actions, dtype=np.int64), lookup)


GAME = build_game(
    JUMP,  # the players, move cap, terminations, input planes, outcome, table, kernel state, text and picture
    name="jump_moves",
    description="The jump game with one action per complete move (a step, a whole chain, the pass), the encoding "
    "the hop-by-hop one was measured against",
    variants=MOVES_VARIANTS,
    num_policy_planes=NUM_POLICY_PLANES,
    kernels=K,
    initial_state=initial_state,
    from_text=from_text,
    legal_moves=legal_moves,
    apply_move=apply_move,
    move_text=Move.text,
    parse_move=parse_move,
    perft=perft,
    action_space=action_space,
    code_of=lambda move: move.code,
    move_of_code=Move,
    move_cells=move_cells,
    heuristic=heuristic,
)
"""The jump game, one action per complete move."""
