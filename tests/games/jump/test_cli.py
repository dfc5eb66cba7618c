"""The ``mmc`` command line on the jump game: variants, show, perft (and its divide through a chain), match and its
records, replay, play (a person typing the actions of a chain) and rate, all through the generic commands."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pytest

from mmc.cli import main
from mmc.games.jump import apply_move, from_text
from mmc.play.human import HumanPlayer

pytestmark = pytest.mark.xdist_group("jump")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_variants_show_and_perft(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "variants")
    assert code == 0 and [line.split()[:2] for line in out.splitlines() if line.startswith("  jump")] == [
        ["jump", "8x8"], ["jump_diagonal", "8x8"], ["jump_halma", "8x8"], ["jump_6x6", "6x6"],
    ]  # fmt: skip
    assert "jump_moves" not in out  # the other encoding is a package of its own (examples/jump_moves), not installed
    assert "  and every generated id: V_pN: variant V scored at ply N instead of at its cap" in out
    code, out, _ = run(capsys, "perft", "jump_6x6_p2", "--depth", "3")  # a race of 2 plies: no third move
    assert (code, out) == (0, "0\n")
    code, out, _ = run(capsys, "match", "greedy", "random", "--variant", "jump_p100", "--games", "2")
    assert code == 0 and out.startswith("greedy vs random on jump_p100: ")
    code, out, _ = run(capsys, "show", "jump_6x6")
    assert code == 0 and out.splitlines()[0] == "6 · ○ · ○ · ○" and "score: black 0 of 6 home" in out
    code, out, _ = run(capsys, "show", "jump", "--position", "b7/8/8/8/8/8/w7/8 b 0")
    assert code == 0 and out.splitlines()[-1] == "game over: 1/2-1/2 (all-in-target)"
    code, out, _ = run(capsys, "perft", "jump", "--depth", "2")
    assert (code, out) == (0, "961\n")
    code, out, _ = run(capsys, "perft", "jump", "--position", "8/8/3w4/8/3w4/3b4/8/7w b 0", "--depth", "1", "--divide")
    assert code == 0 and "d3-d5: 2" in out.splitlines() and out.splitlines()[-1] == "5"  # d3-d5, d3-d5-d7 + steps


def test_a_match_its_records_and_their_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "games.pgn"
    code, out, _ = run(capsys, "match", "greedy", "random", "--variant", "jump_6x6", "--games", "2",
                       "--records", str(records))  # fmt: skip
    assert code == 0 and out.startswith("greedy vs random on jump_6x6: ")
    code, out, _ = run(capsys, "replay", str(records), "--game", "1")
    assert code == 0 and out.startswith("game 1: greedy (Black) vs random (White), jump_6x6, seed ")
    assert "score: black" in out and out.strip().splitlines()[-1].endswith(("Black wins", "White wins", "draw"))


def test_play_to_the_cap(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A person plays Black's a-file piece up to the 8-ply cap; a complete move typed at once is refused with a hint."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("c3-c5-e5\na1-a2\na2-a3\na3-a4\na4-a5\n"))
    code, out, _ = run(capsys, "play", "--variant", "jump", "--opponent", "random", "--max-plies", "8")
    assert code == 0 and "a chain is played one hop at a time" in out and "Black to move; legal moves: " in out
    assert out.strip().endswith(("(move-cap): you win", "(move-cap): you lose", "(move-cap): draw"))


def test_a_person_types_a_chain_one_hop_at_a_time() -> None:
    """The human player is asked again while its chain goes on: the hops, then the end."""
    answers = iter(["a1-a3", "a3-c3", "end@c3"])
    output = io.StringIO()
    human = HumanPlayer(input_fn=lambda prompt: next(answers), output=output)
    state = from_text("jump", "7w/8/8/8/2b5/1w6/w7/b7 b 0")
    for expected in ("a1-a3", "a3-c3", "end@c3"):
        (move,) = human.play([state], np.random.default_rng(0))
        assert move.text() == expected
        state = apply_move(state, move)
    assert state.turn == -1 and "legal moves: a3-c3 end@a3" in output.getvalue()


@pytest.mark.slow  # a whole ladder: 20 s
def test_rate_a_player_against_the_anchors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = tmp_path / "jump.csv"
    code, out, _ = run(capsys, "rate", "mcts:8", "--variant", "jump_6x6", "--anchors", "random,greedy", "--games",
                       "2", "--ladder-games", "2", "--leaderboard", str(board))  # fmt: skip
    assert code == 0 and "anchor  greedy" in out and "player  mcts:8" in out and board.exists()
