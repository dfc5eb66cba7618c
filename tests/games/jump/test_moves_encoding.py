"""The jump game's other encoding, one action per complete move: the family ``jump_moves`` of the example package
``examples/jump_moves`` (registered by hand here, installed in the last test), against the plain implementation of
``reference.py`` and against the chain encoding: the same positions after every move, perft counting a chain once per
result, chains told apart by what they capture, and the network's actions; and that the package plugs in through
its entry point, sharing the jump package's code rather than copying it."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test

import mmc.games.jump as chain
from mmc.env import env
from mmc.games import Game, get_game, register_game, unregister_game
from mmc.games.jump.game import GAME as JUMP
from mmc.train.examples import policy_target
from tests.games.jump import JUMP_MOVES, jump_moves_module, jump_moves_registered, reference
from tests.games.jump.test_perft import played_positions, scattered_positions
from tests.test_example_package import install_package

MOVES = jump_moves_module()
GAME, Move, MOVES_VARIANTS = MOVES.GAME, MOVES.Move, MOVES.MOVES_VARIANTS
action_space, path = MOVES.action_space, MOVES.path
REPO = JUMP_MOVES.parents[1]

pytestmark = pytest.mark.xdist_group("jump")

LOOP = "8/8/8/3w4/2w1w3/2bw4/8/8 b 0"
"""Black's c3 can hop around d4 either way: over c4 and d5, or over d3 and e4, to e5 (and on)."""


@pytest.fixture(scope="module", autouse=True)
def registered() -> Iterator[Game]:
    with jump_moves_registered() as game:
        yield game


def results(variant: str, text: str) -> set[tuple]:
    """The plain implementation's positions after each complete move (a pass included), as sorted pieces."""
    v = MOVES_VARIANTS[variant]
    moves = reference.complete_moves(v, reference.parse(v, text))
    return {tuple(sorted(after.pieces.items())) for _, after in moves}


