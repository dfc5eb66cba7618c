"""Solver-labelled suites and the mistake rate: every shipped suite re-solved on a sample, the rate of players
that are right, wrong and illegal by construction, and the command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mmc.evaluation.mistakes import (
    SuitePosition,
    mistake_rate,
    read_suite,
    suite_names,
    wilson,
    write_suite,
)
from mmc.evaluation.suite_make import MATE_HORIZON, SPECS
from mmc.games import legal_moves, move_notation
from mmc.games.gomoku.solver import DEFAULT_NODE_LIMIT
from mmc.play import GreedyPlayer, RandomPlayer


def test_every_recipe_is_shipped_and_every_suite_has_a_recipe() -> None:
    assert set(suite_names()) == set(SPECS)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_a_sample_of_each_suite_re_solves(name: str) -> None:
    """Eight positions of each suite, drawn afresh among those labelled within the solver's default limit (seconds
    each), get the same value and keeping moves from the exact search."""
    positions = read_suite(name)
    spec = SPECS[name]
    assert len(positions) == spec.per_variant * len(spec.variants)
    assert {p.variant for p in positions} == set(spec.variants)
    assert sum(p.critical for p in positions) >= round(spec.critical_share * len(positions)) or spec.source
    rng = np.random.default_rng(len(name))
    cheap = [p for p in positions if p.nodes <= DEFAULT_NODE_LIMIT]
    assert len(cheap) >= len(positions) // 2
    for i in rng.choice(len(cheap), size=8, replace=False):
        p = cheap[int(i)]
        state = p.state
        assert len(legal_moves(state)) == p.moves
        if spec.source is None:
            from mmc.games.gomoku.solver import solve

            s = solve(state)
            keeping = frozenset(move_notation(state, m) for m in s.keeping)
            assert (s.value, keeping) == (p.value, p.keeping), p.position
        else:
            from mmc.games.chess.puzzles import mating_moves

            assert p.value == 1
            assert frozenset(m.uci() for m in mating_moves(state, MATE_HORIZON)) == p.keeping, p.position


class _Oracle:
    """Plays a keeping move of the suite (``right``) or a legal move that is not one (``wrong``)."""

    def __init__(self, positions: list[SuitePosition], right: bool) -> None:
        self.by_text = {(p.variant, p.position): p for p in positions}
        self.right = right
        self.name = "oracle" if right else "spoiler"

    def play(self, states: list, rng: np.random.Generator) -> list:
        out = []
        for state in states:
            p = self.by_text[(state.variant_name, state.fen())]
            moves = [m for m in legal_moves(state) if (move_notation(state, m) in p.keeping) == self.right]
            out.append(moves[0] if moves else legal_moves(state)[0])
        return out


class _Illegal:
    name = "cheat"

    def play(self, states: list, rng: np.random.Generator) -> list:
        return [-1 for _ in states]


def test_right_wrong_and_illegal_players() -> None:
    positions = read_suite("small")
    right = mistake_rate(_Oracle(positions, True), positions, np.random.default_rng(0))
    assert (right.mistakes, right.critical_mistakes, right.illegal) == (0, 0, 0)
    wrong = mistake_rate(_Oracle(positions, False), positions, np.random.default_rng(0))
    critical = sum(p.critical for p in positions)
    assert (wrong.critical_mistakes, wrong.critical_positions) == (critical, critical)
    assert wrong.mistakes == critical  # an easy position has no wrong move
    cheat = mistake_rate(_Illegal(), positions, np.random.default_rng(0))
    assert cheat.mistakes == cheat.illegal == len(positions)
    assert "300 illegal moves by cheat (counted as mistakes)" in cheat.summary()
    assert cheat.marks == (True,) * len(positions)


def test_stronger_players_err_less() -> None:
    """Random errs more than greedy on the small boards, whose critical positions are mostly one-move threats."""
    positions = read_suite("small")
    r = mistake_rate(RandomPlayer(), positions, np.random.default_rng(1))
    g = mistake_rate(GreedyPlayer(), positions, np.random.default_rng(1))
    assert r.critical_ci[0] > g.critical_ci[1]


def test_wilson() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(9, 100)
    assert lo == pytest.approx(0.0481, abs=1e-3) and hi == pytest.approx(0.1621, abs=1e-3)


def test_suite_files_round_trip(tmp_path: Path) -> None:
    positions = read_suite("small")[:5]
    path = write_suite(positions, tmp_path / "five.csv")
    assert read_suite(path) == positions


def test_unknown_suite_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match=r"unknown suite 'nope' \(known: .*small"):
        read_suite("nope")


def _mmc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mmc", *args], capture_output=True, text=True, timeout=300)


def test_cli() -> None:
    listed = _mmc("suites")
    assert listed.returncode == 0
    assert all(name in listed.stdout for name in SPECS)
    r = _mmc("mistakes", "random", "greedy", "--suite", "small")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("suite small: 300 positions")
    assert lines[1].startswith("random: mistakes ") and lines[2].startswith("greedy: mistakes ")
    bad = _mmc("mistakes", "random", "--suite", "nope")
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [
        f"mmc: error: --suite: unknown suite 'nope' (known: {', '.join(suite_names())})"
    ]
    make = _mmc("suites", "--make", "nope")
    assert make.returncode == 2 and "unknown suite 'nope'" in make.stderr
    player = _mmc("mistakes", "mcts:x", "--suite", "small")
    assert player.returncode == 2 and len(player.stderr.strip().splitlines()) == 1


def test_make_a_suite(tmp_path: Path) -> None:
    """A recipe's suite: its counts and share of critical positions, its sources, labels that re-solve, and the same
    file from the same seed."""
    from mmc.evaluation.suite_make import SuiteSpec, make_suite
    from mmc.games.gomoku.solver import solve

    recipe = SuiteSpec("t", ("mnk_4x4_k3", "grav_4x4_k4"), 10, first_ply=2, critical_share=0.6,
                       players=("random", "greedy"))  # fmt: skip
    one = make_suite(recipe, out=tmp_path / "one.csv", progress=lambda _line: None)
    two = make_suite(recipe, out=tmp_path / "two.csv", progress=lambda _line: None)
    assert one.read_bytes() == two.read_bytes()
    positions = read_suite(one)
    assert len(positions) == 20 and sum(p.critical for p in positions) == 12
    assert {p.source for p in positions} <= {"random", "greedy"} and min(p.ply for p in positions) >= 2
    for p in positions:
        s = solve(p.state)
        assert (s.value, frozenset(move_notation(p.state, m) for m in s.keeping)) == (p.value, p.keeping)


def test_making_stops_at_a_position_it_cannot_label(tmp_path: Path) -> None:
    from mmc.evaluation.suite_make import SuiteSpec, make_suite
    from mmc.games.gomoku.solver import SolverLimit

    hard = SuiteSpec("t", ("mnk_5x5_k4",), 10, first_ply=0, node_limit=50, players=("random",))
    with pytest.raises(SolverLimit, match=r"^mnk_5x5_k4 position '.+ [xo]' is not solved within 50 positions$"):
        make_suite(hard, out=tmp_path / "t.csv", progress=lambda _line: None)
    assert not (tmp_path / "t.csv").exists()
    bad = tmp_path / "mates.csv"
    bad.write_text("variant,fen,kind,mate_in,best,stalemating\ngardner,5/5/5/5/5 w - - 0 1,mate,1,a1a2,\n")
    with pytest.raises(ValueError, match=r"^suite gardner-mates: illegal position '5/5/5/5/5 w - - 0 1' in "):
        make_suite("gardner-mates", source=bad, out=tmp_path / "g.csv", progress=lambda _line: None)
