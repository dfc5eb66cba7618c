"""The chess family: every variant of ``docs/rules/chess.md`` and its variant pages behind one small API, and as
a game of the protocol (``mmc.games.chess.game.GAME``, registered by ``mmc.games``).

>>> from mmc.games.chess import initial_state, legal_moves, apply_move, outcome
>>> s = initial_state("gardner")
>>> s = apply_move(s, legal_moves(s)[0])

Under it, ``mmc.games.chess.board`` is the compiled array layer (boards, move codes, rule tables and the kernels,
the game-end rules and the input planes among them) for code that runs many positions at once, like the search:
it is the family's kernel bundle (``Game.kernels``).
"""

from mmc.games.chess.actions import ChessActions, action_space
from mmc.games.chess.fen import FenError
from mmc.games.chess.observe import NUM_PLANES, observation_planes, visible_squares
from mmc.games.chess.perft import perft, perft_divide
from mmc.games.chess.render import render
from mmc.games.chess.state import (
    Color,
    IllegalMoveError,
    Move,
    Outcome,
    State,
    Termination,
    apply_move,
    from_fen,
    initial_state,
    legal_moves,
    outcome,
    square_name,
)
from mmc.games.chess.variants import VARIANTS, PieceType, Variant, get_variant

__all__ = [
    "NUM_PLANES",
    "VARIANTS",
    "ChessActions",
    "Color",
    "FenError",
    "IllegalMoveError",
    "Move",
    "Outcome",
    "PieceType",
    "State",
    "Termination",
    "Variant",
    "action_space",
    "apply_move",
    "from_fen",
    "get_variant",
    "initial_state",
    "legal_moves",
    "observation_planes",
    "outcome",
    "perft",
    "perft_divide",
    "render",
    "square_name",
    "visible_squares",
]
