"""Dark chess visibility agrees with Fairy-Stockfish's fog of war on seeded random games."""

from __future__ import annotations

import random
from pathlib import Path

import pyffish
import pytest

from mmc.games.chess import State, apply_move, initial_state, legal_moves, outcome, visible_squares

VARIANTS_INI = Path(__file__).resolve().parents[2] / "oracle" / "variants.ini"


def fog_hidden(state: State) -> set[int]:
    """Squares Fairy-Stockfish hides (``*`` in its fog FEN) from the side to move."""
    rows = pyffish.get_fog_fen(state.fen(), "gardnerkc").split()[0].split("/")
    hidden, height = set(), len(rows)
    for i, row in enumerate(rows):
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
                continue
            if ch == "*":
                hidden.add(8 * (height - 1 - i) + file)
            file += 1
    return hidden


@pytest.mark.slow  # 2.4-3.5 s a case
@pytest.mark.parametrize("seed", range(4))
def test_visible_squares_match_the_engine_fog(seed: int) -> None:
    pyffish.load_variant_config(VARIANTS_INI.read_text())
    rng = random.Random(seed)
    for game in range(25):
        state = initial_state("dark")
        while outcome(state) is None:
            seen = visible_squares(state, state.turn)
            ours = {8 * r + f for r in range(5) for f in range(5) if not seen[8 * r + f]}
            assert ours == fog_hidden(state), f"seed {seed} game {game}: {state.fen()}"
            moves = legal_moves(state)
            state = apply_move(state, moves[rng.randrange(len(moves))])
