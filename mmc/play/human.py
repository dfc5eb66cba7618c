"""A person at a terminal as a :class:`~mmc.play.players.Player`: the board, the legal moves, a typed move (the
game's move text: UCI in chess).

Input and output are injected (``input_fn``, ``output``) so that tests script a game without a terminal.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import numpy as np

from mmc.games import FIRST, apply_move, game_of, legal_moves

__all__ = ["HumanPlayer", "Resign"]

PROMPT = "your move ('quit' to resign): "


class Resign(Exception):
    """The person typed ``quit`` (or closed the input): they resign the game."""


class HumanPlayer:
    """Asks a person for each move: shows the board (their own view in dark chess) and the legal moves.

    Illegal or malformed input is answered with a message and the prompt again; ``quit``, ``resign`` or
    the end of input raises :class:`Resign`. ``output`` defaults to the ``sys.stdout`` of the moment of
    each write (so that a redirected stdout is honoured). The opponent's last move is named when it can
    be found from the position this player left.
    """

    name: str = "human"

    def __init__(self, input_fn: Callable[[str], str] = input, output: TextIO | None = None) -> None:
        self.input_fn = input_fn
        self._output = output
        self._left: Any = None

    @property
    def output(self) -> TextIO:
        return self._output if self._output is not None else sys.stdout

    def _say(self, text: str) -> None:
        self.output.write(text + "\n")
        self.output.flush()

    def play(self, states: Sequence[Any], rng: np.random.Generator) -> list[Any]:
        """Ask for one move per state, in order (``rng`` is unused)."""
        return [self._ask(state) for state in states]

    def _opponent_move(self, state: Any) -> Any:
        if self._left is None or self._left.variant_name != state.variant_name:
            return None
        return next((m for m in legal_moves(self._left) if apply_move(self._left, m) == state), None)

    def _ask(self, state: Any) -> Any:
        game = game_of(state)
        moves = legal_moves(state)
        side = game.players[0 if state.turn == FIRST else 1].capitalize()
        last = self._opponent_move(state)
        viewer = state.turn if game.variants[state.variant_name].hidden_information else None
        self._say("")
        if last is not None and viewer is None:
            self._say(f"opponent played {game.move_text(last)}")
        self._say(game.render(state, coordinates=True, viewer=viewer))
        legal = " ".join(sorted(map(game.move_text, moves)))
        self._say(f"{side} to move; legal moves: {legal}")
        while True:
            try:
                text = self.input_fn(PROMPT).strip().lower()
            except EOFError:
                raise Resign("end of input") from None
            if text in ("quit", "resign", "exit"):
                raise Resign(text)
            try:
                move = game.parse_move(text)
            except ValueError as error:
                self._say(str(error))
                continue
            if move in moves:
                self._left = apply_move(state, move)
                return move
            self._say(f"{text} is not legal here; legal moves: {legal}")
