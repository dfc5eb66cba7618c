"""The python:MODULE:CALLABLE player spec: a function, an object or a class with play, from a module or a file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mmc.play import GreedyPlayer, parse_player, play_match

MODULE = """
from mmc.games.chess import legal_moves
from mmc.play import GreedyPlayer

def first(state, rng):
    return legal_moves(state)[0]

class Greedy(GreedyPlayer):
    pass

player = GreedyPlayer()
"""


@pytest.mark.parametrize("name", ["first", "Greedy", "player"])
def test_a_function_a_class_or_an_object_plays_a_match(tmp_path: Path, name: str) -> None:
    (tmp_path / "ext.py").write_text(MODULE)
    player = parse_player(f"python:{tmp_path / 'ext.py'}:{name}", variant="gardner")
    result = play_match(player, GreedyPlayer(), "gardner", 2, np.random.default_rng(0))
    assert result.wins + result.draws + result.losses == 2


@pytest.mark.parametrize(
    ("spec", "message"),
    [("python:json", "expected python:MODULE:CALLABLE"), ("python:no_such_xyz:f", "cannot import"),
     ("python:json:missing", "has no 'missing'"), ("python:json:__doc__", "neither callable")],
)  # fmt: skip
def test_bad_specs_are_one_line_errors(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as error:
        parse_player(spec, variant="gardner")
    assert "\n" not in str(error.value)
