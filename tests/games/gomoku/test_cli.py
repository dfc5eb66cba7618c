"""The ``mmc`` commands on the k-in-a-row family: variants, show, perft, match, replay, rate and play (with
Fairy-Stockfish as the opponent), and bad input as one line."""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

import pytest

from mmc.cli import main
from mmc.play.fairy import DEFAULT_BINARY

needs_engine = pytest.mark.skipif(shutil.which(DEFAULT_BINARY) is None, reason=f"{DEFAULT_BINARY} is not installed")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_variants_lists_the_family(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "variants")
    lines = out.splitlines()
    family = next(i for i, line in enumerate(lines) if line.startswith("gomoku: "))
    listed = [line.split()[:2] for line in lines[family + 1 : family + 9]]
    assert code == 0 and listed == [["tictactoe", "3x3"], ["gomoku_6x6", "6x6"], ["gomoku_8x8", "8x8"],
                                    ["gomoku_9x9", "9x9"], ["exact_9x9", "9x9"], ["caro_9x9", "9x9"],
                                    ["connect4", "6x7"], ["gomoku", "15x15"]]  # fmt: skip


def test_show_and_perft(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "tictactoe", "--position", "x1x/xox/ooo x")
    assert code == 0 and out.splitlines()[-1] == "game over: 0-1 (line)"
    assert out.splitlines()[0] == "3 ● · ●"
    code, out, _ = run(capsys, "perft", "gomoku_8x8", "--depth", "3")
    assert (code, out) == (0, "249984\n")
    code, out, _ = run(capsys, "perft", "connect4", "--position", "7/7/7/7/7/6x o", "--depth", "2", "--divide")
    assert code == 0 and out.splitlines()[0] == "a1: 7" and out.splitlines()[-1] == "49"


def test_a_perft_suite_reads_the_familys_texts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Tic-tac-toe's 127872 games that last all nine moves (of its 255168 games), Connect Four's 7^4."""
    suite = tmp_path / "suite.csv"
    suite.write_text("variant,position,depth,nodes\ntictactoe,3/3/3 x,9,127872\nconnect4,7/7/7/7/7/7 x,4,2401\n")
    code, out, _ = run(capsys, "perft", "--file", str(suite))
    assert code == 0 and out.splitlines()[-1].startswith("2/2 rows OK")


def test_a_match_replays_and_names_the_players(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "games.pgn"
    code, out, _ = run(capsys, "match", "greedy", "random", "--variant", "gomoku_6x6", "--games", "2",
                       "--records", str(records))  # fmt: skip
    assert code == 0 and out.startswith("greedy vs random on gomoku_6x6: ")
    code, out, _ = run(capsys, "replay", str(records), "--game", "1")
    assert code == 0 and out.startswith("game 1: greedy (Black) vs random (White), gomoku_6x6, seed ")
    assert out.strip().splitlines()[-1].endswith(("Black wins", "White wins", "draw"))


@pytest.mark.slow  # a whole ladder: 13 s
def test_rate_puts_a_player_on_the_ladder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = tmp_path / "board.csv"
    code, out, _ = run(capsys, "rate", "mcts:8", "--variant", "tictactoe", "--anchors", "random,greedy", "--games",
                       "4", "--ladder-games", "4", "--leaderboard", str(board))  # fmt: skip
    assert code == 0 and "mcts:8" in out and board.exists()


@needs_engine
def test_play_against_fairy_stockfish(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    moves = [f"{f}{r}" for r in range(1, 9) for f in "abcdefgh"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(moves * 2) + "\n"))
    code, out, _ = run(capsys, "play", "--variant", "gomoku_8x8", "--opponent", "fairy:nodes=100")
    assert code == 0 and "Black to move" in out and "opponent played " in out
    assert out.strip().endswith(("(line): you win", "(line): you lose", "(full-board): draw"))


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["show", "connect4", "--position", "7/7/7/7/3x3/7 o"], "the stone on d2 floats above the empty d1"),
        (["show", "gomoku_8x8", "--position", "8/8/8/8/8/8/8/8"], "expected 2 fields"),
        (["match", "fairy:nodes=10", "random", "--variant", "caro_9x9"], "Fairy-Stockfish does not play caro_9x9"),
        (["perft", "gomoku", "--position", "15/15 x", "--depth", "1"], "2 ranks, gomoku has 15"),
    ],
)
def test_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.startswith("mmc: error: ") and err.count("\n") == 1 and needle in err
