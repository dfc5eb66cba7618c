"""How Fairy-Stockfish plays the k-in-a-row family (the game's ``engine``, for ``fairy:nodes=N`` players).

The engine (GPL-3, a separate program: ``mmc.play.fairy``) plays the freestyle and gravity variants that fit its
board limit of 12 files x 10 ranks, from the definitions in ``engine-variants.ini`` beside this module: a stone is
an immobile piece dropped from the pocket, ``connectN = k`` ends the game with k or more in a row, ``dropOnTop``
is gravity. The engine's first player is "white": our black stones are its ``P``, our white stones its ``p``, and
its moves are drops, ``P@d5``. It cannot play ``exact_9x9`` and ``caro_9x9`` (no such rule) nor the 15x15 board.
"""

from __future__ import annotations

from pathlib import Path

from mmc.games.gomoku.state import State
from mmc.games.gomoku.text import board_text, parse_cell
from mmc.games.gomoku.variants import Variant, get_variant
from mmc.games.protocol import EngineBinding

__all__ = ["ENGINE", "VARIANT_FILE", "engine_fen", "parse_engine_move", "start_board"]

VARIANT_FILE = Path(__file__).with_name("engine-variants.ini")
"""The engine's definitions of the variants it plays (also the tests' ``pyffish`` oracle config)."""


def _board(board: bytes, variant: Variant) -> str:
    """The engine's board field (no pocket): the position text's board with ``P`` for black and ``p`` for white."""
    return board_text(board, variant).translate(_PIECES)


_PIECES = str.maketrans("xo", "Pp")


def _pockets(board: bytes, variant: Variant) -> str:
    """The stones each player still has in hand: black starts with half the cells rounded up, white rounded down."""
    black = sum(1 for byte in board[:240] if byte == 1)
    white = sum(1 for byte in board[:240] if byte == 255)
    return "P" * ((variant.cells + 1) // 2 - black) + "p" * (variant.cells // 2 - white)


def start_board(variant: str) -> str:
    """The board field of the engine's start FEN: the empty board and the full pockets."""
    v = get_variant(variant)
    empty = bytes(240)
    return f"{_board(empty, v)}[{_pockets(empty, v)}]"


def engine_fen(state: State) -> str:
    """``state`` as the engine's FEN: board and pockets, ``w`` when black (its white) is to move, no castling or en
    passant, the move number from the ply."""
    v = state.variant
    side = "w" if state.turn > 0 else "b"
    return f"{_board(state.board, v)}[{_pockets(state.board, v)}] {side} - - 0 {1 + state.ply // 2}"


def parse_engine_move(state: State, text: str) -> int:
    """The cell of the engine's drop ``P@d5``; ``ValueError`` if ``text`` is no drop."""
    piece, at, cell = text.partition("@")
    if not at or piece not in ("P", "p"):
        raise ValueError(f"not a Fairy-Stockfish drop: {text!r} (expected like 'P@d5')")
    return parse_cell(cell)


ENGINE = EngineBinding(
    variants={name: name for name in ("tictactoe", "gomoku_6x6", "gomoku_8x8", "gomoku_9x9", "connect4")},
    variant_file=str(VARIANT_FILE),
    start_board=start_board,
    position=engine_fen,
    parse_move=parse_engine_move,
)
"""Fairy-Stockfish plays tictactoe, gomoku_6x6, gomoku_8x8, gomoku_9x9 and connect4 (``engine-variants.ini``)."""
