"""Game records: one finished game as data, and a PGN-like text file of many.

A file holds games separated by blank lines. Each game is a block of header tags, a blank line, and the
moves in the game's move text (UCI in chess) separated by spaces, ending with the result (as PGN)::

    [Variant "gardner"]
    [White "greedy"]
    [Black "random"]
    [Seed "4017"]
    [FEN "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1"]
    [OpeningPlies "4"]
    [MaxPlies "150"]
    [Result "1-0"]
    [Termination "checkmate"]

    b2b3 d4d3 c2d3 ... 1-0

``FEN`` is the position the moves start from, in the family's position text; the first ``OpeningPlies`` moves
are the match's random opening. ``MaxPlies`` is the ply cap the game was played under (``replay`` needs it to
reproduce a ply-cap draw). The two players' tags are named after the family's players (``Game.players``: White
and Black in chess), the first player's first; the result is from the first player's view. Tag values escape
``\\`` and ``"`` with a backslash. Unknown tags are ignored.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmc.core.atomic import atomic_write
from mmc.games import Game, get_game

__all__ = [
    "RESULTS",
    "GameRecord",
    "RecordError",
    "format_records",
    "parse_records",
    "read_records",
    "replay",
    "write_records",
]

RESULTS = ("1-0", "0-1", "1/2-1/2")
"""PGN results: the first player (White in chess) won, the second won, draw."""

_TAG = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]$')
_REQUIRED = ("Variant", "Seed", "FEN", "Result", "Termination")


class RecordError(ValueError):
    """A malformed record file (the message names the file and line) or a record that does not replay."""


@dataclass(frozen=True)
class GameRecord:
    """One finished game. ``moves`` are the game's move texts from ``start_fen``; ``result`` is from the first
    player's view."""

    variant: str
    """Project variant id."""
    first: str
    """Name of the player who moved first (``Player.name``; White in chess)."""
    second: str
    """Name of the player who moved second."""
    seed: int | str
    """What the game's random opening was drawn from (the arena's per-pair seed)."""
    start_fen: str
    """The position before the first move (the family's position text)."""
    moves: tuple[str, ...]
    """Every move as the family's move text (UCI in chess), the random opening included."""
    result: str
    """``"1-0"``, ``"0-1"`` or ``"1/2-1/2"``."""
    termination: str
    """Why it ended: one of the family's ``Game.terminations``, such as ``"checkmate"``."""
    opening_plies: int = 0
    """How many of the first ``moves`` were the random opening rather than the players' choices."""
    max_plies: int = 150
    """The ply cap the game was played under."""


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def format_records(records: Iterable[GameRecord]) -> str:
    """The records as the text of a record file (see the module docstring)."""
    blocks = []
    for r in records:
        first, second = _player_tags(get_game(r.variant))
        tags = {
            "Variant": r.variant,
            first: r.first,
            second: r.second,
            "Seed": str(r.seed),
            "FEN": r.start_fen,
            "OpeningPlies": str(r.opening_plies),
            "MaxPlies": str(r.max_plies),
            "Result": r.result,
            "Termination": r.termination,
        }
        header = "\n".join(f'[{key} "{_escape(value)}"]' for key, value in tags.items())
        blocks.append(f"{header}\n\n{' '.join((*r.moves, r.result))}\n")
    return "\n".join(blocks)


def _player_tags(game: Game) -> tuple[str, str]:
    """The tags naming the first and the second player: ``White`` and ``Black`` in chess."""
    first, second = game.players
    return first.capitalize(), second.capitalize()


def write_records(records: Iterable[GameRecord], path: str | os.PathLike[str]) -> Path:
    """Write ``records`` to ``path`` atomically (a temporary file beside it, then renamed over it); return the path."""
    data = format_records(records).encode("utf-8")
    return atomic_write(path, lambda file: file.write(data))


def _int_tag(tags: dict[str, str], key: str, default: int, where: str) -> int:
    try:
        value = int(tags.get(key, default))
    except ValueError:
        raise RecordError(f"{where}: tag {key} must be an integer, got {tags[key]!r}") from None
    if value < 0:
        raise RecordError(f"{where}: tag {key} must be >= 0, got {value}")
    return value


