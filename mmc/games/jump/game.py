"""The jump game as a :class:`mmc.games.Game`: the package's rules, encoding and views behind the game protocol.

Every field is one of the package's own functions or modules; nothing here adds a rule. The kernel bundle is
``mmc.games.jump.board``. No symmetry: the rules are left-right symmetric, but the start triangles are not (Black's
``a1 c1 e1 g1`` mirror to ``b1 d1 f1 h1``, on 6x6 ``a1 c1 e1`` to ``b1 d1 f1``), so a mirrored position belongs to
another start's game. No Fairy-Stockfish binding.
"""

from __future__ import annotations

from mmc.games.jump import board
from mmc.games.jump.actions import NUM_POLICY_PLANES, action_space
from mmc.games.jump.greedy import heuristic
from mmc.games.jump.observe import NUM_PLANES, observation_planes
from mmc.games.jump.perft import perft
from mmc.games.jump.state import (
    DEFAULT_MAX_PLIES,
    MOVES,
    Move,
    State,
    Termination,
    apply_move,
    from_text,
    initial_state,
    legal_moves,
    outcome,
    parse_move,
    table,
)
from mmc.games.jump.variants import VARIANTS
from mmc.games.jump.view import board_view, move_cells, render
from mmc.games.protocol import Game, KernelState

__all__ = ["GAME", "kernel_state"]


def kernel_state(state: State) -> KernelState:
    """``state`` as the kernels take it: its position array (the chain and the move counter inside), the player to
    move, no clock (every move is irreversible), its ply and no history."""
    return KernelState(board.kernel_board(state), int(state.turn), 0, state.ply, ())


GAME = Game(
    name="jump",
    description="The jump game: pieces race to the far side by steps and chains of hops, capturing what they hop",
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
    move_text=Move.text,
    parse_move=parse_move,
    perft=perft,
    render=render,
    observation_planes=observation_planes,
    action_space=action_space,
    table=table,
    kernel_state=kernel_state,
    code_of=lambda move: move.code,
    move_of_code=MOVES.__getitem__,
    board_view=board_view,
    move_cells=move_cells,
    heuristic=heuristic,
)
"""The jump family."""
