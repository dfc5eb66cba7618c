"""mmc.games.perft: perft divide for any family, and perft suites under either header."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmc.games import Game, initial_state
from mmc.games.chess import perft_divide as chess_perft_divide
from mmc.games.perft import perft_divide, read_perft_suite


def test_divide_is_the_familys_own_in_chess_and_sums_to_perft_in_bonus(bonus_game: Game) -> None:
    assert perft_divide(initial_state("gardner"), 3) == chess_perft_divide(initial_state("gardner"), 3)
    split = perft_divide(initial_state("bonus_2x3"), 3)
    assert [move for move, _ in split] == ["a1", "b1", "c1", "a2", "b2", "c2"]
    assert sum(nodes for _, nodes in split) == bonus_game.perft(initial_state("bonus_2x3"), 3) == 120


@pytest.mark.parametrize("header", ["variant,position,depth,nodes", "variant,fen,depth,nodes"])
def test_a_suite_reads_under_either_header(bonus_game: Game, tmp_path: Path, header: str) -> None:
    suite = tmp_path / "suite.csv"
    suite.write_text(f"{header}\ngardner,rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1,1,7\n\nbonus_2x3,.../... x,2,30\n")
    rows = read_perft_suite(suite)
    assert [(r.line, r.variant, r.depth, r.nodes) for r in rows] == [(2, "gardner", 1, 7), (4, "bonus_2x3", 2, 30)]


def test_a_bad_row_names_its_line(tmp_path: Path) -> None:
    suite = tmp_path / "suite.csv"
    suite.write_text("variant,position,depth,nodes\ngardner,rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1,1\n")
    with pytest.raises(ValueError, match=r"suite.csv:2: expected 4 fields, got 3$"):
        read_perft_suite(suite)
