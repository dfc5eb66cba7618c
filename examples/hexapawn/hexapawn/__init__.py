"""Hexapawn and Octapawn as a meta-minichess game family, installed from their own package (README.md)."""

from hexapawn.game import GAME

__all__ = ["GAME"]
