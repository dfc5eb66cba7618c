"""The chess family as a :class:`mmc.games.Game`: the rules engine of this package behind the game protocol.

Every field is one of the package's own functions or modules, found by ``build_game`` in the modules given or named
below; nothing here adds a rule. The kernel bundle is
``mmc.games.chess.board``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from mmc.games.chess import actions, board, dark, endgame, greedy, observe, state, variants, view
from mmc.games.chess.perft import perft
from mmc.games.chess.render import render
from mmc.games.chess.state import Move, State
from mmc.games.protocol import EngineBinding, KernelState, build_game

__all__ = ["ENGINE", "GAME", "kernel_state"]


def kernel_state(state: State) -> KernelState:
    """``state`` as the kernels take it: its board, side to move, fifty-move clock, ply and the boards since the last
    capture or pawn move (the players to move alternate back from ``state``'s)."""
    side = int(state.turn)
    count = len(state.history)
    history = [(past, side if (count - i) % 2 == 0 else -side) for i, past in enumerate(state.history)]
    return KernelState(board.kernel_board(state), side, state.halfmove_clock, state.ply, history)


def _symmetries(ids: Sequence[str]) -> list[Callable[..., Any]]:
    from mmc.games.chess.mirror import symmetries  # torch: only when training asks

    return symmetries(ids)


ENGINE = EngineBinding(
    variants={"gardner": "gardner", "baby": "baby", "mallet": "mallet", "los_alamos": "losalamos", "chess": "chess"},
    variant_file=str(Path(__file__).with_name("engine-variants.ini")),
    start_board=lambda variant: variants.VARIANTS[variant].start_board,
    position=State.fen,
    parse_move=lambda state, text: Move.from_uci(text),
)
"""Fairy-Stockfish plays gardner and los_alamos (built in), baby and mallet (``engine-variants.ini``) and chess."""

GAME = build_game(
    state,
    variants,
    actions,
    observe,
    view,
    greedy,
    dark,
    endgame,
    name="chess",
    description="Chess and its rule variants: Gardner minichess on 5x5, Los Alamos on 6x6, FIDE chess on 8x8",
    players=("white", "black"),
    kernels=board,
    from_text=state.from_fen,
    perft=perft,
    render=render,
    kernel_state=kernel_state,
    move_text=Move.uci,
    parse_move=Move.from_uci,
    code_of=lambda move: move.code,
    move_of_code=board.MOVES.__getitem__,
    symmetries=_symmetries,
    engine=ENGINE,
)
"""The chess family."""
