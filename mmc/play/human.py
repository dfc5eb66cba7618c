"""A person at a terminal as a :class:`~mmc.play.players.Player`: the board, the legal moves, a typed UCI move.

Input and output are injected (``input_fn``, ``output``) so that tests script a game without a terminal.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TextIO

import numpy as np

from mmc.engine import Color, Move, State, apply_move, legal_moves, render

__all__ = ["HumanPlayer", "Resign"]

PROMPT = "your move (UCI like b2b3, 'quit' to resign): "


class Resign(Exception):
    """The person typed ``quit`` (or closed the input): they resign the game."""


class HumanPlayer:
    """Asks a person for each move: shows the board (their own view in dark chess) and the legal moves in UCI.

    Illegal or malformed input is answered with a message and the prompt again; ``quit``, ``resign`` or
    the end of input raises :class:`Resign`. ``output`` defaults to the ``sys.stdout`` of the moment of
    each write (so that a redirected stdout is honoured). The opponent's last move is named when it can
    be found from the position this player left.
    """

    name: str = "human"

    def __init__(self, input_fn: Callable[[str], str] = input, output: TextIO | None = None) -> None:
        self.input_fn = input_fn
        self._output = output
        self._left: State | None = None

    @property
    def output(self) -> TextIO:
        return self._output if self._output is not None else sys.stdout

    def _say(self, text: str) -> None:
        self.output.write(text + "\n")
        self.output.flush()

    def play(self, states: Sequence[State], rng: np.random.Generator) -> list[Move]:
        """Ask for one move per state, in order (``rng`` is unused)."""
        return [self._ask(state) for state in states]

    def _opponent_move(self, state: State) -> Move | None:
        if self._left is None or self._left.variant_name != state.variant_name:
            return None
        return next((m for m in legal_moves(self._left) if apply_move(self._left, m) == state), None)

    def _ask(self, state: State) -> Move:
        moves = legal_moves(state)
        side = "White" if state.turn is Color.WHITE else "Black"
        last = self._opponent_move(state)
        viewer = state.turn if state.variant.hidden_information else None
        self._say("")
        if last is not None and viewer is None:
            self._say(f"opponent played {last.uci()}")
        self._say(render(state, coordinates=True, viewer=viewer))
        self._say(f"{side} to move; legal moves: {' '.join(sorted(m.uci() for m in moves))}")
        while True:
            try:
                text = self.input_fn(PROMPT).strip().lower()
            except EOFError:
                raise Resign("end of input") from None
            if text in ("quit", "resign", "exit"):
                raise Resign(text)
            try:
                move = Move.from_uci(text)
            except ValueError as error:
                self._say(str(error))
                continue
            if move in moves:
                self._left = apply_move(state, move)
                return move
            self._say(f"{text} is not legal here; legal moves: {' '.join(sorted(m.uci() for m in moves))}")
