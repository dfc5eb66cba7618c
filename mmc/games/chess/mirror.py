"""Left-right mirror augmentation (the chess game's ``symmetries``): an example also teaches the position with its
files reversed.

The family has no castling, so its rules do not tell the a-file from the e-file: mirroring a position
(file ``f`` -> ``W - 1 - f``) mirrors its legal moves, its search policy and keeps its game result. So a
mirrored example is as true as the original, and costs no search (AlphaZero used the eight board symmetries
of Go the same way; it could not for chess because of castling). A variant whose rules might break the
symmetry is refused by :func:`check_mirror_symmetric`.

What the mirror does to an example, in the side to move's coordinates (files are never flipped by the
perspective change, so the file axis is the last axis of every array)::

    input planes   file axis reversed; plane 18 (light squares) recomputed: a square's colour
                   changes under a mirror when the width is even (6x6), not when it is odd (5x5)
    policy, legal  file axis reversed and the planes permuted (MIRROR_PLANES):
                   queen-like directions N NE E SE S SW W NW -> N NW W SW S SE E NE, same distance
                   knight jump (df, dr) -> (-df, dr)
                   under- and king promotions (left, forward, right) -> (right, forward, left)

The colour filters of monochromatic and bichromatic judge a move by the parity of its displacement
``|df| + |dr|``, which a mirror keeps, so they stay symmetric even on a board of even width where the
mirror swaps square colours (the colour plane is recomputed, not flipped, for that reason).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np
import torch
from torch import Tensor

from mmc.games.chess.actions import MAX_REACH, NUM_POLICY_PLANES, move_type
from mmc.games.chess.board import DIRECTIONS, KNIGHT_JUMPS, LIGHT_SQUARES_PLANE, WHITE_TO_MOVE_PLANE
from mmc.games.chess.variants import CaptureRule, CheckRule, EndRule, MoveFilter, PieceType, Variant, get_variant

__all__ = [
    "MIRROR_PLANES",
    "check_mirror_symmetric",
    "is_mirror_symmetric",
    "mirror",
    "mirror_batch",
    "symmetries",
]

# Rule hooks whose effect does not depend on the side of the board: captures (atomic explodes all 8
# neighbours), royalty and the end rules never name a file, and the colour filters look at displacement
# parity. A hook value added later (castling, say) is not symmetric until it is listed here.
_SYMMETRIC_HOOKS: dict[str, frozenset[object]] = {
    "capture": frozenset({CaptureRule.REPLACE, CaptureRule.ATOMIC, CaptureRule.RIFLE}),
    "move_filter": frozenset({MoveFilter.NONE, MoveFilter.SAME_COLOUR, MoveFilter.OPPOSITE_COLOUR}),
    "check": frozenset({CheckRule.ROYAL, CheckRule.NONE}),
    "end": frozenset({EndRule.NONE, EndRule.KING_LOST, EndRule.EXTINCTION}),
}


def _mirror_planes() -> np.ndarray:
    """``int64[NUM_POLICY_PLANES]``: plane ``p`` of the mirrored policy is plane ``MIRROR_PLANES[p]`` of the original.

    Derived from the engine's own plane numbering (``mmc.games.chess.actions.move_type``): every move displacement
    ``(df, dr)`` (with its promotion) and its mirror ``(-df, dr)`` must land on planes that pair up one to one.
    """
    moves: list[tuple[int, int, PieceType | None]] = []
    for df, dr in DIRECTIONS:
        moves += [(k * df, k * dr, None) for k in range(1, MAX_REACH + 1)]
    moves += [(df, dr, None) for df, dr in KNIGHT_JUMPS]
    for promotion in (PieceType.KNIGHT, PieceType.BISHOP, PieceType.ROOK, PieceType.KING):
        moves += [(df, 1, promotion) for df in (-1, 0, 1)]
    source = np.full(NUM_POLICY_PLANES, -1, dtype=np.int64)
    for df, dr, piece in moves:
        _, plane = move_type(df, dr, piece, MAX_REACH)
        _, mirrored = move_type(-df, dr, piece, MAX_REACH)
        if source[mirrored] not in (-1, plane):
            raise AssertionError(f"policy planes {source[mirrored]} and {plane} both mirror onto {mirrored}")
        source[mirrored] = plane
    if sorted(source.tolist()) != list(range(NUM_POLICY_PLANES)):
        raise AssertionError(f"the mirror of the policy planes is not a permutation: {source.tolist()}")
    return source


MIRROR_PLANES = _mirror_planes()
MIRROR_PLANES.flags.writeable = False
_MIRROR_INDEX = torch.tensor(MIRROR_PLANES.tolist(), dtype=torch.long)


def is_mirror_symmetric(variant: str | Variant) -> bool:
    """Whether the variant's rules are unchanged by a left-right mirror of the board (every variant of the spec but
    chess, whose castling tells the king's side from the queen's)."""
    v = get_variant(variant)
    return not v.castling and all(getattr(v, hook) in values for hook, values in _SYMMETRIC_HOOKS.items())


def check_mirror_symmetric(variants: Iterable[str | Variant]) -> None:
    """``ValueError`` naming the first variant whose rules are not mirror-symmetric."""
    for variant in variants:
        if not is_mirror_symmetric(variant):
            name = get_variant(variant).name
            raise ValueError(f"variant {name} is not left-right symmetric: its examples cannot be mirrored")


def _light_squares(height: int, width: int, white_to_move: bool) -> np.ndarray:
    """``float32[H, W]``: 1 on light squares (``rank + file`` odd, a1 dark) in the mover's coordinates."""
    rank = np.arange(height)[:, None] if white_to_move else height - 1 - np.arange(height)[:, None]
    return ((rank + np.arange(width)[None, :]) % 2).astype(np.float32)


