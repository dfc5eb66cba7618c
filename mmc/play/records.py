"""Game records: one finished game as data, and a PGN-like text file of many.

A file holds games separated by blank lines. Each game is a block of header tags, a blank line, and the
moves in UCI separated by spaces, ending with the result (as PGN)::

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

``FEN`` is the position the moves start from; the first ``OpeningPlies`` moves are the match's random
opening. ``MaxPlies`` is the ply cap the game was played under (``replay`` needs it to reproduce a
ply-cap draw). Tag values escape ``\\`` and ``"`` with a backslash. Unknown tags are ignored.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mmc.atomic import atomic_write
from mmc.engine import Move, State, Termination, apply_move, from_fen, outcome
from mmc.engine.state import DEFAULT_MAX_PLIES

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
"""PGN results: White won, Black won, draw."""

_TAG = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]$')
_REQUIRED = ("Variant", "White", "Black", "Seed", "FEN", "Result", "Termination")


class RecordError(ValueError):
    """A malformed record file (the message names the file and line) or a record that does not replay."""


@dataclass(frozen=True)
class GameRecord:
    """One finished game. ``moves`` are UCI strings from ``start_fen``; ``result`` is from White's view."""

    variant: str
    """Project variant id."""
    white: str
    """Name of the player with White (``Player.name``)."""
    black: str
    """Name of the player with Black."""
    seed: int | str
    """What the game's random opening was drawn from (the arena's per-pair seed)."""
    start_fen: str
    """The position before the first move."""
    moves: tuple[str, ...]
    """Every move in UCI, the random opening included."""
    result: str
    """``"1-0"``, ``"0-1"`` or ``"1/2-1/2"``."""
    termination: str
    """Why it ended: a :class:`~mmc.engine.Termination` value such as ``"checkmate"``."""
    opening_plies: int = 0
    """How many of the first ``moves`` were the random opening rather than the players' choices."""
    max_plies: int = DEFAULT_MAX_PLIES
    """The ply cap the game was played under."""


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def format_records(records: Iterable[GameRecord]) -> str:
    """The records as the text of a record file (see the module docstring)."""
    blocks = []
    for r in records:
        tags = {
            "Variant": r.variant,
            "White": r.white,
            "Black": r.black,
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
    missing = [key for key in _REQUIRED if key not in tags]
    if missing:
        raise RecordError(f"{where}: game is missing tag(s) {', '.join(missing)}")
    result, termination = tags["Result"], tags["Termination"]
    if result not in RESULTS:
        raise RecordError(f"{where}: Result must be one of {', '.join(RESULTS)}, got {result!r}")
    if termination not in {t.value for t in Termination}:
        known = ", ".join(t.value for t in Termination)
        raise RecordError(f"{where}: unknown Termination {termination!r} (known: {known})")
    (last, last_line), moves = tokens[-1], tokens[:-1]
    if last != result:
        raise RecordError(f"{source}:{last_line}: the moves end with {last!r}, but the Result tag says {result!r}")
    for token, line in moves:
        try:
            Move.from_uci(token)
        except ValueError as error:
            raise RecordError(f"{source}:{line}: {error}") from None
    max_plies = _int_tag(tags, "MaxPlies", DEFAULT_MAX_PLIES, where)
    try:
        from_fen(tags["Variant"], tags["FEN"], max_plies=max(max_plies, 1))
    except ValueError as error:
        raise RecordError(f"{where}: {error}") from None
    seed: int | str = int(tags["Seed"]) if re.fullmatch(r"-?\d+", tags["Seed"]) else tags["Seed"]
    return GameRecord(
        tags["Variant"],
        tags["White"],
        tags["Black"],
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


def replay(record: GameRecord) -> list[State]:
    """Every position of the game: the start, then one per move (``len(record.moves) + 1`` states).

    Raises :class:`RecordError` if a move is illegal, the game ends before its last move, or the final
    position's outcome (result and termination) disagrees with the record.
    """
    state = from_fen(record.variant, record.start_fen, max_plies=max(record.max_plies, 1))
    states = [state]
    for ply, text in enumerate(record.moves, start=1):
        if outcome(state) is not None:
            raise RecordError(f"game is over before move {ply} ({text}): {outcome(state)}")
        try:
            state = apply_move(state, Move.from_uci(text))
        except ValueError as error:
            raise RecordError(f"move {ply}: {error}") from None
        states.append(state)
    final = outcome(state)
    if final is None:
        raise RecordError(f"game is not over after its {len(record.moves)} moves, but the record says {record.result}")
    if (final.result(), final.termination.value) != (record.result, record.termination):
        raise RecordError(
            f"the moves end in {final.result()} ({final.termination.value}), "
            f"but the record says {record.result} ({record.termination})"
        )
    return states
