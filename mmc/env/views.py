"""What each agent of an environment observes, and how a position is drawn, for any game family (``mmc.games``).

The observation of an agent is ``{"observation": float32[num_planes, H, W], "action_mask": int8[A]}``: the
network's input planes (``Game.observation_planes``) from that agent's side, and a mask over the variant's action
space (``Game.action_space``) that is all zeros when the agent is not to move. In a variant with hidden information
(dark chess) the planes hold only what the agent sees.

A player is ``+1`` (the first to move) or ``-1`` (the second), as everywhere in ``mmc.games``; the environments name
the players by ``Game.players`` (``"white"`` and ``"black"`` in chess).

**Many tasks, one space** (:class:`TaskSpaces`). An environment over several variants of a family (its ``variants``)
keeps one observation and one action space for all of them, sized to their largest board: ``float32[num_planes + 1,
H, W]``, the variant's planes in the lower-left ``h x w`` corner (rank 0, file 0 first, as the network lays them out)
and one more plane that is 1 on the cells of the episode's board; an action is a cell of the largest board's policy
planes, ``int8[num_policy_planes * H * W]`` in the mask, each variant's actions placed as its planes are. A
fixed-size network then plays every task, as ``mmc``'s own network plays every board size of a family.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from mmc.games import FIRST, game_of, games, get_game, get_variant

__all__ = [
    "PLAYABLE",
    "TaskSpaces",
    "agent_planes",
    "check_playable",
    "observation",
    "playable_variants",
    "player_name",
    "render_position",
    "rgb_image",
]


def _has_a_move(variant: str) -> bool:
    game = get_game(variant)
    return bool(game.legal_moves(game.initial_state(variant, max_plies=game.default_max_plies)))


def playable_variants() -> tuple[str, ...]:
    """Every variant, of every family registered now, whose start position has a legal move (chess's monochromatic
    has none: White cannot move at ply 0)."""
    return tuple(name for game in games() for name in game.variants if _has_a_move(name))


PLAYABLE: tuple[str, ...] = playable_variants()
"""The playable variants of the families registered when ``mmc.env`` was imported (the built-in ones);
:func:`playable_variants` also sees a family registered since."""


def check_playable(variant: str) -> str:
    """The canonical name of ``variant``; ``ValueError`` (one line) for an unknown or unplayable one."""
    name = get_variant(variant).name
    if not _has_a_move(name):
        game = get_game(name)
        start = game.initial_state(name, max_plies=game.default_max_plies)
        mover = player_name(game.players, start.turn).capitalize()
        raise ValueError(f"variant {name!r} cannot be played: {mover} has no legal move at ply 0 (playable: "
                         f"{', '.join(playable_variants())})")  # fmt: skip
    return name


def player_name(players: tuple[str, str], player: int) -> str:
    """The name of ``player`` (+1 first, -1 second) among a family's ``players``."""
    return players[0 if int(player) == FIRST else 1]


def agent_planes(state: Any, player: int) -> np.ndarray:
    """``float32[num_planes, H, W]``: the family's observation planes from ``player``'s side (for the player to move
    exactly the network's input; for the other the same layout from its view)."""
    return np.asarray(game_of(state).observation_planes(state, color=player))


def observation(state: Any, player: int, *, to_move: bool) -> dict[str, np.ndarray]:
    """The observation dict of ``player`` (+1 or -1): its planes and, if ``to_move``, the mask of the legal actions."""
    space = game_of(state).action_space(state.variant_name)
    mask = np.zeros(space.num_actions, dtype=np.int8)
    if to_move:
        mask[space.legal_actions(state)] = 1
    return {"observation": agent_planes(state, player), "action_mask": mask}


_CELL = 24  # pixels per cell
_LIGHT, _DARK = np.array([240, 217, 181], np.uint8), np.array([181, 136, 99], np.uint8)
_COLOURS: dict[str, tuple[int, int, int]] = {
    "white": (250, 250, 250),
    "black": (20, 20, 20),
    "red": (200, 30, 30),
    "blue": (30, 70, 200),
    "green": (30, 150, 60),
    "yellow": (235, 200, 40),
}
"""Disc colours of the player names that are colours; any other name draws the first player light, the second dark."""


def _disc_colour(players: tuple[str, str], owner: int) -> np.ndarray:
    name = player_name(players, owner).lower()
    default = _COLOURS["white"] if owner == FIRST else _COLOURS["black"]
    return np.array(_COLOURS.get(name, default), np.uint8)


