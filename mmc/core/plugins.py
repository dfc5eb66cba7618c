"""Games, players and learners from other packages, through entry points: the loop every registry loads its own
group with (:func:`each`), and the lines of the plugins left out (:func:`problems`). This module imports nothing of
``mmc``: each registry calls it, the first time it is asked for what it holds (``mmc.games`` for games,
``mmc.play`` for players, ``mmc.meta.learners`` for learners), so an installed distribution's plugins are found by
every way into ``mmc`` (the ``mmc`` command, ``mmc serve``, ``mmc.env``, the benchmarks, the pipeline's stages,
spawned and Dask workers) whatever was imported first.

In the distribution's ``pyproject.toml``::

    [project.entry-points."mmc.games"]
    hexapawn = "hexapawn.game:GAME"              # a mmc.games.Game

    [project.entry-points."mmc.players"]
    firstmove = "hexapawn.players:first_move"    # spec prefix -> factory(fields, variant) -> Player

    [project.entry-points."mmc.learners"]
    mylearner = "mylearner:MyLearner"            # a mmc.meta.Learner

A player factory may carry a ``usage`` attribute (``"firstmove"``, ``"mine:DEPTH"``), the text the players' list
shows. A plugin that fails (it does not import, its object is no game, a name or variant id it takes is taken, a
kernel is missing) is reported in one line on the ``mmc.core.plugins`` logger, naming its distribution, the problem
and, for a clash, the distribution that holds the name; it is left out and everything else keeps working.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import Any

__all__ = ["GAMES_GROUP", "HOME", "LEARNERS_GROUP", "PLAYERS_GROUP", "distribution", "each", "problems", "report"]

GAMES_GROUP = "mmc.games"
"""Entry points whose object is a :class:`mmc.games.Game`."""
PLAYERS_GROUP = "mmc.players"
"""Entry points named by a player spec's prefix, whose object is the kind's factory (``mmc.play.register_player``)."""
LEARNERS_GROUP = "mmc.learners"
"""Entry points whose object is a ``mmc.meta.Learner`` (or a subclass of it, made with no arguments)."""
HOME = "meta-minichess"
"""The distribution the built-in games, players and learners come from, as a clash names it."""

logger = logging.getLogger(__name__)
_PROBLEMS: list[str] = []


def problems() -> tuple[str, ...]:
    """One line per plugin that failed to load in this process, in the order they were found."""
    return tuple(_PROBLEMS)


def distribution(point: EntryPoint) -> str:
    """The name of the installed distribution that declares ``point``."""
    return point.dist.name if point.dist is not None else "an unknown distribution"


def report(point: EntryPoint, problem: str) -> None:
    """Report the plugin of ``point`` left out for ``problem``: one line on this module's logger, kept for
    :func:`problems`."""
    line = f"mmc: plugin {point.name} = {point.value} of {distribution(point)} ({point.group}) left out: {problem}"
    _PROBLEMS.append(line)
    logger.warning("%s", line)


def each(group: str, add: Callable[[EntryPoint, Any], None]) -> None:
    """Load every entry point of ``group`` (in name order, then value) and hand its object to ``add``; a failure to
    load, or ``add``'s exception, is reported (:func:`report`) and that plugin left out. The one loop of every
    registry: games (``mmc.games``), players (``mmc.play``) and learners (``mmc.meta.learners``) each call it for
    their own group, the first time they are asked for what they hold, so that a package that imports ``mmc``
    while it is itself being imported is never loaded half-made."""
    for point in sorted(entry_points(group=group), key=lambda p: (p.name, p.value)):
        try:
            add(point, point.load())
        except Exception as error:  # a plugin's own failure, whatever it is, must not stop the others
            report(point, f"{type(error).__name__}: {' '.join(str(error).split())}")
