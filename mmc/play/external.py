"""A player from outside the project: the spec ``python:MODULE:CALLABLE``.

``MODULE`` is an importable module name (the current directory is searched too) or a path to a ``.py`` file;
``CALLABLE`` names, in it, either

* a function ``agent(state, rng) -> Move``: one legal move (``mmc.games.legal_moves(state)``) for a position
  whose player to move is the agent's, ``rng`` a ``numpy.random.Generator``; or
* an object with the players' batched method ``play(states, rng) -> list[Move]`` (``mmc.play.Player``), or a class
  whose instances have it (built with no arguments).

In dark chess the ``State`` holds the whole board: a fair agent reads only ``mmc.games.chess.visible_squares(state,
state.turn)`` (or the planes of ``mmc.games.chess.observation_planes``). A ten-line example::

    # my_agent.py, rated with: mmc rate python:my_agent:agent --variant gardner (any variant of any family)
    from mmc.games import apply_move, legal_moves, outcome

    def agent(state, rng):
        moves = legal_moves(state)
        for move in moves:  # take a win in one, else play at random
            result = outcome(apply_move(state, move))
            if result is not None and result.winner is state.turn:
                return move
        return moves[rng.integers(len(moves))]
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["FunctionPlayer", "external_player", "load_module"]


class FunctionPlayer:
    """A :class:`mmc.play.Player` around ``agent(state, rng) -> Move``, called once per position."""

    def __init__(self, agent: Callable[[Any, np.random.Generator], Any], name: str) -> None:
        self.agent = agent
        self.name = name

    def play(self, states: Sequence[Any], rng: np.random.Generator) -> list[Any]:
        """``agent(state, rng)`` for each state."""
        return [self.agent(state, rng) for state in states]


def load_module(name: str, spec: str) -> ModuleType:
    """The module ``name`` (or the ``.py`` file at that path); ``ValueError`` naming ``spec`` if it does not import."""
    try:
        if name.endswith(".py"):
            path = Path(name)
            found = importlib.util.spec_from_file_location(path.stem, path)
            if found is None or found.loader is None or not path.is_file():
                raise ImportError(f"no file {name!r}")
            module = importlib.util.module_from_spec(found)
            found.loader.exec_module(module)
            return module
        if os.getcwd() not in sys.path and "" not in sys.path:  # the `mmc` script's path starts at its own folder
            sys.path.append(os.getcwd())
        return importlib.import_module(name)
    except Exception as e:  # a user's module may fail in any way: report it in one line
        raise ValueError(f"player {spec!r}: cannot import {name!r}: {type(e).__name__}: {e}") from None


def external_player(fields: list[str], variant: str) -> Any:
    """The player of ``python:MODULE:CALLABLE`` (``fields`` = ``[MODULE, CALLABLE]``); ``ValueError`` (one line)
    for a malformed spec, a module that does not import, a missing name or one that is not a player."""
    spec = ":".join(["python", *fields])
    if len(fields) != 2 or not all(fields):
        raise ValueError(f"player {spec!r}: expected python:MODULE:CALLABLE")
    module_name, attribute = fields
    module = load_module(module_name, spec)
    target = getattr(module, attribute, None)
    if target is None:
        raise ValueError(f"player {spec!r}: module {module_name!r} has no {attribute!r}")
    if isinstance(target, type):
        try:
            target = target()
        except Exception as e:
            raise ValueError(f"player {spec!r}: {attribute}() failed: {type(e).__name__}: {e}") from None
    if callable(getattr(target, "play", None)):
        if not isinstance(getattr(target, "name", None), str):
            with contextlib.suppress(AttributeError):  # a read-only name: the records name it as it likes
                target.name = spec
        return target
    if callable(target):
        return FunctionPlayer(target, spec)
    raise ValueError(f"player {spec!r}: {attribute!r} is neither callable nor has a play method")
