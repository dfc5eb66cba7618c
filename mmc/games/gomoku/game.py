"""The k-in-a-row family as a :class:`mmc.games.Game`: the rules of this package behind the game protocol.

Every field is one of the package's own functions or modules, found by ``build_game`` in the modules given or named
below; nothing here adds a rule. The kernel bundle is
``mmc.games.gomoku.board``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mmc.games.gomoku import actions, board, engine, greedy, observe, state, variants, view
from mmc.games.gomoku.state import State, kernel_board
from mmc.games.gomoku.text import cell_name, parse_cell
from mmc.games.protocol import KernelState, build_game

__all__ = ["GAME", "kernel_state"]


def kernel_state(state: State) -> KernelState:
    """``state`` as the kernels take it: its array, the player to move, no repetition clock (every move places a
    stone for ever, so no position repeats) and its ply."""
    return KernelState(kernel_board(state), int(state.turn), 0, state.ply, ())


def _symmetries(ids: Sequence[str]) -> Sequence[Callable[..., Any]]:
    from mmc.games.gomoku.symmetry import symmetries  # torch: only when training asks

    return symmetries(ids)


GAME = build_game(
    state,
    variants,
    actions,
    observe,
    view,
    greedy,
    engine,
    name="gomoku",
    description="k in a row: tic-tac-toe, gomoku from 6x6 to 15x15, exact and caro rules, Connect Four, any board",
    players=("black", "white"),
    kernels=board,
    kernel_state=kernel_state,
    move_text=cell_name,
    parse_move=parse_cell,
    code_of=int,
    move_of_code=int,
    symmetries=_symmetries,
    generated_variants=variants.GENERATED_FORMS,
)
"""The k-in-a-row family (``docs/rules/kinarow.md``)."""
