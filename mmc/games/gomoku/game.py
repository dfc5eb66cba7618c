"""The k-in-a-row family as a :class:`mmc.games.Game`: the rules of this package behind the game protocol.

Every field is one of the package's own functions or modules; nothing here adds a rule. The kernel bundle is
``mmc.games.gomoku.board``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mmc.games.gomoku import board
from mmc.games.gomoku.actions import NUM_POLICY_PLANES, action_space
from mmc.games.gomoku.engine import ENGINE
from mmc.games.gomoku.greedy import heuristic
from mmc.games.gomoku.observe import NUM_PLANES, observation_planes
from mmc.games.gomoku.state import (
    DEFAULT_MAX_PLIES,
    State,
    Termination,
    apply_move,
    from_text,
    initial_state,
    kernel_board,
    legal_moves,
    outcome,
    perft,
    table,
)
from mmc.games.gomoku.text import cell_name, parse_cell
from mmc.games.gomoku.variants import GENERATED_FORMS, VARIANTS
from mmc.games.gomoku.view import board_view, move_cells, render
from mmc.games.protocol import Game, KernelState

__all__ = ["GAME", "kernel_state"]


def kernel_state(state: State) -> KernelState:
    """``state`` as the kernels take it: its array, the player to move, no repetition clock (every move places a
    stone for ever, so no position repeats) and its ply."""
    return KernelState(kernel_board(state), int(state.turn), 0, state.ply, ())


def _symmetries(variants: Sequence[str]) -> Sequence[Callable[..., Any]]:
    from mmc.games.gomoku.symmetry import symmetries  # torch: only when training asks

    return symmetries(variants)


GAME = Game(
    name="gomoku",
    description="k in a row: tic-tac-toe, gomoku from 6x6 to 15x15, exact and caro rules, Connect Four, any board",
    variants=VARIANTS,
    players=("black", "white"),
    default_max_plies=DEFAULT_MAX_PLIES,
    terminations=tuple(t.value for t in Termination),
    num_planes=NUM_PLANES,
    num_policy_planes=NUM_POLICY_PLANES,
    kernels=board,
    initial_state=initial_state,
    from_text=from_text,
    legal_moves=legal_moves,
    apply_move=apply_move,
    outcome=outcome,
    move_text=cell_name,
    parse_move=parse_cell,
    perft=perft,
    render=render,
    observation_planes=observation_planes,
    action_space=action_space,
    table=table,
    kernel_state=kernel_state,
    code_of=int,
    move_of_code=int,
    board_view=board_view,
    move_cells=move_cells,
    heuristic=heuristic,
    symmetries=_symmetries,
    engine=ENGINE,
    generated_variants=GENERATED_FORMS,
)
"""The k-in-a-row family (``shared/spec/gomoku.md``)."""
