"""Self-play starts other than the variant's start position: a curriculum, for self-play only.

``SearchConfig.random_opening_plies`` starts every self-play game after that many uniformly random legal plies
(:func:`mmc.play.arena.random_opening`, the evaluation's openings); ``SearchConfig.endgame_starts`` starts a
fraction of the games from an endgame, a thinned-out position its game family makes (``Game.endgame``: in chess,
random non-king pieces taken off), so that won positions turn up in the first plies. Every draw comes from the
game's own generator, and none is drawn while both settings are off.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mmc.games import game_of
from mmc.play.arena import random_opening
from mmc.search.config import SearchConfig

__all__ = ["self_play_start"]


def self_play_start(start: Any, config: SearchConfig, rng: np.random.Generator) -> tuple[Any, list[Any]]:
    """Where a self-play game begins: ``config.random_opening_plies`` random plies from ``start``, then, with
    probability ``config.endgame_starts``, the game's ``endgame`` of that position. Returns the position and the
    random moves that led to it from ``start`` (none when it is an endgame: it is not reached by moves).
    ``ValueError`` if endgame starts are asked for in a game that has none."""
    state, moves = random_opening(start, config.random_opening_plies, rng)
    if config.endgame_starts and rng.random() < config.endgame_starts:
        game = game_of(start)
        if game.endgame is None:
            raise ValueError(f"SearchConfig.endgame_starts: the {game.name} family has no endgame starts")
        thinned = game.endgame(state, rng)
        if thinned is not state:
            return thinned, []
    return state, moves
