"""The ``mmc`` command line on a family other than chess: the test game bonus (``tests/games/bonus.py``), in which a
player sometimes moves twice, registered for each test."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from mmc.cli import build_parser, main
from mmc.cli_commands import move_labels
from mmc.games import Game, apply_move, initial_state
from mmc.play.players import PLAYER_KINDS


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_variants_lists_every_family_with_its_variants(bonus_game: Game, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "variants")
    lines = out.splitlines()
    family = lines.index("bonus: Bonus (a test game): a stone next to one's own earns another move")
    assert code == 0 and lines[0].startswith("chess: ")
    assert [line.split()[:2] for line in lines[family + 1 :]] == [["bonus_2x3", "2x3"], ["bonus_3x3", "3x3"]]


def test_show_renders_the_start_or_a_given_position(bonus_game: Game, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "bonus_2x3")
    assert (code, out) == (0, "...\n...\n.../... x\n")
    code, out, _ = run(capsys, "show", "bonus_2x3", "--position", "xxo/oox o")
    assert code == 0 and out.splitlines()[-1] == "game over: 1/2-1/2 (full-board)"


def test_perft_counts_any_familys_tree(bonus_game: Game, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "perft", "bonus_2x3", "--depth", "3")
    assert (code, out.splitlines()[-1]) == (0, "120")  # 6 * 5 * 4: the board fills after six stones
    code, out, _ = run(capsys, "perft", "bonus_2x3", "--position", "x../..o x", "--depth", "2", "--divide")
    assert code == 0 and out.splitlines() == ["a1: 3", "b1: 3", "b2: 3", "c2: 3", "12"]


def test_perft_file_mixes_families(bonus_game: Game, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = tmp_path / "suite.csv"
    suite.write_text(
        "variant,position,depth,nodes\n"
        "gardner,rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1,2,53\n"
        "bonus_3x3,.../.x./... o,4,1680\n"
    )
    code, out, _ = run(capsys, "perft", "--file", str(suite))
    assert code == 0 and out.splitlines()[1] == "bonus_3x3,.../.x./... o,4,1680 OK"
    suite.write_text("variant,position,depth,nodes\nbonus_3x3,.../.x./... z,1,8\n")
    code, out, err = run(capsys, "perft", "--file", str(suite))
    assert (code, out) == (2, "") and ":2: bonus position '.../.x./... z': the player to move must be x or o" in err


def test_a_match_and_its_replay_name_the_familys_players(
    bonus_game: Game, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "games.pgn"
    code, out, _ = run(capsys, "match", "greedy", "random", "--variant", "bonus_3x3", "--games", "2",
                       "--records", str(records))  # fmt: skip
    assert code == 0 and out.startswith("greedy vs random on bonus_3x3: ")
    assert '[Black "greedy"]' in records.read_text()
    code, out, _ = run(capsys, "replay", str(records), "--game", "2")
    assert code == 0 and out.startswith("game 2: random (Black) vs greedy (White), bonus_3x3, seed ")
    assert "1. " in out and "1... " in out
    assert out.strip().splitlines()[-1].endswith(("Black wins", "White wins", "draw"))


def test_replay_labels_share_a_number_when_a_player_moves_twice(bonus_game: Game) -> None:
    states = [initial_state("bonus_2x3")]
    for move in (0, 6, 1, 2):  # black a1, white c2, black b1 (a bonus), black c1 (another)
        states.append(apply_move(states[-1], move))
    assert move_labels(states, ["a1", "c2", "b1", "c1"]) == ["1. a1", "1... c2", "2. b1", "2. c1"]


def test_play_as_the_second_player_to_the_end(
    bonus_game: Game, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("a1\nb1\nc1\na2\nb2\nc2\n" * 6))
    code, out, _ = run(capsys, "play", "--variant", "bonus_2x3", "--opponent", "greedy", "--color", "white")
    assert code == 0
    assert "White to move" in out
    assert out.strip().endswith(("(full-board): you win", "(full-board): you lose", "(full-board): draw"))


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["play", "--variant", "bonus_2x3", "--opponent", "random", "--color", "red"],
         "argument --color: invalid choice: 'red' (choose from black, white, first, second)"),
        (["match", "fairy:nodes=10", "random", "--variant", "bonus_2x3"], "Fairy-Stockfish does not play bonus_2x3"),
        (["show", "bonus_2x3", "--position", "xx/oo x"], "expected 2 ranks of 3 cells"),
        (["perft", "bonus_3x3", "--depth", "16"], "--depth must be between 0 and 15, got 16"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line(
    bonus_game: Game, capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.startswith("mmc: error: ") and err.count("\n") == 1 and needle in err


@pytest.mark.parametrize("command", ["match", "play", "rate"])
def test_help_names_every_player_spec_form(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for kind in PLAYER_KINDS.values():
        assert kind.usage in text
    assert "net:PATH.pt[:sims=N]" in text and "python:MODULE:CALLABLE" in text
