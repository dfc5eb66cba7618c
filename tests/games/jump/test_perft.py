"""Perft of the jump game as the rule book defines it (sequences of complete moves, a chain told by its landings),
counted in compiled code, against the plain implementation of ``reference.py``: the starts to depth 3 and, per
variant, 40 random positions (reached by random play, chains under way among them, and scattered boards near the
cap) to depth 2."""

from __future__ import annotations

import re

import numpy as np
import pytest

from mmc.games import get_game
from mmc.games.jump import (
    VARIANTS,
    Termination,
    apply_move,
    from_text,
    initial_state,
    legal_moves,
    outcome,
    parse_move,
    perft,
)
from mmc.games.jump.fen import board_text
from mmc.games.jump.variants import NAMED, get_variant
from mmc.games.perft import perft_divide
from tests.games.jump import reference

pytestmark = pytest.mark.xdist_group("jump")

RACES = ["jump_p100", "jump_halma_p40", "jump_6x6_p40"]
"""Generated variants (``V_pN``: ``V`` scored at ply ``N``), whose games end earlier than their named variant's."""


def reference_perft(state, depth: int) -> int:
    v = state.variant
    return reference.perft(v, reference.parse(v, state.fen()), depth)


def played_positions(variant: str, count: int, rng: np.random.Generator) -> list:
    """Positions of random games (some with a chain under way), the game not over."""
    found = []
    while len(found) < count:
        state, chain = initial_state(variant), len(found) < count // 4  # a quarter stop in a chain
        for played in range(400):
            if outcome(state) is not None or (played > 20 and (bool(state.path) if chain else rng.random() < 0.02)):
                break
            moves = legal_moves(state)
            state = apply_move(state, moves[int(rng.integers(len(moves)))])
        if outcome(state) is None and bool(state.path) == chain:
            found.append(state)
    return found


def scattered_positions(variant: str, count: int, rng: np.random.Generator) -> list:
    """Random boards (pieces anywhere, some sides short of pieces) at random plies, many near the cap."""
    v = VARIANTS[variant]
    squares = [8 * r + f for r in range(v.height) for f in range(v.width)]
    found = []
    for _ in range(count):
        chosen = rng.permutation(squares)[: int(rng.integers(0, 2 * v.pieces + 1))]
        split = int(rng.integers(0, len(chosen) + 1))
        black, white = chosen[:split][: v.pieces], chosen[split:][: v.pieces]
        cells = {int(s): 1 for s in black} | {int(s): -1 for s in white}
        ply = int(rng.choice([rng.integers(0, v.cap + 1), v.cap - 1, v.cap - 2, v.cap]))
        side = "b" if ply % 2 == 0 else "w"
        found.append(from_text(variant, f"{board_text(cells, v.height, v.width)} {side} {ply}"))
    return found


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_perft_of_the_start_matches_the_plain_implementation(variant: str) -> None:
    state = initial_state(variant)
    for depth in range(4):
        assert perft(state, depth) == reference_perft(state, depth), (variant, depth)


@pytest.mark.parametrize("variant", [*RACES, "jump_diagonal_p60", "jump_halma_p2"])
def test_a_generated_race_is_its_variant_until_its_earlier_end(variant: str) -> None:
    """The same moves from the start (perft to depth 3, as its named variant's, to its end) and the same game until
    ply ``N``, where it ends by score, as the named variant does at its cap."""
    race = VARIANTS[variant]
    base = VARIANTS[variant.rsplit("_p", 1)[0]]
    assert (race.cap, race.height, race.start, race.diagonal, race.captures) == (
        int(variant.rsplit("_p", 1)[1]),
        base.height,
        base.start,
        base.diagonal,
        base.captures,
    )
    for depth in range(4):  # a sequence longer than the race has none of its moves after the end
        expected = perft(initial_state(base.name), depth) if depth <= race.cap else 0
        assert perft(initial_state(variant), depth) == expected
    rng = np.random.default_rng(0)
    state, full = initial_state(variant), initial_state(base.name)
    while outcome(state) is None:
        assert outcome(full) is None and state.fen().split()[0] == full.fen().split()[0]
        move = legal_moves(state)[int(rng.integers(len(legal_moves(state))))]
        state, full = apply_move(state, move), apply_move(full, move)
    assert state.ply == race.cap or outcome(full) is not None, "the race ends at its cap, or where the full game does"
    if state.ply == race.cap and outcome(full) is None:
        assert outcome(state)[1] == Termination.MOVE_CAP and legal_moves(state) == () and perft(state, 1) == 0
        ply = base.cap if base.cap > race.cap else race.cap
        assert from_text(base.name, f"{state.fen().rsplit(' ', 1)[0]} {ply}").ply == ply