def rgb_image(state: Any) -> np.ndarray:
    """``uint8[H * 24, W * 24, 3]``: the whole board (``Game.board_view``, the referee's view), the first player's
    side at the bottom, on checkered cells; a piece is a disc of one size whatever its glyph, in its owner's colour
    (the player's name when it is a colour: white, black, red, blue, green, yellow; else light for the first player
    and dark for the second), ringed in a contrasting shade."""
    game = game_of(state)
    view = game.board_view(state)
    width, height = len(view.files), len(view.ranks)
    image = np.zeros((height * _CELL, width * _CELL, 3), dtype=np.uint8)
    yy, xx = np.mgrid[0:_CELL, 0:_CELL] - (_CELL - 1) / 2
    distance = np.hypot(yy, xx)
    for index, (owner, _glyph) in enumerate(view.cells):
        rank, file = divmod(index, width)
        top = (height - 1 - rank) * _CELL
        cell = image[top : top + _CELL, file * _CELL : (file + 1) * _CELL]
        cell[:] = _LIGHT if (rank + file) % 2 else _DARK
        if owner:
            fill = _disc_colour(game.players, owner)
            ring = np.array((20, 20, 20) if fill.astype(int).sum() > 3 * 128 else (250, 250, 250), np.uint8)
            cell[distance <= 9] = ring
            cell[distance <= 8] = fill
    return image


def render_position(state: Any, render_mode: str | None) -> str | np.ndarray | None:
    """What an environment's ``render()`` returns: the whole board (the referee's view, also with hidden information)
    as an RGB array for ``rgb_array``, ``Game.render``'s text for ``ansi``; ``human`` writes the text to standard
    output and returns None."""
    if render_mode == "rgb_array":
        return rgb_image(state)
    text = game_of(state).render(state, coordinates=True)
    if render_mode == "human":
        sys.stdout.write(text + "\n")
        return None
    return text


class TaskSpaces:
    """The spaces shared by ``variants`` (of one family) and the map between them and each variant's own (module
    docstring, "Many tasks, one space"). ``ValueError`` in one line for variants of two families."""

    def __init__(self, variants: tuple[str, ...]) -> None:
        self.game = get_game(variants[0])
        boards = [self.game.variant(v) for v in variants]
        self.height, self.width = max(b.height for b in boards), max(b.width for b in boards)
        self.num_planes = self.game.num_planes + 1
        self.num_actions = self.game.num_policy_planes * self.height * self.width
        self._actions: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def check(self, variant: str) -> str:
        """``variant`` if its board fits the shared spaces; ``ValueError`` in one line naming both sizes otherwise."""
        v = self.game.variant(variant)
        if v.height > self.height or v.width > self.width:
            raise ValueError(f"variant {variant!r} ({v.width}x{v.height}) is larger than the environment's spaces "
                             f"({self.width}x{self.height}, the largest board of its variants)")  # fmt: skip
        return variant

    def actions(self, variant: str) -> tuple[np.ndarray, np.ndarray]:
        """``(shared, own)``: ``int64[variant's actions]``, the shared action of each of the variant's actions, and
        ``int64[num_actions]``, the variant's action of each shared one (-1 for none: off its board, or no action)."""
        if variant not in self._actions:
            v = self.game.variant(self.check(variant))
            index = np.asarray(self.game.action_space(variant).policy_index, dtype=np.int64)
            plane, cell = np.divmod(index, v.height * v.width)
            rank, file = np.divmod(cell, v.width)
            shared = (plane * self.height + rank) * self.width + file
            own = np.full(self.num_actions, -1, dtype=np.int64)
            own[shared[::-1]] = np.arange(len(shared))[::-1]  # two actions on one logit: the first of them
            self._actions[variant] = shared, own
        return self._actions[variant]

    def observation(self, state: Any, player: int, *, to_move: bool) -> dict[str, np.ndarray]:
        """:func:`observation` of ``state`` in the shared spaces: the planes padded, the board plane, the mask."""
        own = observation(state, player, to_move=to_move)
        planes = own["observation"]
        padded = np.zeros((self.num_planes, self.height, self.width), dtype=np.float32)
        padded[:-1, : planes.shape[1], : planes.shape[2]] = planes
        padded[-1, : planes.shape[1], : planes.shape[2]] = 1.0
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[self.actions(state.variant_name)[0][own["action_mask"] == 1]] = 1
        return {"observation": padded, "action_mask": mask}

    def decode(self, action: int, state: Any) -> Any:
        """The legal move of ``state`` that the shared ``action`` stands for; ``ValueError`` if none."""
        own = int(self.actions(state.variant_name)[1][action]) if 0 <= action < self.num_actions else -1
        if own < 0:
            raise ValueError(f"action {action} is no action of {state.variant_name} (off its board)")
        return self.game.action_space(state.variant_name).decode(own, state)
