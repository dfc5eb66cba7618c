"""The jump game: pieces race to the far side by steps and chains of hops, capturing the opponent's pieces they hop
over (the rule book ``docs/rules/jump.md``), and its variants, behind one small API and as a game of the protocol
(``mmc.games.jump.game.GAME``, registered by ``mmc.games``).

>>> from mmc.games.jump import initial_state, legal_moves, apply_move, outcome
>>> s = initial_state("jump")
>>> s = apply_move(s, legal_moves(s)[0])

Layout: ``variants.py`` (the variants as data), ``rules.py`` (the rule book in compiled code: steps, hops, captures,
the end of the race), ``chain.py`` (the encoding for the search and the network: one action per hop plus "end the
chain"; the position array and the move codes), ``board.py`` (the kernel bundle), ``state.py`` (State, Move, the
verbs, and why a move is illegal), ``fen.py`` (position text), ``actions.py`` and ``observe.py`` (the network's
policy and input planes), ``view.py`` (text board, picture, clicks, complete-move text), ``greedy.py`` (the greedy
heuristic), ``perft.py`` and ``game.py`` (the protocol's ``Game``). Each module imports only those before it in the
order ``variants``, ``rules``, ``chain``, ``fen``, ``state``, then the rest.

The other encoding, one action per complete move (the family ``jump_moves`` of issue 33's measured comparison), is
no longer part of the library: it is the example package ``examples/jump_moves``, which plays these rules, states
and planes through the kernels of ``rules`` and ``chain`` and adds its variants with
:func:`~mmc.games.jump.variants.add_variants`.
"""

from mmc.games.jump.actions import NUM_POLICY_PLANES, JumpActions, action_space
from mmc.games.jump.observe import NUM_PLANES, observation_planes
from mmc.games.jump.perft import perft
from mmc.games.jump.state import (
    MOVES,
    Move,
    Player,
    State,
    Termination,
    apply_move,
    from_text,
    initial_state,
    legal_moves,
    outcome,
    parse_move,
)
from mmc.games.jump.variants import VARIANTS, Variant, get_variant
from mmc.games.jump.view import board_view, complete_moves, move_cells, render, scores

__all__ = [
    "MOVES",
    "NUM_PLANES",
    "NUM_POLICY_PLANES",
    "VARIANTS",
    "JumpActions",
    "Move",
    "Player",
    "State",
    "Termination",
    "Variant",
    "action_space",
    "apply_move",
    "board_view",
    "complete_moves",
    "from_text",
    "get_variant",
    "initial_state",
    "legal_moves",
    "move_cells",
    "observation_planes",
    "outcome",
    "parse_move",
    "perft",
    "render",
    "scores",
]
