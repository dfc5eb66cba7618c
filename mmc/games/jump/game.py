"""The jump game as a :class:`mmc.games.Game`: the package's rules, encoding and views behind the game protocol.

Every field is one of the package's own functions or modules, found by ``build_game`` in the modules given or named
below; nothing here adds a rule. The kernel bundle is
``mmc.games.jump.board``. No symmetry: the rules are left-right symmetric, but the start triangles are not (Black's
``a1 c1 e1 g1`` mirror to ``b1 d1 f1 h1``, on 6x6 ``a1 c1 e1`` to ``b1 d1 f1``), so a mirrored position belongs to
another start's game. No Fairy-Stockfish binding.
"""

from __future__ import annotations

from mmc.games.jump import actions, board, greedy, observe, state, variants, view
from mmc.games.jump.perft import perft
from mmc.games.jump.state import MOVES, Move, State
from mmc.games.protocol import KernelState, build_game

__all__ = ["GAME", "kernel_state"]


def kernel_state(state: State) -> KernelState:
    """``state`` as the kernels take it: its position array (the chain and the move counter inside), the player to
    move, no clock (every move is irreversible), its ply and no history."""
    return KernelState(board.kernel_board(state), int(state.turn), 0, state.ply, ())


GAME = build_game(
    state,
    variants,
    actions,
    observe,
    view,
    greedy,
    name="jump",
    description="The jump game: pieces race to the far side by steps and chains of hops, capturing what they hop",
    players=("black", "white"),
    kernels=board,
    kernel_state=kernel_state,
    perft=perft,
    move_text=Move.text,
    code_of=lambda move: move.code,
    move_of_code=MOVES.__getitem__,
    generated_variants=variants.GENERATED_FORMS,
)
"""The jump family."""
