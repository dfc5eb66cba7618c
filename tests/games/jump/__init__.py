"""The jump game's tests, and a way for any test to use the example package of its other encoding
(``examples/jump_moves``, the family ``jump_moves``) without installing it."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from mmc.games import Game, games, register_game, unregister_game

JUMP_MOVES = Path(__file__).resolve().parents[3] / "examples" / "jump_moves"
"""The example package's folder (its ``pyproject.toml`` and the package ``jump_moves``)."""


def jump_moves_module() -> ModuleType:
    """The example package's module ``jump_moves.game`` (its ``GAME``, ``Move``, ``action_space`` ...), imported from
    its folder (put on ``sys.path``); the game is not registered."""
    if str(JUMP_MOVES) not in sys.path:
        sys.path.insert(0, str(JUMP_MOVES))
    return importlib.import_module("jump_moves.game")


@contextmanager
def jump_moves_registered() -> Iterator[Game]:
    """The example package's game registered by hand for the block, as its entry point registers it once installed;
    unregistered after, unless it was registered already."""
    game: Game = jump_moves_module().GAME
    before = game in games()
    register_game(game)
    try:
        yield game
    finally:
        if not before:
            unregister_game(game.name)