def test_a_generated_race_id_is_refused_in_one_line_naming_the_valid_forms() -> None:
    for bad, why in (
        ("jump_p101", "101 is not an even ply count"),
        ("jump_p400", "below jump's cap (400)"),
        ("jump_6x6_p0200", "without leading zeros"),
        ("jump_6x6_p200", "below jump_6x6's cap (200)"),
    ):
        with pytest.raises(ValueError, match=re.escape(why)) as refused:
            get_variant(bad)
        assert "V_pN" in str(refused.value) and "\n" not in str(refused.value)
    assert "jump_p100" in VARIANTS and "jump_p101" not in VARIANTS and list(VARIANTS) == list(NAMED)
    with pytest.raises(ValueError, match="unknown variant 'jump_8x8_p100'"):
        get_game("jump_8x8_p100")
    assert get_game("jump_6x6_p60").name == "jump"


def test_the_start_of_jump_has_31_steps_and_no_hop() -> None:
    """Every start piece stands on a square of one colour: no two are orthogonal neighbours, so none can hop."""
    assert perft(initial_state("jump"), 1) == 31
    assert perft(initial_state("jump_6x6"), 1) == 20


@pytest.mark.parametrize("variant", [*VARIANTS, *RACES])
def test_perft_of_random_positions_matches_the_plain_implementation(variant: str) -> None:
    rng = np.random.default_rng(
        sorted(VARIANTS).index(variant) if variant in list(VARIANTS) else 10 + RACES.index(variant)
    )
    states = played_positions(variant, 25, rng) + scattered_positions(variant, 15, rng)
    chains = 0
    for state in states:
        chains += bool(state.path)
        for depth in (1, 2):
            assert perft(state, depth) == reference_perft(state, depth), (state.fen(), depth)
    assert chains >= 6, "chains under way among the positions"


def test_a_finished_game_has_no_moves_and_a_game_ending_move_counts() -> None:
    """White is all home but one piece on e3, which steps in with e3-e2: perft(1) counts that step among White's 6
    moves; perft(2) leaves it out (Black's one piece on a1 answers each of the 5 others)."""
    state = from_text("jump", "8/8/8/8/8/4w3/w7/b7 w 1")
    assert perft(state, 1) == reference_perft(state, 1) == 6
    ended = apply_move(state, parse_move("e3-e2"))
    assert outcome(ended) is not None and perft(ended, 1) == 0
    assert (
        perft(state, 2)
        == reference_perft(state, 2)
        == sum(perft(apply_move(state, m), 1) for m in legal_moves(state) if m.text() != "e3-e2")
    )
    over = from_text("jump", "8/8/8/8/8/8/w7/b7 b 2")
    assert outcome(over) is not None and legal_moves(over) == () and perft(over, 1) == 0 and perft(over, 0) == 1


def test_two_chains_that_reach_the_same_position_are_two_moves() -> None:
    """c3 hops around its own pieces to e5 two ways (over c4 and d5, or over d3 and e4): two moves reaching one
    position, and every landing on the way ends a move of its own."""
    state = from_text("jump", "8/8/8/3b4/2b1b3/2bb4/8/8 b 0")
    v = state.variant
    moves = {"-".join(reference.name(s) for s in path): after for path, after in
             reference.complete_moves(v, reference.parse(v, state.fen()))}  # fmt: skip
    chains = {text for text in moves if text.startswith("c3-") and text not in ("c3-b3", "c3-c2")}
    assert chains == {"c3-c5", "c3-c5-e5", "c3-c5-e5-e3", "c3-e3", "c3-e3-e5", "c3-e3-e5-c5"}
    assert moves["c3-c5-e5"] == moves["c3-e3-e5"]
    assert perft(state, 1) == len(moves) == reference_perft(state, 1)


def test_divide_by_first_action_sums_to_perft() -> None:
    """``mmc perft --divide`` splits by first action; a hop whose chain goes on keeps its depth (it counts no ply)."""
    state = from_text("jump", "8/8/3w4/8/3w4/3b4/8/8 b 0")
    split = dict(perft_divide(state, 2))
    assert sum(split.values()) == perft(state, 2) == reference_perft(state, 2)
    assert "d3-d5" in split
