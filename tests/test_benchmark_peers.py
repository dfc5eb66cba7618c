"""benchmarks/peers.py on tic-tac-toe for a fraction of a second: mmc's columns measured, the other engines' cells a
number where the ``peers`` extra is installed and ``-`` where not, and the tables and notes it prints."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest
from peers import BY_ID, INSTALL, Cell, human, ratio, run_engine, tables

REPO = Path(__file__).resolve().parent.parent
MMC = [e.id for e in BY_ID.values() if e.mmc]


def first_table(text: str) -> dict[str, dict[str, str]]:
    """The moves/s table of the markdown output: each row's cells by column title."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    table = {}
    for line in lines[2:]:
        if line.startswith("| game"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        table[cells[0]] = dict(zip(header[1:], cells[1:], strict=True))
    return table


def rate(text: str) -> float:
    """``1.2M`` -> 1.2e6, ``345k`` -> 345e3, ``950`` -> 950."""
    scale = {"M": 1e6, "k": 1e3}.get(text[-1], 1.0)
    return float(text[:-1] if scale != 1.0 else text) * scale


def test_the_mmc_engines_fill_their_columns() -> None:
    cells = [c for engine in MMC for c in run_engine(engine, ["tictactoe"], 0.2)]
    assert [c.status for c in cells] == ["ok"] * len(MMC), [c.note for c in cells]
    lengths = {c.engine: c.length for c in cells}
    assert all(7 <= lengths[e] <= 9 for e in MMC if e != "mmc-vector-random")  # a random game: 7.6 plies on average
    text = tables(cells, list(BY_ID), ["tictactoe"], markdown=True)
    row = first_table(text)["tic-tac-toe"]
    for engine in BY_ID.values():
        if engine.mmc:
            assert rate(row[engine.title]) > 0
        else:
            assert row[engine.title] == "-"  # not run here
    assert "Each mmc column over OpenSpiel" in text and "Each mmc column over pgx" in text


def test_the_command_line_runs_each_engine_in_its_own_process(tmp_path: Path) -> None:
    """The other engines are a number where installed and ``-`` with the install line where not."""
    out = tmp_path / "peers.csv"
    engines = "openspiel,pettingzoo,pgx,mmc-api"
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "peers.py"), "--seconds", "0.2", "--games",
                           "tictactoe", "--engines", engines, "--markdown", "--csv", str(out)],
                          capture_output=True, text=True, check=True, timeout=120)  # fmt: skip
    row = first_table(done.stdout)["tic-tac-toe"]
    assert rate(row["mmc API"]) > 0
    with open(out, newline="") as f:
        statuses = {r["engine"]: r["status"] for r in csv.DictReader(f)}
    assert statuses["mmc-api"] == "ok"
    for engine in ("openspiel", "pettingzoo", "pgx"):
        title = BY_ID[engine].title
        assert statuses[engine] in ("ok", "missing")
        if statuses[engine] == "ok":
            assert rate(row[title]) > 0
        else:
            assert row[title] == "-" and f"- {title}: {INSTALL}" in done.stdout


def test_an_engine_not_installed_or_without_the_game_gets_dashes(monkeypatch: pytest.MonkeyPatch) -> None:
    import peers

    def missing(game: str) -> None:
        raise ImportError("No module named 'pyspiel'")

    monkeypatch.setitem(peers.CHUNKS, "openspiel", missing)
    cells = run_engine("openspiel", ["tictactoe", "chess"], 0.1) + run_engine("pettingzoo", ["gomoku"], 0.1)
    assert [(c.game, c.status) for c in cells] == [("tictactoe", "missing"), ("chess", "missing"), ("gomoku", "lacks")]
    cells.append(Cell("mmc-api", "tictactoe", "ok", 2.5e5, 500_000, 60_000, 456_000, 60_000, 2.0))
    text = tables(cells, ["openspiel", "pettingzoo", "mmc-api"], ["tictactoe", "gomoku"], markdown=False)
    assert f"- OpenSpiel: {INSTALL} (No module named 'pyspiel')" in text
    assert "tic-tac-toe" in text and "250k" in text and "7.6" in text


def test_numbers() -> None:
    assert [human(x) for x in (1_234_567, 345_000, 12_345, 950.4)] == ["1.2M", "345k", "12.3k", "950"]
    assert [ratio(x) for x in (123.0, 3.44, 0.523)] == ["123x", "3.4x", "0.52x"]
