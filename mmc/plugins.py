"""Games and players from other packages, through entry points: an installed distribution that declares them is
found by every way into ``mmc`` (the ``mmc`` command and ``python -m mmc``, ``mmc serve``, ``mmc.env``, the
benchmarks, the pipeline's stages, spawned and Dask workers), since each of them imports ``mmc.games`` and
``mmc.play``, which load them.

In the distribution's ``pyproject.toml``::

    [project.entry-points."mmc.games"]
    hexapawn = "hexapawn.game:GAME"              # a mmc.games.Game

    [project.entry-points."mmc.players"]
    firstmove = "hexapawn.players:first_move"    # spec prefix -> factory(fields, variant) -> Player

A player factory may carry a ``usage`` attribute (``"firstmove"``, ``"mine:DEPTH"``), the text the players' list
shows. A plugin that fails (it does not import, its object is no game, a name or variant id it takes is taken, a
kernel is missing) is reported in one line on the ``mmc.plugins`` logger, naming the distribution and the problem,
and is left out; every other game and player keeps working. :func:`problems` lists those lines.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import Any

__all__ = ["GAMES_GROUP", "PLAYERS_GROUP", "load_games", "load_players", "problems", "report"]

GAMES_GROUP = "mmc.games"
"""Entry points whose object is a :class:`mmc.games.Game`."""
PLAYERS_GROUP = "mmc.players"
"""Entry points named by a player spec's prefix, whose object is the kind's factory (``mmc.play.register_player``)."""

logger = logging.getLogger(__name__)
_PROBLEMS: list[str] = []


def problems() -> tuple[str, ...]:
    """One line per plugin that failed to load in this process, in the order they were found."""
    return tuple(_PROBLEMS)


def report(point: EntryPoint, problem: str) -> None:
    """Report the plugin of ``point`` left out for ``problem``: one line on this module's logger, kept for
    :func:`problems`."""
    dist = point.dist.name if point.dist is not None else "an unknown distribution"
    line = f"mmc: plugin {point.name} = {point.value} of {dist} ({point.group}) left out: {problem}"
    _PROBLEMS.append(line)
    logger.warning("%s", line)


def _each(group: str, add: Callable[[EntryPoint, Any], None]) -> None:
    """Load every entry point of ``group`` (in name order) and hand its object to ``add``; a failure is reported."""
    for point in sorted(entry_points(group=group), key=lambda p: (p.name, p.value)):
        try:
            add(point, point.load())
        except Exception as error:  # a plugin's own failure, whatever it is, must not stop the others
            report(point, f"{type(error).__name__}: {' '.join(str(error).split())}")


def load_games() -> None:
    """Register the game of every ``mmc.games`` entry point (``mmc.games.register_game``, which checks it)."""
    from mmc.games import Game, register_game

    def add(point: EntryPoint, game: Any) -> None:
        if not isinstance(game, Game):
            raise TypeError(f"the object is a {type(game).__name__}, not a mmc.games.Game")
        register_game(game)

    _each(GAMES_GROUP, add)


def load_players() -> None:
    """Register the factory of every ``mmc.players`` entry point under its name (``mmc.play.register_player``)."""
    from mmc.play.players import PLAYER_KINDS, register_player

    def add(point: EntryPoint, factory: Any) -> None:
        if not callable(factory):
            raise TypeError(f"the object is a {type(factory).__name__}, not a player factory")
        if point.name in PLAYER_KINDS:
            raise ValueError(f"the player kind {point.name!r} is taken")
        register_player(point.name, str(getattr(factory, "usage", point.name)), factory)

    _each(PLAYERS_GROUP, add)
