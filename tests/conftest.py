"""Fixtures shared by every test package."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mmc.games import Game, register_game, unregister_game


@pytest.fixture
def bonus_game() -> Iterator[Game]:
    """The test game of ``tests/games/bonus.py`` (a player sometimes moves twice), registered for one test."""
    from tests.games.bonus import GAME

    register_game(GAME)
    yield GAME
    unregister_game(GAME.name)
