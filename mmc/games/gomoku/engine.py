"""How Fairy-Stockfish plays the k-in-a-row family (the game's ``engine``, for ``fairy:nodes=N`` players).

The engine (GPL-3, a separate program: ``mmc.play.fairy``) plays the freestyle and gravity variants that fit its
board limit of 12 files x 10 ranks, from the definitions in ``engine-variants.ini`` beside this module: a stone is
an immobile piece dropped from the pocket, ``connectN = k`` ends the game with k or more in a row, ``dropOnTop``
is gravity. The engine's first player is "white": our black stones are its ``P``, our white stones its ``p``, and
its moves are drops, ``P@d5``. It cannot play ``exact_9x9`` and ``caro_9x9`` (no such rule) nor the 15x15 board.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from mmc.games.gomoku.state import State
from mmc.games.gomoku.text import board_text, parse_cell
from mmc.games.gomoku.variants import MIN_SIDE, NAMED, VARIANTS, Rule, Variant, generated_id, get_variant
from mmc.games.protocol import EngineBinding

__all__ = [
    "ENGINE",
    "MAX_ENGINE_HEIGHT",
    "MAX_ENGINE_WIDTH",
    "VARIANT_FILE",
    "engine_fen",
    "engine_plays",
    "parse_engine_move",
    "start_board",
    "variant_config",
    "write_variant_file",
]

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


MAX_ENGINE_WIDTH, MAX_ENGINE_HEIGHT = 12, 10
"""The largest board of the Debian build (files, ranks)."""


def engine_plays(variant: str | Variant) -> bool:
    """Whether the engine plays ``variant``: a freestyle or gravity rule on a board within its limit."""
    v = get_variant(variant)
    return v.rule is Rule.FREESTYLE and v.width <= MAX_ENGINE_WIDTH and v.height <= MAX_ENGINE_HEIGHT


class _EngineVariants(Mapping[str, str]):
    """Variant id -> the engine's name (the same id) for every variant the engine plays: iterating lists the named
    ones; a generated id is looked up."""

    def __getitem__(self, name: str) -> str:
        try:
            plays = name in VARIANTS and engine_plays(name)
        except TypeError:
            plays = False
        if not plays:
            raise KeyError(name)
        return name

    def __iter__(self) -> Iterator[str]:
        return (name for name in NAMED if engine_plays(name))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _generated_engine_ids() -> Iterator[str]:
    """Every generated id the engine plays: freestyle, then gravity; by width, height and k."""
    for gravity in (False, True):
        for width in range(MIN_SIDE, MAX_ENGINE_WIDTH + 1):
            for height in range(MIN_SIDE, MAX_ENGINE_HEIGHT + 1):
                for k in range(3, max(width, height) + 1):
                    yield generated_id(width, height, k, gravity=gravity)


_HEADER = """\
# The k-in-a-row variants that Fairy-Stockfish plays (freestyle lines, gravity), for the Debian package
# fairy-stockfish 11.1 over UCI and for pyffish (the tests' oracle):
#   setoption name VariantPath value engine-variants.ini   (before UCI_Variant)
# A stone is an immobile piece dropped from the pocket (the engine's "white" is our black, the first player);
# connectN ends the game with k in a row (or more), dropOnTop is gravity. Boards up to 12 files x 10 ranks.
# Written by mmc.games.gomoku.engine.write_variant_file() from variant_config(): edit those, not this file.
# The named variants of the rule book first, then every generated id that fits (mnk_WxH_kK, grav_WxH_kK).

[tictactoe]
maxRank = 3
maxFile = 3
immobile = p
startFen = 3/3/3[PPPPPpppp] w - - 0 1
pieceDrops = true
doubleStep = false
castling = false
stalemateValue = draw
immobilityIllegal = false
connectN = 3
"""


def _section(variant: Variant) -> str:
    lines = [
        f"[{variant.name}:tictactoe]",
        f"maxRank = {variant.height}",
        f"maxFile = {variant.width}",
        f"startFen = {start_board(variant.name)} w - - 0 1",
        f"connectN = {variant.k}",
    ]
    if variant.gravity:
        lines.append("dropOnTop = true")
    return "\n".join(lines) + "\n"


def variant_config() -> str:
    """The text of ``engine-variants.ini``: every variant the engine plays, each a section that inherits the
    tic-tac-toe base (drops of immobile stones)."""
    names = [name for name in NAMED if name != "tictactoe" and engine_plays(name)] + list(_generated_engine_ids())
    return "\n".join([_HEADER, *(_section(get_variant(name)) for name in names)])


ENGINE = EngineBinding(
    variants=_EngineVariants(),
    variant_file=str(VARIANT_FILE),
    start_board=start_board,
    position=engine_fen,
    parse_move=parse_engine_move,
)
"""Fairy-Stockfish plays tictactoe, gomoku_6x6, gomoku_8x8, gomoku_9x9, connect4 and every generated variant within
its board limit (``engine-variants.ini``)."""


def write_variant_file() -> Path:
    """Rewrite ``engine-variants.ini`` from :func:`variant_config` (after a change to the family's variants)."""
    VARIANT_FILE.write_text(variant_config())
    return VARIANT_FILE
