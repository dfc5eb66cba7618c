"""The ``mmc`` command line: what a user types and what they read back."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from mmc.cli import main
from mmc.nn import NetworkConfig, build_network, save_checkpoint


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_perft_last_line_is_the_node_count(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "perft", "gardner", "--depth", "5")
    assert code == 0
    assert out.splitlines()[-1] == "52512"


def test_perft_divide_lists_first_moves_and_sums(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "perft", "gardner", "--depth", "3", "--divide")
    lines = out.splitlines()
    split = dict(line.split(": ") for line in lines[:-1])
    assert code == 0
    assert set(split) == {"a2a3", "b2b3", "c2c3", "d2d3", "e2e3", "b1a3", "b1c3"}
    assert sum(map(int, split.values())) == int(lines[-1]) == 506


def test_perft_from_fen(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "perft", "atomic", "--fen", "r2k1/1p1p1/3Pp/P1P1P/Q3K w - - 2 5", "--depth", "3")
    assert (code, out.splitlines()[-1]) == (0, "596")


def test_variants_lists_the_chess_family_and_its_eleven_variants(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "variants")
    lines = out.splitlines()
    end = next((i for i, line in enumerate(lines) if i and not line.startswith("  ")), len(lines))  # next family
    variants = [line.split() for line in lines[1:end]]
    assert code == 0
    assert lines[0].startswith("chess: Chess and its rule variants")
    assert [fields[0] for fields in variants] == [
        "gardner", "baby", "mallet", "los_alamos", "atomic",
        "extinction", "rifle", "dark", "monochromatic", "bichromatic", "chess",
    ]  # fmt: skip
    assert variants[0][1] == "5x5" and variants[-1][1] == "8x8" and all(len(fields) > 2 for fields in variants)


def test_show_draws_the_seed_style_board(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "gardner")
    assert code == 0
    assert "5 ♜ ♞ ♝ ♛ ♚" in out
    assert "3 ⊙ ⊙ ⊙ ⊙ ⊙" in out
    assert "1 ♖ ♘ ♗ ♕ ♔" in out
    assert "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1" in out


def test_show_reports_a_finished_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "monochromatic")
    assert code == 0
    assert "game over: 1/2-1/2 (stalemate)" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["perft", "chess960", "--depth", "2"], "unknown variant 'chess960'"),
        (["perft", "gardner", "--depth", "-1"], "--depth must be between 0 and 15, got -1"),
        (["perft", "gardner", "--depth", "99999999999"], "--depth must be between 0 and 15, got 99999999999"),
        (["perft", "gardner", "--depth", "16", "--divide"], "--depth must be between 0 and 15, got 16"),
        (["perft", "gardner", "--depth", "x"], "invalid int value: 'x'"),
        (["perft", "gardner", "--fen", "rnbqk/ppppp/5/PPPPP w - - 0 1", "--depth", "1"], "has 5 ranks"),
        (["perft", "gardner", "--fen", "rnbqk/ppppp/5/PPPPP/RNBQK x - - 0 1", "--depth", "1"], "side to move"),
        (["perft", "gardner"], "needs VARIANT and --depth"),
        (["show", "gardner", "--fen", "rnbqz/ppppp/5/PPPPP/RNBQK w - - 0 1"], "unknown piece 'z'"),
    ],
)
def test_bad_input_is_one_line_naming_the_problem(
    capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("mmc: error: ")
    assert needle in err


def write_suite(path: Path, rows: list[str]) -> Path:
    path.write_text("variant,fen,depth,nodes\n" + "".join(row + "\n" for row in rows))
    return path


def test_perft_file_reports_each_row_and_a_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start = "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1"
    suite = write_suite(tmp_path / "ok.csv", [f"gardner,{start},3,506", f"dark,{start},3,510"])
    code, out, _ = run(capsys, "perft", "--file", str(suite))
    lines = out.splitlines()
    assert code == 0
    assert lines[0] == f"gardner,{start},3,506 OK"
    assert lines[1] == f"dark,{start},3,510 OK"
    assert lines[2].startswith("2/2 rows OK, 0 mismatches")


def test_perft_file_mismatch_exits_nonzero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = write_suite(tmp_path / "bad.csv", ["gardner,rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1,2,50"])
    code, out, _ = run(capsys, "perft", "--file", str(suite))
    assert code == 1
    assert "53 MISMATCH (expected 50)" in out
    assert out.splitlines()[-1].startswith("0/1 rows OK, 1 mismatches")


@pytest.mark.parametrize(
    ("row", "needle"),
    [
        ("gardner,rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1,two,50", ":3: depth and nodes must be integers"),
        ("gardner,rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1,2", ":3: expected 4 fields, got 3"),
        ("shogi,rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1,2,53", ":3: unknown variant 'shogi'"),
        ("gardner,rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1,-2,53", ":3: depth and nodes must be >= 0"),
        ("gardner,rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1,99999999999,1", ":3: depth must be at most 15"),
    ],
)
def test_perft_file_bad_row_fails_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], row: str, needle: str
) -> None:
    suite = write_suite(tmp_path / "bad.csv", ["gardner,rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1,1,7", row])
    code, out, err = run(capsys, "perft", "--file", str(suite))
    assert code == 2
    assert out == ""  # not even the good first row was computed
    assert needle in err


def test_installed_entry_point_runs() -> None:
    exe = shutil.which("mmc", path=str(Path(sys.executable).parent))
    assert exe is not None, "the mmc script is not installed next to the interpreter"
    result = subprocess.run([exe, "perft", "gardner", "--depth", "5"], capture_output=True, text=True, check=True)
    assert result.stdout.splitlines()[-1] == "52512"


MATCH_LINE = re.compile(
    r"^greedy vs random on gardner: (\d+) wins, (\d+) draws, (\d+) losses; score (0\.\d\d|1\.00) "
    r"\(95% CI (\d\.\d\d)-(\d\.\d\d)\)$"
)


def test_match_prints_one_summary_line_and_writes_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "games.pgn"
    code, out, _ = run(
        capsys, "match", "greedy", "random", "--variant", "gardner", "--games", "6", "--records", str(records)
    )
    match = MATCH_LINE.match(out.strip())
    assert code == 0 and match is not None, out
    wins, draws, losses = map(int, match.groups()[:3])
    assert wins + draws + losses == 6
    assert float(match.group(5)) <= float(match.group(4)) <= float(match.group(6))
    assert records.read_text().count('[Variant "gardner"]') == 6


def test_match_with_a_seed_is_reproducible(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    texts = []
    for name in ("a.pgn", "b.pgn"):
        argv = ["match", "random", "greedy", "--variant", "atomic", "--games", "4", "--seed", "9"]
        code, _, _ = run(capsys, *argv, "--opening-plies", "2", "--records", str(tmp_path / name))
        assert code == 0
        texts.append((tmp_path / name).read_text())
    assert texts[0] == texts[1]
    assert '[OpeningPlies "2"]' in texts[0]


def test_replay_prints_each_position_and_the_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "games.pgn"
    run(capsys, "match", "greedy", "random", "--variant", "gardner", "--games", "2", "--records", str(records))
    code, out, _ = run(capsys, "replay", str(records), "--game", "2")
    record = records.read_text().split("\n\n")[3]  # game 2's moves and result
    *moves, result = record.split()
    assert code == 0
    assert out.startswith("game 2: random (White) vs greedy (Black), gardner, seed ")
    assert out.count("  a b c d e") == len(moves) + 1  # the start and one board per move
    assert f"1. {moves[0]} (opening)" in out and f"1... {moves[1]} (opening)" in out
    assert out.strip().splitlines()[-1].startswith(f"{result} (")


def test_play_against_a_player_with_scripted_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("e2e4\ne2e3\nquit\n"))
    code, out, _ = run(capsys, "play", "--variant", "gardner", "--opponent", "greedy")
    assert code == 0
    assert "e2e4 is not legal here" in out
    assert "opponent played" in out
    assert out.strip().endswith("you resigned: 0-1")


def test_play_as_black_to_the_end_of_a_capped_game(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("b5c3\n"))
    code, out, _ = run(
        capsys, "play", "--variant", "gardner", "--opponent", "random", "--color", "black", "--max-plies", "2"
    )
    assert code == 0
    assert "Black to move" in out
    assert out.strip().endswith("1/2-1/2 (ply-cap): draw")


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["match", "greedy", "random", "--variant", "shogi"], "unknown variant 'shogi'"),
        (["match", "greedy", "mcts9", "--variant", "gardner"], "unknown player 'mcts9' (known kinds: random, greedy"),
        (["match", "greedy", "random", "--variant", "gardner", "--games", "0"], "--games must be between 1 and"),
        (
            ["match", "greedy", "random", "--variant", "gardner", "--games", "10001"],
            "--games must be between 1 and 10000",
        ),
        (["match", "greedy", "random", "--variant", "gardner", "--seed", "-1"], "--seed must be >= 0, got -1"),
        (
            ["match", "greedy", "random", "--variant", "gardner", "--max-plies", "99999999999"],
            "--max-plies must be between 1 and 10000",
        ),
        (
            ["match", "greedy", "random", "--variant", "gardner", "--max-plies", "1000", "--opening-plies", "999"],
            "no 999-ply random opening of gardner in 100 tries left the game going",
        ),
        (["match", "greedy", "random", "--variant", "monochromatic"], "monochromatic start position is already over"),
        (
            ["match", "mcts:99999999999999999999", "random", "--variant", "gardner"],
            "simulations must be a positive integer up to 10000",
        ),
        (["match", "net:x.pt:sims=10001", "random", "--variant", "gardner"], "sims must be a positive integer up to"),
        (["match", "policy:x.pt:temperature=nan", "random", "--variant", "gardner"], "temperature must be a finite"),
        (
            ["match", "greedy", "random", "--variant", "gardner", "--opening-plies", "-1"],
            "--opening-plies must be >= 0",
        ),
        (["match", "greedy", "random", "--variant", "gardner", "--records", "/no/such/dir/x.pgn"], "does not exist"),
        (["match", "fairy:nodes=10", "random", "--variant", "atomic"], "Fairy-Stockfish does not play atomic"),
        (["match", "greedy", "--variant", "gardner"], "the following arguments are required: PLAYER"),
        (["play", "--variant", "gardner", "--opponent", "nobody"], "unknown player 'nobody'"),
        (["play", "--variant", "gardner", "--opponent", "random", "--color", "red"], "invalid choice: 'red'"),
        (["play", "--variant", "gardner", "--opponent", "random", "--seed", "-5"], "--seed must be >= 0, got -5"),
        (
            ["match", "greedy", "random", "--variant", "gardner", "--device", "gpu"],
            "--device must be one of auto, cpu, cuda, got 'gpu'",
        ),
        (["play", "--variant", "gardner", "--opponent", "random", "--device", "tpu"], "--device must be one of auto"),
        (["play", "--variant", "gardner", "--opponent", "random", "--max-plies", "0"], "--max-plies must be between"),
        (
            ["play", "--variant", "gardner", "--opponent", "random", "--max-plies", "99999999999"],
            "--max-plies must be between 1 and 10000, got 99999999999",
        ),
        (["replay", "/no/such/file.pgn"], "cannot read record file '/no/such/file.pgn'"),
    ],
)
def test_bad_match_play_replay_input_is_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("mmc: error: ") and needle in err


@pytest.mark.skipif(torch.cuda.is_available(), reason="torch sees a CUDA device here")
@pytest.mark.parametrize("command", [["match", "greedy", "random"], ["play", "--opponent", "random"]])
def test_device_cuda_without_one_is_one_line(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    code, out, err = run(capsys, *command, "--variant", "gardner", "--device", "cuda")
    assert (code, out) == (2, "")
    assert err == "mmc: error: --device cuda, but torch sees no CUDA device (use auto or cpu)\n"


def test_a_network_player_runs_on_the_device_asked_for(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    model = save_checkpoint(net, net.config, tmp_path / "model.pt")
    texts = []
    for device in ("cpu", "auto"):
        records = tmp_path / f"{device}.pgn"
        argv = ["match", f"net:{model}:sims=2", "random", "--variant", "gardner", "--games", "2", "--max-plies", "20"]
        code, out, _ = run(capsys, *argv, "--device", device, "--records", str(records))
        assert code == 0 and out.startswith(f"net:{model}:sims=2 vs random on gardner: "), out
        texts.append(records.read_text())
    if not torch.cuda.is_available():  # auto is the CPU here: the same games
        assert texts[0] == texts[1]


def test_replay_of_a_game_not_in_the_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "games.pgn"
    run(capsys, "match", "greedy", "random", "--variant", "gardner", "--games", "2", "--records", str(records))
    for game in ("0", "3", "-99999999999", "99999999999999999999999"):
        code, out, err = run(capsys, "replay", str(records), "--game", game)
        assert (code, out) == (2, "")
        assert err == f"mmc: error: --game must be between 1 and 2 (the games in {str(records)!r}), got {game}\n"


def test_replay_of_a_malformed_file_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.pgn"
    bad.write_text('[Variant "gardner"]\n[White "x"\n')
    code, out, err = run(capsys, "replay", str(bad))
    assert (code, out) == (2, "")
    assert f"{bad}:2: malformed tag" in err
    code, _, err = run(capsys, "replay", str(bad), "--game", "1")
    assert code == 2
    empty = tmp_path / "empty.pgn"
    empty.write_text("")
    code, _, err = run(capsys, "replay", str(empty))
    assert code == 2 and "holds no games" in err


@pytest.mark.slow  # an install: 3.5 s
def test_installed_entry_point_plays_a_match(tmp_path: Path) -> None:
    exe = shutil.which("mmc", path=str(Path(sys.executable).parent))
    assert exe is not None
    argv = [
        exe,
        "match",
        "greedy",
        "random",
        "--variant",
        "gardner",
        "--games",
        "4",
        "--records",
        str(tmp_path / "g.pgn"),
    ]
    result = subprocess.run(argv, capture_output=True, text=True, check=True)
    assert MATCH_LINE.match(result.stdout.strip()), result.stdout
    assert "greedy vs random" in result.stderr  # the progress bar
    replayed = subprocess.run([exe, "replay", str(tmp_path / "g.pgn"), "--game", "4"], capture_output=True, text=True)
    assert replayed.returncode == 0 and replayed.stdout.startswith("game 4: random (White) vs greedy (Black)")


def test_the_opening_plies_default_to_the_familys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``mmc match`` and ``mmc rate`` open each game with the family's ``Game.opening_plies`` unless told otherwise:
    a family of short games sets few."""
    from dataclasses import replace

    from mmc.games import register_game, unregister_game
    from mmc.play import read_records
    from tests.games.bonus import GAME

    records = tmp_path / "games.pgn"
    code, _, err = run(capsys, "match", "greedy", "random", "--variant", "tictactoe", "--games", "2",
                       "--records", str(records))  # fmt: skip
    assert code == 0, err
    assert {r.opening_plies for r in read_records(records)} == {4}
    register_game(replace(GAME, opening_plies=1))
    try:
        code, _, err = run(capsys, "match", "greedy", "random", "--variant", "bonus_3x3", "--games", "2",
                           "--records", str(records))  # fmt: skip
        assert code == 0, err
        assert {r.opening_plies for r in read_records(records)} == {1}
        code, _, err = run(capsys, "match", "greedy", "random", "--variant", "bonus_3x3", "--games", "2",
                           "--opening-plies", "0", "--records", str(records))  # fmt: skip
        assert code == 0 and {r.opening_plies for r in read_records(records)} == {0}
    finally:
        unregister_game("bonus")
    board = tmp_path / "board.csv"
    code, out, err = run(capsys, "rate", "mcts:4", "--variant", "tictactoe", "--anchors", "random,greedy", "--games",
                         "2", "--ladder-games", "2", "--opening-plies", "0", "--leaderboard", str(board))  # fmt: skip
    assert code == 0 and "mcts:4" in out, err
    code, out, err = run(capsys, "rate", "mcts:4", "--variant", "tictactoe", "--opening-plies", "-1")
    assert code == 2 and err.startswith("mmc: error: --opening-plies: ") and err.count("\n") == 1
