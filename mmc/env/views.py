"""What each agent of an environment observes, and how a position is drawn.

The observation of an agent is ``{"observation": float32[NUM_PLANES, H, W], "action_mask": int8[A]}``: the
network's input planes (``mmc.games.chess.observation_planes``) from that agent's side, and a mask over the variant's
action space (``mmc.games.chess.action_space``) that is all zeros when the agent is not to move. In dark chess the
planes hold only what the agent sees: its own pieces and the squares they can move to.
"""

from __future__ import annotations

import sys

import numpy as np

from mmc.games.chess import (
    VARIANTS,
    Color,
    State,
    action_space,
    get_variant,
    initial_state,
    legal_moves,
    observation_planes,
    render,
)

__all__ = ["PLAYABLE", "agent_planes", "check_playable", "observation", "render_position", "rgb_image"]

PLAYABLE: tuple[str, ...] = tuple(name for name in VARIANTS if legal_moves(initial_state(name)))
"""The variants a game can be played in: every one whose start position gives White a move (not monochromatic)."""


def check_playable(variant: str) -> str:
    """The canonical name of ``variant``; ``ValueError`` (one line) for an unknown or unplayable one."""
    name = get_variant(variant).name
    if name not in PLAYABLE:
        raise ValueError(f"variant {name!r} cannot be played: White has no legal move at ply 0 (playable: "
                         f"{', '.join(PLAYABLE)})")  # fmt: skip
    return name


def agent_planes(state: State, color: Color) -> np.ndarray:
    """``float32[NUM_PLANES, H, W]``: the planes of ``mmc.games.chess.observe`` from ``color``'s side (for the side to
    move exactly the network's input; for the other side the same layout from its view, repetition planes 0)."""
    return observation_planes(state, color=color)


def observation(state: State, color: Color, *, to_move: bool) -> dict[str, np.ndarray]:
    """The observation dict of ``color``: its planes and, if ``to_move``, the mask of the legal actions."""
    space = action_space(state.variant_name)
    mask = np.zeros(space.num_actions, dtype=np.int8)
    if to_move:
        mask[space.legal_actions(state)] = 1
    return {"observation": agent_planes(state, color), "action_mask": mask}


_SQUARE = 24  # pixels per square
_LIGHT, _DARK = np.array([240, 217, 181], np.uint8), np.array([181, 136, 99], np.uint8)
_WHITE_PIECE, _BLACK_PIECE = np.array([250, 250, 250], np.uint8), np.array([20, 20, 20], np.uint8)


def rgb_image(state: State) -> np.ndarray:
    """``uint8[H * 24, W * 24, 3]``: the whole board, White at the bottom; a piece is a disc whose size grows
    with its type (pawn smallest, king largest), white or black, ringed in the other colour."""
    v = state.variant
    image = np.zeros((v.height * _SQUARE, v.width * _SQUARE, 3), dtype=np.uint8)
    yy, xx = np.mgrid[0:_SQUARE, 0:_SQUARE] - (_SQUARE - 1) / 2
    distance = np.hypot(yy, xx)
    board = state.board_array()
    for rank in range(v.height):
        top = (v.height - 1 - rank) * _SQUARE
        for file in range(v.width):
            cell = image[top : top + _SQUARE, file * _SQUARE : (file + 1) * _SQUARE]
            cell[:] = _LIGHT if (rank + file) % 2 else _DARK
            piece = int(board[8 * rank + file])
            if piece:
                radius = 3 + 1.4 * abs(piece)
                fill, ring = (_WHITE_PIECE, _BLACK_PIECE) if piece > 0 else (_BLACK_PIECE, _WHITE_PIECE)
                cell[distance <= radius + 1] = ring
                cell[distance <= radius] = fill
    return image


def render_position(state: State, render_mode: str | None) -> str | np.ndarray | None:
    """What an environment's ``render()`` returns: the whole board (the referee's view, also in dark chess) as an
    RGB array for ``rgb_array``, text for ``ansi``; ``human`` writes the text to standard output and returns None."""
    if render_mode == "rgb_array":
        return rgb_image(state)
    text = render(state, coordinates=True)
    if render_mode == "human":
        sys.stdout.write(text + "\n")
        return None
    return text
