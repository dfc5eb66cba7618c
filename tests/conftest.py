"""Fixtures shared by every test package, and the order the tests run in."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# The benchmark scripts import their helpers beside them (``from learning import ...``, ``from diagnosis import
# ...``), as ``python benchmarks/X.py`` finds them; the tests that import a script (``benchmarks.learning``) need
# that folder on the path too.
sys.path.insert(1, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from mmc.games import Game, register_game, unregister_game


@pytest.fixture
def bonus_game() -> Iterator[Game]:
    """The test game of ``tests/games/bonus.py`` (a player sometimes moves twice), registered for one test."""
    from tests.games.bonus import GAME

    register_game(GAME)
    yield GAME
    unregister_game(GAME.name)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest tests first: the study pipeline's (``tests/pipelines``: the shared tiny study, the kill tests), then
    those marked ``slow``, then the rest, each group in its collected order. The two xdist workers of ``make test``
    take the long tests while there are short ones left to fill in with, instead of one worker running a long test
    alone at the end (a stable sort: the same order in every worker, as xdist needs)."""

    def rank(item: pytest.Item) -> int:
        return 0 if item.path.parent.name == "pipelines" else 1 if item.get_closest_marker("slow") else 2

    items.sort(key=rank)
