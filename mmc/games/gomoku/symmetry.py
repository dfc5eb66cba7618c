"""Board symmetries of the k-in-a-row family (the game's ``symmetries``): training augmentation at no search cost.

Every input plane (``mmc.games.gomoku.observe``) and the policy plane (``mmc.games.gomoku.actions``) is a picture of
the board with no direction of its own: stones, the board's cells, the legal cells, the last stone, a constant. So a
symmetry of the rules moves every plane the same way, and the example of a transformed position is the transformed
example. Which symmetries the rules keep::

    square board, no gravity   the 8 symmetries of the square (Go's, as AlphaZero used them): the identity, three
                               rotations, the left-right and top-bottom mirrors, the two diagonal reflections
    gravity, or W != H         the left-right mirror only (gravity pulls to rank 1; a rotation changes the shape)

Arrays are ``[B, C, H, W]`` tensors (planes ``[B, NUM_PLANES, H, W]``, policy and legal ``[B, 1, H, W]``), ``H`` the
rank axis (rank 1 first), ``W`` the file axis.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from torch import Tensor

from mmc.games.gomoku.variants import get_variant

__all__ = ["MIRROR", "SQUARE", "Transform", "symmetries"]

Transform = Callable[[Tensor, Tensor, Tensor], tuple[Tensor, Tensor, Tensor]]


def _each(move: Callable[[Tensor], Tensor]) -> Transform:
    """The transform that moves the planes, the policy and the legal mask by the same board map ``move``."""

    def transform(planes: Tensor, policy: Tensor, legal: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        return move(planes).contiguous(), move(policy).contiguous(), move(legal).contiguous()

    transform.__name__ = move.__name__
    return transform


def mirror(x: Tensor) -> Tensor:
    """Files reversed: ``a`` <-> the last file."""
    return x.flip(-1)


def flip(x: Tensor) -> Tensor:
    """Ranks reversed: rank 1 <-> the top rank."""
    return x.flip(-2)


def rotate90(x: Tensor) -> Tensor:
    return x.rot90(1, (-2, -1))


def rotate180(x: Tensor) -> Tensor:
    return x.rot90(2, (-2, -1))


def rotate270(x: Tensor) -> Tensor:
    return x.rot90(3, (-2, -1))


def transpose(x: Tensor) -> Tensor:
    """Ranks and files swapped: ``b1`` <-> ``a2`` (the a1-h8 diagonal stays)."""
    return x.transpose(-2, -1)


def antitranspose(x: Tensor) -> Tensor:
    """The reflection in the other diagonal (a8-h1 on 8x8)."""
    return x.rot90(2, (-2, -1)).transpose(-2, -1)


MIRROR: tuple[Transform, ...] = (_each(mirror),)
"""The left-right mirror, which every variant keeps."""
SQUARE: tuple[Transform, ...] = tuple(
    _each(move) for move in (mirror, flip, rotate90, rotate180, rotate270, transpose, antitranspose)
)
"""The seven symmetries of the square other than the identity."""


def symmetries(variants: Sequence[str]) -> tuple[Transform, ...]:
    """The symmetries every one of ``variants`` keeps, the identity left out: :data:`SQUARE` when every board is
    square and without gravity, else :data:`MIRROR`."""
    boards = [get_variant(name) for name in variants]
    return SQUARE if all(v.width == v.height and not v.gravity for v in boards) else MIRROR
