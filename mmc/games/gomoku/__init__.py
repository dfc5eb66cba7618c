"""The k-in-a-row family (``docs/rules/kinarow.md``): tic-tac-toe, gomoku on 6x6 to 15x15 under the freestyle,
exact and caro rules, and Connect Four, behind one small API and as a game of the protocol
(``mmc.games.gomoku.game.GAME``, registered by ``mmc.games``).

>>> from mmc.games.gomoku import initial_state, legal_moves, apply_move, outcome, parse_cell
>>> s = initial_state("gomoku_8x8")
>>> s = apply_move(s, parse_cell("d5"))

A move is its cell code ``16 * rank + file`` (text: the cell's name, ``d5``). Under it, ``mmc.games.gomoku.board``
is the compiled array layer (the family's kernel bundle, ``Game.kernels``). Files: ``variants.py`` (the variants as
data), ``_kernels.py`` (the compiled rules, cell diagram inside), ``state.py`` (the state and the verbs), ``text.py``
(position and move texts), ``observe.py`` (input planes), ``actions.py`` (the policy plane), ``view.py`` (text, picture,
clicks), ``greedy.py`` (the greedy heuristic), ``symmetry.py`` (training symmetries), ``engine.py`` (Fairy-Stockfish),
``game.py`` (the :class:`~mmc.games.Game`).
"""

from mmc.games.gomoku.actions import NUM_POLICY_PLANES, GomokuActions, action_space
from mmc.games.gomoku.observe import NUM_PLANES, observation_planes
from mmc.games.gomoku.state import (
    DEFAULT_MAX_PLIES,
    State,
    Stone,
    Termination,
    apply_move,
    from_text,
    initial_state,
    legal_moves,
    outcome,
    perft,
)
from mmc.games.gomoku.text import cell_name, parse_cell
from mmc.games.gomoku.variants import VARIANTS, Rule, Variant, get_variant
from mmc.games.gomoku.view import board_view, move_cells, render, winning_line

__all__ = [
    "DEFAULT_MAX_PLIES",
    "NUM_PLANES",
    "NUM_POLICY_PLANES",
    "VARIANTS",
    "GomokuActions",
    "Rule",
    "State",
    "Stone",
    "Termination",
    "Variant",
    "action_space",
    "apply_move",
    "board_view",
    "cell_name",
    "from_text",
    "get_variant",
    "initial_state",
    "legal_moves",
    "move_cells",
    "observation_planes",
    "outcome",
    "parse_cell",
    "perft",
    "render",
    "winning_line",
]
