"""The shipped baseline networks (``mmc.play.baselines``): every one plays, in every place a player goes; a corrupted
copy, an unknown name and a wrong family are refused in one line."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest

from mmc.cli import main
from mmc.env import GYM_IDS
from mmc.play import GreedyPlayer, close_player, parse_player, play_match
from mmc.play.baselines import (
    FOLDER,
    BaselineError,
    baseline_for,
    baseline_path,
    get_baseline,
    list_baselines,
    sha256,
)

ISSUE_66 = {
    "gardner-v1": "gardner",
    "los_alamos-v1": "los_alamos",
    "gomoku_6x6-v1": "gomoku_6x6",
    "connect4-v1": "connect4",
    "mnk_7x7_k4-v1": "mnk_7x7_k4",
    "jump_6x6-v1": "jump_6x6",
}
"""The baselines issue 66 asks for, and the variant each is meant for."""


def test_the_issues_baselines_are_shipped_hashed_and_small() -> None:
    shipped = list_baselines()
    assert {name: b.variant for name, b in shipped.items() if name in ISSUE_66} == ISSUE_66
    for name, baseline in shipped.items():
        path = baseline_path(name)
        assert path.parent == FOLDER and sha256(path) == baseline.sha256
        assert path.stat().st_size < 2_000_000, f"{name}: {path.stat().st_size} bytes"
        assert baseline.info["command"].startswith("python benchmarks/baselines.py train ")
        assert baseline.info["generations"] > 0 and baseline.info["games"] > 0
        assert baseline_for(baseline.variant) is not None


@pytest.mark.slow  # 12 games of 20 plies
def test_each_baseline_plays_greedy() -> None:
    for name, variant in ISSUE_66.items():
        player = parse_player(f"baseline:{name}", variant=variant)
        assert player.name == f"baseline:{name}"
        result = play_match(player, GreedyPlayer(), variant, 2, np.random.default_rng(0), max_plies=20)
        assert result.games == 2 and all(r.max_plies == 20 for r in result.records)
        assert {r.first for r in result.records} | {r.second for r in result.records} == {f"baseline:{name}", "greedy"}


@pytest.mark.slow  # four whole games
def test_the_connect4_baseline_beats_greedy() -> None:
    """A learning signal, the shipped network's (0.98 against greedy in 60 games: BENCHMARKS.md)."""
    player = parse_player("baseline:connect4-v1", variant="connect4")
    result = play_match(player, GreedyPlayer(), "connect4", 4, np.random.default_rng(1), opening_plies=2)
    assert result.wins >= 3, (result.wins, result.draws, result.losses)


def test_baseline_alone_is_the_one_meant_for_the_variant_and_sims_is_an_option() -> None:
    assert parse_player("baseline", variant="connect4").name == "baseline:connect4-v1"
    assert parse_player("baseline:sims=8", variant="gardner").name == "baseline:gardner-v1:sims=8"
    player = parse_player("baseline:gardner-v1:sims=8", variant="mallet")  # a chess network plays the family
    assert player.name == "baseline:gardner-v1:sims=8"
    close_player(player)


@pytest.mark.parametrize(
    ("spec", "variant", "message"),
    [
        ("baseline:nope-v1", "gardner", "unknown baseline 'nope-v1' (shipped: connect4-v1, gardner-v1,"),
        ("baseline:connect4-v1", "gardner", "connect4-v1 is a gomoku network and cannot play gardner"),
        ("baseline:gardner-v1:sims=0", "gardner", "expected baseline[:NAME][:sims=N] with sims from 1 to 10000"),
        ("baseline:gardner-v1:depth=3", "gardner", "expected baseline[:NAME][:sims=N]"),
        ("baseline", "tictactoe", "no baseline is shipped for tictactoe (shipped: connect4-v1,"),
    ],
)
def test_bad_specs_are_one_line_errors(spec: str, variant: str, message: str) -> None:
    with pytest.raises(BaselineError) as error:
        parse_player(spec, variant=variant)
    assert message in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize("part", [".pt", ".json"])
def test_a_corrupted_copy_is_refused(tmp_path: Path, part: str) -> None:
    copy = tmp_path / "baselines"
    shutil.copytree(FOLDER, copy)
    baseline = get_baseline("gardner-v1")
    assert baseline_path("gardner-v1", copy) == copy / baseline.file  # the copy as shipped passes
    target = (copy / baseline.file).with_suffix(part)
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF
    target.write_bytes(bytes(data))
    with pytest.raises(BaselineError) as error:
        baseline_path("gardner-v1", copy)
    assert f"its file {target} is corrupted" in str(error.value) and "\n" not in str(error.value)
    target.unlink()
    with pytest.raises(BaselineError, match="is missing"):
        baseline_path("gardner-v1", copy)


@pytest.mark.slow  # two games
def test_the_cli_lists_the_baselines_and_plays_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["baselines"]) == 0
    out = capsys.readouterr().out
    for name, variant in ISSUE_66.items():
        line = next(line for line in out.splitlines() if line.startswith(f"baseline:{name} "))
        assert variant in line and "sha256 ok" in line
    code = main(["match", "baseline:connect4-v1", "greedy", "--variant", "connect4", "--games", "2"])
    assert code == 0 and "baseline:connect4-v1" in capsys.readouterr().out
    assert main(["match", "baseline:nope", "greedy", "--variant", "connect4", "--games", "2"]) == 2
    assert "unknown baseline 'nope'" in capsys.readouterr().err


@pytest.mark.slow  # a whole game
def test_an_environments_opponent_can_be_a_baseline() -> None:
    env = gymnasium.make(GYM_IDS["gomoku_6x6"], opponent="baseline", color="second")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        observation, _ = env.reset(seed=1)
        assert int(observation["action_mask"].sum()) == 35  # the baseline has played its first stone
        rng, done = np.random.default_rng(0), False
        while not done:
            legal = np.flatnonzero(observation["action_mask"])
            observation, reward, terminated, truncated, _ = env.step(int(rng.choice(legal)))
            done = terminated or truncated
    assert reward in (-1.0, 0.0, 1.0)
    env.close()
