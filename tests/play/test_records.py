"""Game records: the text format round-trips, replay checks moves and results, malformed files name the line."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from mmc.games.chess import outcome
from mmc.play import (
    GameRecord,
    GreedyPlayer,
    RandomPlayer,
    RecordError,
    format_records,
    parse_records,
    play_match,
    read_records,
    replay,
    write_records,
)

START = "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1"
# Two plies under a two-ply cap: the shortest finished game.
GAME = """[Variant "gardner"]
[White "greedy"]
[Black "random"]
[Seed "17"]
[FEN "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1"]
[Result "1/2-1/2"]
[Termination "ply-cap"]
[MaxPlies "2"]

c2c3 d4d3 1/2-1/2
"""


def records(variant: str = "gardner", games: int = 4) -> list[GameRecord]:
    return play_match(GreedyPlayer(), RandomPlayer(), variant, games, np.random.default_rng(0)).records


def test_write_read_round_trip(tmp_path: Path) -> None:
    games = records() + records("los_alamos", 2)
    path = write_records(games, tmp_path / "games.pgn")
    assert read_records(path) == games
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind


def test_text_format_is_pgn_like() -> None:
    record = records(games=1)[0]
    text = format_records([record, record])
    first = text.split("\n\n")[0].splitlines()
    assert first[:5] == [
        '[Variant "gardner"]',
        '[White "greedy"]',
        '[Black "random"]',
        f'[Seed "{record.seed}"]',
        f'[FEN "{START}"]',
    ]
    assert f'[Result "{record.result}"]' in first
    assert f'[Termination "{record.termination}"]' in first
    movetext = text.split("\n\n")[1]
    assert movetext == " ".join((*record.moves, record.result))
    assert text.count("[Variant ") == 2


def test_names_with_quotes_and_text_seeds_round_trip() -> None:
    record = dataclasses.replace(records(games=1)[0], first='net:"a\\b".pt', seed="stage/gen-3")
    assert parse_records(format_records([record])) == [record]


def test_replay_reproduces_the_final_position() -> None:
    for record in records("atomic", 4) + records("dark", 2):
        states = replay(record)
        assert len(states) == len(record.moves) + 1
        assert states[0].fen() == record.start_fen
        final = outcome(states[-1])
        assert final is not None
        assert (final.result(), final.termination.value) == (record.result, record.termination)
    (short,) = parse_records(GAME)
    assert replay(short)[-1].fen() == "rnbqk/ppp1p/2Pp1/PP1PP/RNBQK w - - 0 2"


def test_replay_rejects_illegal_moves_and_wrong_results() -> None:
    (record,) = parse_records(GAME)
    with pytest.raises(RecordError, match="move 2: illegal move d4d2"):
        replay(dataclasses.replace(record, moves=("c2c3", "d4d2")))
    with pytest.raises(RecordError, match=r"end in 1/2-1/2 \(ply-cap\), but the record says 1-0 \(checkmate\)"):
        replay(dataclasses.replace(record, result="1-0", termination="checkmate"))
    with pytest.raises(RecordError, match="not over after its 1 moves"):
        replay(dataclasses.replace(record, moves=("c2c3",)))
    with pytest.raises(RecordError, match="game is over before move 3"):
        replay(dataclasses.replace(record, moves=("c2c3", "d4d3", "b2b3")))


@pytest.mark.parametrize(
    ("edit", "line", "message"),
    [
        (lambda t: t.replace('[Seed "17"]', "[Seed 17]"), 4, "malformed tag '[Seed 17]'"),
        (lambda t: t.replace("d4d3", "d4x3"), 10, "not a move in UCI notation: 'd4x3'"),
        (lambda t: t.replace('[Seed "17"]\n', ""), 1, "game is missing tag(s) Seed"),
        (lambda t: t.replace("d3 1/2-1/2", "d3 1-0"), 10, "the moves end with '1-0'"),
        (lambda t: t.replace("d3 1/2-1/2", "d3"), 1, "the last game has no result"),
        (lambda t: t.replace('"ply-cap"', '"timeout"'), 1, "unknown Termination 'timeout'"),
        (lambda t: t.replace('"gardner"', '"shogi"'), 1, "unknown variant 'shogi'"),
        (lambda t: t.replace('[MaxPlies "2"]', '[MaxPlies "two"]'), 1, "tag MaxPlies must be an integer"),
        (lambda t: "c2c3 1-0\n" + t, 1, "moves without the game's tags"),
    ],
)
def test_malformed_file_error_names_the_file_and_line(
    tmp_path: Path, edit: Callable[[str], str], line: int, message: str
) -> None:
    path = tmp_path / "games.pgn"
    path.write_text(GAME + "\n" + edit(GAME))  # a good game, a blank line, then the bad one
    offset = GAME.count("\n") + 1
    with pytest.raises(RecordError) as error:
        read_records(path)
    assert f"{path}:{line + offset}: {message}" in str(error.value)


def test_reading_a_missing_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_records(tmp_path / "none.pgn")
