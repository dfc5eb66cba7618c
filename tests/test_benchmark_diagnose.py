"""benchmarks/diagnose.py on the tiny profile: it trains, analyses the kept networks and writes the CSVs that
BENCHMARKS.md quotes; and the checked-in suite is what the exact search says it is."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from mmc.games.chess import legal_moves
from mmc.games.chess.puzzles import Puzzle, read_puzzles

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "pipelines" / "params-tiny.yaml"
SUITE = REPO / "benchmarks" / "data" / "mates.csv"


def test_the_checked_in_suite_is_what_the_exact_search_finds() -> None:
    puzzles = read_puzzles(SUITE)
    counts: dict[tuple[str, str, int], int] = {}
    for p in puzzles:
        counts[(p.variant, p.kind, p.mate_in)] = counts.get((p.variant, p.kind, p.mate_in), 0) + 1
    assert set(counts.values()) == {20} and len(counts) == 12, "20 of each kind and length in three variants"
    for p in puzzles[::7]:  # a sample: the whole suite takes the search about a minute
        assert Puzzle.of(p.state, 3) == p
        assert set(p.best) <= {m.uci() for m in legal_moves(p.state)}


@pytest.mark.slow
def test_the_diagnosis_trains_analyses_and_writes_its_tables(tmp_path: Path) -> None:
    command = [sys.executable, str(REPO / "benchmarks" / "diagnose.py"), "--params", str(TINY),
               "--generations", "1", "--keep", "0,1", "--games", "2", "--search-games", "2",
               "--out", str(tmp_path)]  # fmt: skip
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    ends = list(csv.DictReader((tmp_path / "terminations.csv").open()))
    sources = {(r["source"], r["generation"]) for r in ends}
    assert ("self-play", "0") in sources and ("self-play", "1") in sources, "the last network's self-play is played"
    for source in ("policy-vs-random", "policy-vs-greedy", "search-vs-random", "search-vs-greedy"):
        rows = [r for r in ends if r["source"] == source]
        assert [r["generation"] for r in rows] == ["0", "1"]
        for r in rows:
            assert int(r["wins"]) + int(r["draws"]) + int(r["losses"]) == int(r["games"]) == 2
            reasons = ("checkmate", "stalemate", "repetition", "fifty-move", "ply-cap", "insufficient-material")
            assert sum(int(r[k]) for k in reasons) == 2
    targets = list(csv.DictReader((tmp_path / "targets.csv").open()))
    assert {(r["generation"], r["noise"], r["kind"]) for r in targets} == {
        (g, n, k) for g in "01" for n in ("noise", "no-noise") for k in ("mate", "stalemate-trap")
    }
    assert all(0 <= float(r["best"]) + float(r["stalemating"]) <= 1.001 for r in targets)
    calibration = [r for r in csv.DictReader((tmp_path / "calibration.csv").open()) if r["group"] == "all"]
    assert [r["generation"] for r in calibration] == ["0", "1"] and all(int(r["positions"]) > 0 for r in calibration)
    suite = [r for r in csv.DictReader((tmp_path / "suite.csv").open()) if r["variant"] == "all"]
    players = {(r["player"], r["generation"]) for r in suite}
    assert players == {("greedy", ""), ("fairy:nodes=100", ""), *((p, g) for p in ("policy", "search") for g in "01")}
    greedy = {(r["kind"], r["mate_in"]): float(r["solved"]) for r in suite if r["player"] == "greedy"}
    assert greedy[("mate", "1")] == 1.0 and greedy[("stalemate-trap", "1")] == 1.0, "greed takes a mate in one"
    assert "(d) Suite solve rates" in done.stdout
