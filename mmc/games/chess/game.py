"""The chess family as a :class:`mmc.games.Game`: the rules engine of this package behind the game protocol.

Every field is one of the package's own functions or modules; nothing here adds a rule. The kernel bundle is
``mmc.games.chess.board``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from mmc.games.chess import board
from mmc.games.chess.actions import NUM_POLICY_PLANES, action_space
from mmc.games.chess.dark import determinize
from mmc.games.chess.endgame import endgame
from mmc.games.chess.greedy import heuristic
from mmc.games.chess.observe import NUM_PLANES, observation_planes
from mmc.games.chess.perft import perft
from mmc.games.chess.render import render
from mmc.games.chess.state import (
    DEFAULT_MAX_PLIES,
    Move,
    State,
    Termination,
    apply_move,
    from_fen,
    initial_state,
    legal_moves,
    outcome,
    table,
)
from mmc.games.chess.variants import VARIANTS
from mmc.games.chess.view import board_view, move_cells
from mmc.games.protocol import EngineBinding, Game, KernelState

__all__ = ["ENGINE", "GAME", "kernel_state"]


def kernel_state(state: State) -> KernelState:
    """``state`` as the kernels take it: its board, side to move, fifty-move clock, ply and the boards since the last
    capture or pawn move (the players to move alternate back from ``state``'s)."""
    side = int(state.turn)
    count = len(state.history)
    history = [(past, side if (count - i) % 2 == 0 else -side) for i, past in enumerate(state.history)]
    return KernelState(board.kernel_board(state), side, state.halfmove_clock, state.ply, history)


def _symmetries(variants: Sequence[str]) -> list[Callable[..., Any]]:
    from mmc.games.chess.mirror import symmetries  # torch: only when training asks

    return symmetries(variants)


ENGINE = EngineBinding(
    variants={"gardner": "gardner", "baby": "baby", "mallet": "mallet", "los_alamos": "losalamos", "chess": "chess"},
    variant_file=str(Path(__file__).with_name("engine-variants.ini")),
    start_board=lambda variant: VARIANTS[variant].start_board,
    position=State.fen,
    parse_move=lambda state, text: Move.from_uci(text),
)
"""Fairy-Stockfish plays gardner and los_alamos (built in), baby and mallet (``engine-variants.ini``) and chess."""

GAME = Game(
    name="chess",
    description="Chess and its rule variants: Gardner minichess on 5x5, Los Alamos on 6x6, FIDE chess on 8x8",
    variants=VARIANTS,
    players=("white", "black"),
    default_max_plies=DEFAULT_MAX_PLIES,
    terminations=tuple(t.value for t in Termination),
    num_planes=NUM_PLANES,
    num_policy_planes=NUM_POLICY_PLANES,
    kernels=board,
    initial_state=initial_state,
    from_text=from_fen,
    legal_moves=legal_moves,
    apply_move=apply_move,
    outcome=outcome,
    move_text=Move.uci,
    parse_move=Move.from_uci,
    perft=perft,
    render=render,
    observation_planes=observation_planes,
    action_space=action_space,
    table=table,
    kernel_state=kernel_state,
    code_of=lambda move: move.code,
    move_of_code=board.MOVES.__getitem__,
    board_view=board_view,
    move_cells=move_cells,
    heuristic=heuristic,
    determinize=determinize,
    symmetries=_symmetries,
    endgame=endgame,
    engine=ENGINE,
)
"""The chess family."""
