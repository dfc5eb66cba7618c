"""Generated variants of the k-in-a-row family (``docs/rules/kinarow.md``, "Generated variants"):
``mnk_WxH_kK`` and ``grav_WxH_kK`` are formed and refused as the rule book says, everywhere a variant id is taken,
and each equals its named twin. Their rules against Fairy-Stockfish are in ``test_oracle.py``."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

import mmc.games
from mmc.cli import main
from mmc.games.gomoku import (
    VARIANTS,
    Rule,
    State,
    apply_move,
    from_text,
    get_variant,
    initial_state,
    legal_moves,
    observation_planes,
    outcome,
    perft,
)
from mmc.games.gomoku.engine import VARIANT_FILE, engine_plays, variant_config
from mmc.games.gomoku.variants import NAMED, generated, generated_id
from mmc.play.fairy import plays
from tests.games.gomoku import random_game

TWINS = {
    "tictactoe": "mnk_3x3_k3",
    "gomoku_6x6": "mnk_6x6_k4",
    "gomoku_8x8": "mnk_8x8_k5",
    "gomoku_9x9": "mnk_9x9_k5",
    "gomoku": "mnk_15x15_k5",
    "connect4": "grav_7x6_k4",
}
"""The rule book's named variants and their generated ids."""

MALFORMED = [
    ("mnk_2x9_k3", "the board 2x9 is out of range"),
    ("mnk_8x8_k9", "k=9 is longer than the 8x8 board's longer side"),
    ("mnk_8x8", "malformed"),
    ("grav_7x6_k04", "malformed"),
    ("mnk_16x3_k3", "the board 16x3 is out of range"),
    ("grav_3x16_k3", "the board 3x16 is out of range"),
    ("mnk_07x6_k4", "malformed"),
    ("mnk_7X6_k4", "malformed"),
    ("mnk_7x6_k4 ", "malformed"),
    ("grav_7x6_k2", "k=2"),
    ("mnk_0x0_k0", "malformed"),
    ("mnk_", "malformed"),
]
"""Ids of the generated forms that the rule book refuses, and what the refusal says."""


def test_every_id_in_the_ranges_is_a_variant_with_its_parameters() -> None:
    count = 0
    for width in range(3, 16):
        for height in range(3, 16):
            for k in range(3, max(width, height) + 1):
                for prefix, gravity in (("mnk", False), ("grav", True)):
                    name = f"{prefix}_{width}x{height}_k{k}"
                    v = get_variant(name)
                    assert (v.name, v.width, v.height, v.k, v.rule, v.gravity) == (
                        name, width, height, k, Rule.FREESTYLE, gravity)  # fmt: skip
                    assert name in VARIANTS and mmc.games.get_game(name).name == "gomoku"
                    assert len(name) <= mmc.games.MAX_VARIANT_ID
                    count += 1
    assert count == 2 * sum(max(w, h) - 2 for w in range(3, 16) for h in range(3, 16))
    assert list(VARIANTS) == list(NAMED) and len(VARIANTS) == len(NAMED)  # iterating lists the named ones
    assert generated_id(7, 5, 4) == "mnk_7x5_k4" and generated_id(5, 4, 3, gravity=True) == "grav_5x4_k3"


@pytest.mark.parametrize(("name", "why"), MALFORMED)
def test_a_malformed_generated_id_is_refused_in_one_line_naming_the_ranges(name: str, why: str) -> None:
    for lookup in (generated, get_variant, mmc.games.get_variant, mmc.games.get_game, initial_state):
        with pytest.raises(ValueError) as error:
            lookup(name)
        message = str(error.value)
        assert why in message and "\n" not in message, (lookup, message)
        assert "3 to 15" in message and "max(W, H)" in message
    assert name not in VARIANTS


def test_an_id_of_no_generated_form_is_unknown() -> None:
    for name in ("MNK_7x6_k4", "mnk7x6k4", "gomoku_7x6"):
        with pytest.raises(ValueError, match="unknown"):
            mmc.games.get_variant(name)