def _record(tags: dict[str, str], tokens: list[tuple[str, int]], where: str, source: str) -> GameRecord:
    """Validate one game's tags and movetext ``(token, line)`` pairs (the result last) into a record.

    Errors name ``where`` (``file:line`` of the game's first tag) or, for a bad move, that move's line.
    """
    if "Variant" not in tags:
        raise RecordError(f"{where}: game is missing tag(s) Variant")
    try:
        game = get_game(tags["Variant"])
    except ValueError as error:
        raise RecordError(f"{where}: {error}") from None
    first, second = _player_tags(game)
    missing = [key for key in (*_REQUIRED[:1], first, second, *_REQUIRED[1:]) if key not in tags]
    if missing:
        raise RecordError(f"{where}: game is missing tag(s) {', '.join(missing)}")
    result, termination = tags["Result"], tags["Termination"]
    if result not in RESULTS:
        raise RecordError(f"{where}: Result must be one of {', '.join(RESULTS)}, got {result!r}")
    if termination not in game.terminations:
        known = ", ".join(game.terminations)
        raise RecordError(f"{where}: unknown Termination {termination!r} (known: {known})")
    (last, last_line), moves = tokens[-1], tokens[:-1]
    if last != result:
        raise RecordError(f"{source}:{last_line}: the moves end with {last!r}, but the Result tag says {result!r}")
    for token, line in moves:
        try:
            game.parse_move(token)
        except ValueError as error:
            raise RecordError(f"{source}:{line}: {error}") from None
    max_plies = _int_tag(tags, "MaxPlies", game.default_max_plies, where)
    try:
        game.from_text(tags["Variant"], tags["FEN"], max_plies=max(max_plies, 1))
    except ValueError as error:
        raise RecordError(f"{where}: {error}") from None
    seed: int | str = int(tags["Seed"]) if re.fullmatch(r"-?\d+", tags["Seed"]) else tags["Seed"]
    return GameRecord(
        tags["Variant"],
        tags[first],
        tags[second],
        seed,
        tags["FEN"],
        tuple(token for token, _ in moves),
        result,
        termination,
        _int_tag(tags, "OpeningPlies", 0, where),
        max_plies,
    )


def parse_records(text: str, source: str = "<text>") -> list[GameRecord]:
    """The games in a record file's ``text``; :class:`RecordError` names ``source`` and the bad line."""
    records: list[GameRecord] = []
    tags: dict[str, str] = {}
    tokens: list[tuple[str, int]] = []
    start = 0  # line of the current game's first tag
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("["):
            if tokens:
                raise RecordError(f"{source}:{number}: tag among the moves, before the game's result")
            match = _TAG.match(line)
            if match is None:
                raise RecordError(f'{source}:{number}: malformed tag {line!r} (expected [Name "value"])')
            start = start if tags else number
            tags[match.group(1)] = _unescape(match.group(2))
            continue
        if not tags:
            raise RecordError(f"{source}:{number}: moves without the game's tags before them")
        tokens += [(token, number) for token in line.split()]
        if tokens[-1][0] in (*RESULTS, "*"):
            records.append(_record(tags, tokens, f"{source}:{start}", source))
            tags, tokens = {}, []
    if tags or tokens:
        raise RecordError(f"{source}:{start}: the last game has no result at the end of its moves")
    return records


def read_records(path: str | os.PathLike[str]) -> list[GameRecord]:
    """The games in a record file; ``OSError`` if unreadable, :class:`RecordError` naming the line if malformed."""
    return parse_records(Path(path).read_text(encoding="utf-8"), str(path))


def replay(record: GameRecord) -> list[Any]:
    """Every position of the game: the start, then one per move (``len(record.moves) + 1`` states).

    Raises :class:`RecordError` if a move is illegal, the game ends before its last move, or the final
    position's outcome (result and termination) disagrees with the record.
    """
    game = get_game(record.variant)
    state = game.from_text(record.variant, record.start_fen, max_plies=max(record.max_plies, 1))
    states = [state]
    for ply, text in enumerate(record.moves, start=1):
        if game.outcome(state) is not None:
            raise RecordError(f"game is over before move {ply} ({text}): {game.outcome(state)}")
        try:
            state = game.apply_move(state, game.parse_move(text))
        except ValueError as error:
            raise RecordError(f"move {ply}: {error}") from None
        states.append(state)
    final = game.outcome(state)
    if final is None:
        raise RecordError(f"game is not over after its {len(record.moves)} moves, but the record says {record.result}")
    if (final.result(), final.termination.value) != (record.result, record.termination):
        raise RecordError(
            f"the moves end in {final.result()} ({final.termination.value}), "
            f"but the record says {record.result} ({record.termination})"
        )
    return states
