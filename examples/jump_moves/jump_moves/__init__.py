"""The jump game with one action per complete move (the family ``jump_moves``), installed from its own package over
the jump game's rules and kernels (README.md)."""

from jump_moves.game import GAME

__all__ = ["GAME"]