def pieces(state) -> tuple:
    """A state's pieces as the plain implementation keeps them: sorted ``((file, rank), piece)``."""
    board = state.board_array()
    return tuple(sorted(((s % 8, s // 8), int(board[s])) for s in range(64) if board[s]))


def distinct_perft(variant: str, text: str, depth: int) -> int:
    """Perft over the plain implementation's complete moves, a move counted once per position it reaches."""
    v = MOVES_VARIANTS[variant]

    def count(position: reference.Position, left: int) -> int:
        if left == 0:
            return 1
        after = {tuple(sorted(a.pieces.items())): a for _, a in reference.complete_moves(v, position)}
        return sum(count(a, left - 1) for a in after.values())

    return count(reference.parse(v, text), depth)


def as_moves(state) -> object:
    """A chain-encoding state between moves as the same position of the ``_moves`` variant."""
    return GAME.from_text(f"{state.variant_name}_moves", state.fen(), max_plies=state.max_plies)


@pytest.mark.parametrize("variant", list(MOVES_VARIANTS))
def test_perft_of_the_start_counts_each_result_once(variant: str) -> None:
    state = GAME.initial_state(variant)
    for depth in range(4):
        assert GAME.perft(state, depth) == distinct_perft(variant, state.fen(), depth), depth
    assert get_game(variant) is GAME


@pytest.mark.parametrize("variant", list(MOVES_VARIANTS))
def test_every_move_reaches_the_positions_of_the_rule_book(variant: str) -> None:
    """Random games and scattered boards: one move per distinct result, the same results as the plain
    implementation's complete moves, the chain encoding's outcome, and every move's text read back."""
    rng = np.random.default_rng(7)
    hop_variant = variant.removesuffix("_moves")
    states = [s for s in played_positions(hop_variant, 24, rng) if not s.path] + scattered_positions(
        hop_variant, 12, rng
    )
    assert len(states) >= 24
    for hop_state in states:
        state = as_moves(hop_state)
        moves = GAME.legal_moves(state)
        after = [GAME.apply_move(state, m) for m in moves]
        reached = {pieces(a) for a in after}
        assert len(reached) == len(moves), state.fen()
        assert reached == (results(variant, state.fen()) if GAME.outcome(state) is None else set()), state.fen()
        assert GAME.outcome(state) == chain.outcome(hop_state)
        for move, child in zip(moves, after, strict=True):
            assert GAME.parse_move(move.text()) == move and child.turn == -state.turn and child.ply == state.ply + 1
        assert GAME.perft(state, 2) == distinct_perft(variant, state.fen(), 2), state.fen()


def test_chains_to_one_square_that_capture_different_pieces_are_two_moves() -> None:
    state = GAME.from_text("jump_moves", LOOP)
    texts = [m.text() for m in GAME.legal_moves(state)]
    assert {"c3-c5", "c3-e5", "c3-e5/1", "c3-e3", "c3-e3/1", "c3-c5/1"} <= set(texts)
    first, second = GAME.parse_move("c3-e5"), GAME.parse_move("c3-e5/1")
    assert path(state, first) == (18, 34, 36) and GAME.move_cells(state, second) == ("c3", "e3", "e5")
    one, other = GAME.apply_move(state, first), GAME.apply_move(state, second)
    assert one.fen().split()[0] == "8/8/8/4b3/4w3/3w4/8/8" and other.fen().split()[0] == "8/8/8/3wb3/2w5/8/8/8"
    # the two share the network's action (start and end), and self-play's target adds their visits
    space = action_space("jump_moves")
    moves = GAME.legal_moves(state)
    assert space.encode(first, state.turn) == space.encode(second, state.turn)
    target, legal = policy_target(state, np.full(len(moves), 1 / len(moves)))
    flat = target.ravel()
    assert flat[space.encode(first, state.turn)] == pytest.approx(2 / len(moves))
    assert flat.sum() == pytest.approx(1.0) and legal.sum() == len({space.encode(m, state.turn) for m in moves})


def test_the_two_players_actions_are_each_others_mirror() -> None:
    """White's view flips the ranks: a White move is the action of the Black move turned upside down."""
    space = action_space("jump_6x6_moves")
    for black, white in (("c3-c4", "c4-c3"), ("a1-c1", "a6-c6"), ("b2-d4", "b5-d3"), ("pass", "pass")):
        assert space.encode(GAME.parse_move(black), 1) == space.encode(GAME.parse_move(white), -1)
    assert space.num_actions == 58 * 36


def test_greedy_finds_the_same_best_value_in_both_encodings() -> None:
    rng = np.random.default_rng(3)
    for hop_state in [s for s in played_positions("jump_6x6", 30, rng) if not s.path]:
        state = as_moves(hop_state)
        best = GAME.heuristic(state, GAME.legal_moves(state)).max()
        assert best == JUMP.heuristic(hop_state, chain.legal_moves(hop_state)).max(), state.fen()


def test_bad_moves_and_positions_are_refused_naming_the_square() -> None:
    state = GAME.from_text("jump_moves", LOOP)
    with pytest.raises(ValueError, match="no chain of the piece on c3 ends on g7"):
        GAME.apply_move(state, GAME.parse_move("c3-g7"))
    with pytest.raises(ValueError, match="d5 holds no piece of black"):
        GAME.apply_move(state, GAME.parse_move("d5-d6"))
    with pytest.raises(ValueError, match="neither a step nor a chain's end"):
        GAME.parse_move("c3-d5")
    with pytest.raises(ValueError, match="chain under way"):
        GAME.from_text("jump_moves", "8/8/2w5/2b5/8/8/8/8 b 0 c3-c5")
    assert GAME.legal_moves(GAME.from_text("jump_moves", "8/8/8/8/8/8/w7/b7 b 2")) == ()


def test_a_variant_id_too_long_for_the_training_rows_is_refused() -> None:
    long = Game(**{**{f: getattr(GAME, f) for f in GAME.__dataclass_fields__}, "name": "too_long",
                   "variants": {"jump_6x6_complete_encoding": MOVES_VARIANTS["jump_6x6_moves"]}})  # fmt: skip
    with pytest.raises(ValueError, match="'jump_6x6_complete_encoding' is longer than 24 characters"):
        register_game(long)
    unregister_game("too_long")
    assert Move(0).text() == "a1-a2" and get_game("jump_6x6_moves") is GAME


def test_its_variants_and_races_resolve_to_it_and_the_jump_packages_states_serve_them() -> None:
    assert get_game("jump_moves_p100") is GAME and get_game("jump_6x6_p60").name == "jump"
    state = GAME.initial_state("jump_6x6_moves_p60")
    assert state.variant is MOVES_VARIANTS["jump_6x6_moves_p60"] and state.variant.cap == 60
    assert chain.get_variant("jump_moves") is MOVES_VARIANTS["jump_moves"]
    with pytest.raises(ValueError, match="61 is not an even ply count"):
        get_game("jump_moves_p61")


def test_it_shares_the_jump_packages_code_instead_of_copying_it() -> None:
    """Every field of its game is the example's own (the moves) or the jump package's (all the rest), and its kernel
    bundle is the jump package's kernels but for the moves."""
    for field in dataclasses.fields(Game):
        value = getattr(GAME, field.name)
        module = getattr(getattr(value, "__wrapped__", value), "__module__", None)
        if callable(value) and module not in (None, "builtins"):
            assert module.startswith(("jump_moves.", "mmc.games.jump.")), (field.name, module)
    kernels = GAME.kernels
    for shared in ("game_end", "end_value", "status", "cutoff_value", "fill_planes"):
        assert getattr(kernels, shared) is getattr(JUMP.kernels, shared), shared
    assert kernels.play is not JUMP.kernels.play and GAME.observation_planes is JUMP.observation_planes


def test_the_library_names_it_nowhere() -> None:
    assert not any(("import jump_moves" in p.read_text() or "from jump_moves" in p.read_text())
                   for p in (REPO / "mmc").rglob("*.py"))  # fmt: skip


def test_the_environments_play_it() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(variant="jump_6x6_moves_p60"), num_cycles=20)


@pytest.mark.slow  # a pip install and fresh processes: 10-30 s
def test_installed_it_plugs_in_through_its_entry_point(tmp_path: Path) -> None:
    site = install_package(JUMP_MOVES, tmp_path)
    assert (site / "jump_moves" / "kernels.py").is_file() and list(site.glob("mmc_jump_moves-*.dist-info"))
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)])}

    def mmc(*argv: str) -> str:
        done = subprocess.run([sys.executable, "-m", "mmc", *argv], capture_output=True, text=True, env=environ,
                              cwd=tmp_path, timeout=600)  # fmt: skip
        assert done.returncode == 0 and "mmc: plugin" not in done.stderr, done.stderr
        return done.stdout

    listed = mmc("variants")
    assert "jump_moves: The jump game with one action per complete move" in listed and "  jump_6x6_moves " in listed
    assert mmc("perft", "jump_moves", "--depth", "3") == "31282\n"
    assert mmc("match", "greedy", "random", "--variant", "jump_6x6_moves_p20", "--games", "2").startswith(
        "greedy vs random on jump_6x6_moves_p20: "
    )