def mirror(planes: np.ndarray, policy: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The arrays of the mirrored positions: ``planes`` ``[N, NUM_PLANES, H, W]``, ``policy`` and ``legal``
    ``[N, NUM_POLICY_PLANES, H, W]`` as the module docstring describes. Checking the variants is the caller's job
    (:func:`check_mirror_symmetric`). An involution: mirroring twice gives the arrays back.
    """
    height, width = planes.shape[2:]
    mirrored = np.ascontiguousarray(planes[..., ::-1])
    white = planes[:, WHITE_TO_MOVE_PLANE, 0, 0] > 0.5
    mirrored[:, LIGHT_SQUARES_PLANE] = np.where(
        white[:, None, None], _light_squares(height, width, True), _light_squares(height, width, False)
    )
    return (
        mirrored,
        np.ascontiguousarray(policy[:, MIRROR_PLANES, :, ::-1]),
        np.ascontiguousarray(legal[:, MIRROR_PLANES, :, ::-1]),
    )


def mirror_batch(planes: Tensor, policy: Tensor, legal: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """:func:`mirror` on a batch of tensors (any device), for augmenting inside the training loop.

    ``planes`` ``float32[B, NUM_PLANES, H, W]``, ``policy`` ``float32[B, NUM_POLICY_PLANES, H, W]``, ``legal``
    ``bool[B, NUM_POLICY_PLANES, H, W]`` -> the same, mirrored. Checking the variants is the caller's job
    (:func:`check_mirror_symmetric`): tensors do not carry them.
    """
    height, width = planes.shape[2:]
    light = torch.as_tensor(
        np.stack([_light_squares(height, width, False), _light_squares(height, width, True)]), device=planes.device
    )
    mirrored = planes.flip(-1)
    white = (planes[:, WHITE_TO_MOVE_PLANE, 0, 0] > 0.5).long()
    mirrored[:, LIGHT_SQUARES_PLANE] = light[white]
    index = _MIRROR_INDEX.to(policy.device)
    return mirrored, policy.index_select(1, index).flip(-1), legal.index_select(1, index).flip(-1)


def symmetries(variants: Sequence[str]) -> list[Callable[[Tensor, Tensor, Tensor], tuple[Tensor, Tensor, Tensor]]]:
    """The chess game's ``symmetries`` hook: ``[mirror_batch]`` when every one of ``variants`` is mirror-symmetric
    (:func:`is_mirror_symmetric`), else none."""
    return [mirror_batch] if all(map(is_mirror_symmetric, variants)) else []