def _twin_games(named: str, twin: str, seed: int) -> tuple[list[State], list[State]]:
    """The same seeded random game played in both variants, move for move."""
    ours = list(random_game(named, np.random.default_rng(seed), near=0.7))
    theirs = [initial_state(twin)]
    for state in ours[1:]:
        theirs.append(apply_move(theirs[-1], state.last))
    return ours, theirs


@pytest.mark.parametrize(("named", "twin"), TWINS.items())
def test_a_named_variant_and_its_generated_id_are_the_same_game(named: str, twin: str) -> None:
    a, b = get_variant(named), get_variant(twin)
    assert (a.width, a.height, a.k, a.rule, a.gravity) == (b.width, b.height, b.k, b.rule, b.gravity)
    depth = 3 if a.cells <= 64 else 2
    assert perft(initial_state(named), depth) == perft(initial_state(twin), depth)
    for seed in range(3):
        ours, theirs = _twin_games(named, twin, seed)
        for x, y in zip(ours, theirs, strict=True):
            assert x.fen() == y.fen() and legal_moves(x) == legal_moves(y)
            assert outcome(x) == outcome(y)
            assert np.array_equal(observation_planes(x), observation_planes(y))
            assert from_text(twin, x.fen()).fen() == x.fen()
        assert outcome(theirs[-1]) is not None
        assert perft(ours[len(ours) // 2], 2) == perft(theirs[len(theirs) // 2], 2)


@cache
def _solve(state: State) -> int:
    """The game's value for the player to move under perfect play: +1 a win, 0 a draw, -1 a loss."""
    result = outcome(state)
    if result is not None:
        return 0 if result.winner is None else (1 if result.winner == state.turn else -1)
    best = -1
    for move in legal_moves(state):
        best = max(best, -_solve(apply_move(state, move)))
        if best == 1:
            break
    return best


def test_the_rule_books_known_values() -> None:
    """mnk_3x3_k3 is a draw, mnk_4x4_k3 a first-player win (grav_7x6_k4's win is beyond a test's time)."""
    assert _solve(initial_state("mnk_3x3_k3")) == 0
    assert _solve(initial_state("mnk_4x4_k3")) == 1


def test_the_engine_plays_every_generated_board_within_its_limit() -> None:
    """The engine's definitions file holds every generated id that fits 12 files x 10 ranks, and is the one
    :func:`variant_config` writes (after a change: ``mmc.games.gomoku.engine.write_variant_file()``)."""
    assert VARIANT_FILE.read_text() == variant_config()
    sections = {line[1:].split(":")[0] for line in VARIANT_FILE.read_text().splitlines() if line.startswith("[")}
    for name in ("mnk_3x3_k3", "mnk_12x10_k12", "grav_12x3_k12", "grav_3x10_k10", "mnk_7x5_k4"):
        assert name in sections and engine_plays(name) and plays("fairy:nodes=10", name)
    for name in ("mnk_13x5_k4", "mnk_5x11_k4", "mnk_15x15_k5", "caro_9x9"):
        assert name not in sections and not engine_plays(name) and not plays("fairy:nodes=10", name)
    assert plays("greedy", "mnk_13x5_k4") and plays("mcts:25", "grav_15x15_k15")


def test_the_cli_takes_generated_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["variants"]) == 0
    assert "and every generated id: mnk_WxH_kK (freestyle) or grav_WxH_kK (gravity)" in capsys.readouterr().out
    assert main(["perft", "grav_5x4_k3", "--depth", "3"]) == 0
    assert capsys.readouterr().out == "125\n"  # 5 columns: 5^3 drops
    suite = tmp_path / "suite.csv"
    suite.write_text("variant,position,depth,nodes\nmnk_3x3_k3,3/3/3 x,9,127872\ngrav_5x4_k3,5/5/5/5 x,3,125\n")
    assert main(["perft", "--file", str(suite)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("2/2 rows OK")
    assert main(["match", "greedy", "random", "--variant", "mnk_5x4_k3", "--games", "2"]) == 0
    assert capsys.readouterr().out.startswith("greedy vs random on mnk_5x4_k3: ")
    assert main(["show", "mnk_8x8_k9"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mmc: error: ") and err.count("\n") == 1 and "k=9" in err
