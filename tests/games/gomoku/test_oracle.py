"""The freestyle and gravity variants against Fairy-Stockfish, with the family's own variant definitions
(``mmc/games/gomoku/engine-variants.ini``): through ``pyffish`` (test-only, GPL-3) and the Debian binary
``/usr/games/fairy-stockfish`` run as a separate program.

- the legal cells and the end of the game (a line: the player to move has lost; a full board: a draw) at every
  ply of seeded random games, and the engine's FEN of the position reached (pyffish);
- perft, which counts a finished game as having no moves (``docs/rules/kinarow.md``, "Perft"): from the start
  through pyffish (its legal moves, recursively); from 30 random positions per variant to depth 3 through the binary's
  ``go perft``, and from 30 positions late in random games, which end more branches, through it too (pyffish's
  legal moves, one call per node, took 195 s for those on the three boards; the binary takes a fraction of a
  second).
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pyffish
import pytest

from mmc.games.gomoku import State, Termination, apply_move, cell_name, initial_state, outcome, perft
from mmc.games.gomoku import legal_moves as kernel_moves
from mmc.games.gomoku.engine import MAX_ENGINE_HEIGHT, MAX_ENGINE_WIDTH, VARIANT_FILE, engine_fen, start_board
from mmc.games.gomoku.variants import generated_id, get_variant
from tests.games.gomoku import ORACLE_VARIANTS, random_game, random_positions

pytestmark = pytest.mark.slow  # the differential suite against the engine: minutes in all

BINARY = "/usr/games/fairy-stockfish"


def _generated_sample() -> tuple[str, ...]:
    """Generated variants for the oracle: the corners of the engine's range (the smallest and the largest boards,
    the longest k, the narrowest boards, gravity on each), then 8 more drawn at random (seeded) from every generated
    id it plays."""
    corners = ("mnk_3x4_k3", "mnk_4x3_k4", "mnk_12x10_k6", "mnk_3x10_k10", "mnk_12x3_k5", "mnk_7x5_k4",
               "grav_4x4_k3", "grav_5x4_k3", "grav_12x10_k4", "grav_3x9_k9", "grav_10x3_k7")  # fmt: skip
    every = [generated_id(w, h, k, gravity=g) for g in (False, True) for w in range(3, MAX_ENGINE_WIDTH + 1)
             for h in range(3, MAX_ENGINE_HEIGHT + 1) for k in range(3, max(w, h) + 1)]  # fmt: skip
    drawn = np.random.default_rng(47).choice(len(every), size=8, replace=False)
    return corners + tuple(every[int(i)] for i in drawn if every[int(i)] not in corners)


GENERATED = _generated_sample()
"""The generated boards the oracle checks (the rule book: every generated variant that fits the engine's limit can be
checked; these are a fixed sample of them)."""


@pytest.fixture(autouse=True, scope="module")
def oracle_variants() -> None:
    """Every test here needs the family's variant definitions loaded into pyffish."""
    pyffish.load_variant_config(VARIANT_FILE.read_text())


def drops(state: State) -> set[str]:
    return {"P@" + cell_name(m) for m in kernel_moves(state)}


def oracle_perft(variant: str, fen: str, depth: int, played: tuple[str, ...] = ()) -> int:
    """Perft through pyffish's legal moves alone (a finished game has none), one call per node: the moves ``played``
    from ``fen``, then each legal one."""
    moves = pyffish.legal_moves(variant, fen, list(played))
    if depth <= 1:
        return len(moves) if depth == 1 else 1
    return sum(oracle_perft(variant, fen, depth - 1, (*played, m)) for m in moves)


@pytest.mark.parametrize("variant", ORACLE_VARIANTS + GENERATED)
def test_the_engine_starts_from_our_start(variant: str) -> None:
    fen = pyffish.start_fen(variant)
    assert fen.split()[0] == start_board(variant)
    assert fen == engine_fen(initial_state(variant))


@pytest.mark.parametrize(("variant", "depth"), [("tictactoe", 3), ("gomoku_6x6", 2), ("gomoku_8x8", 2),
                                                ("gomoku_9x9", 2), ("connect4", 3)])  # fmt: skip
def test_perft_from_the_start_equals_pyffish(variant: str, depth: int) -> None:
    assert perft(initial_state(variant), depth) == oracle_perft(variant, pyffish.start_fen(variant), depth)


def check_game(variant: str, seed: int) -> Termination:
    """One random game, compared with pyffish at every ply; its termination."""
    start = pyffish.start_fen(variant)
    moves: list[str] = []
    for state in random_game(variant, np.random.default_rng(seed), near=0.8):
        if state.last is not None:
            moves.append("P@" + cell_name(state.last))
        where = f"{variant} seed {seed} {state.fen()}"
        fen = engine_fen(state)
        assert pyffish.get_fen(variant, start, moves) == fen, where
        assert set(pyffish.legal_moves(variant, fen, [])) == drops(state), where
        ended, value = pyffish.is_immediate_game_end(variant, fen, [])
        result = outcome(state)
        if result is None:
            assert not ended, where
            continue
        if result.termination is Termination.LINE:
            assert ended and value < 0, where  # the player to move has lost
        else:
            assert result.termination is Termination.FULL_BOARD and pyffish.game_result(variant, fen, []) == 0, where
        return result.termination
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("variant", ORACLE_VARIANTS + GENERATED)
def test_random_games_agree_with_pyffish_at_every_ply(variant: str) -> None:
    """12 games (tic-tac-toe, Connect Four), 6 (the other named variants) or 4 (a generated board), and more until
    one has ended in a line where a line fits the board in every direction (k at most its shorter side; a line of k
    along the longer side alone is rare in random play)."""
    games = 12 if variant in ("tictactoe", "connect4") else 6 if variant in ORACLE_VARIANTS else 4
    ends = {check_game(variant, seed) for seed in range(games)}
    v = get_variant(variant)
    if v.k <= min(v.width, v.height):
        seed = games
        while Termination.LINE not in ends and seed < 40:
            ends.add(check_game(variant, seed))
            seed += 1
        assert Termination.LINE in ends


def binary_perft(variant: str, positions: list[State], depth: int) -> list[int]:
    """``go perft depth`` of the binary from each position, in one engine process."""
    script = [f"uci\nsetoption name VariantPath value {VARIANT_FILE}\nsetoption name UCI_Variant value {variant}"]
    script += [f"position fen {engine_fen(state)}\ngo perft {depth}" for state in positions]
    output = subprocess.run([BINARY], input="\n".join([*script, "quit\n"]), capture_output=True, text=True, check=True)
    return [int(line.split()[-1]) for line in output.stdout.splitlines() if line.startswith("Nodes searched")]


@pytest.mark.skipif(shutil.which(BINARY) is None, reason=f"{BINARY} missing (apt-get install fairy-stockfish)")
@pytest.mark.parametrize("variant", ORACLE_VARIANTS + GENERATED)
def test_perft_of_random_positions_equals_the_engines(variant: str) -> None:
    """30 positions of dense random games (lines end some branches; 10 on a generated board), depth 3, through the
    binary's perft."""
    count = 30 if variant in ORACLE_VARIANTS else 10
    positions = random_positions(variant, count, seed=len(variant), near=0.9, late=0.5)
    ours = [perft(state, 3) for state in positions]
    assert ours == binary_perft(variant, positions, 3)
    v = get_variant(variant)
    if v.k <= min(v.width, v.height):  # a line fits every direction: some branch ends in one
        assert any(map(line_within_two_moves, positions))


def line_within_two_moves(state: State) -> bool:
    """Whether a line ends some branch of the tree two moves below ``state`` (so perft 3 counts finished games)."""
    children = [apply_move(state, move) for move in kernel_moves(state)]
    return any(outcome(c) is not None or any(outcome(apply_move(c, m)) for m in kernel_moves(c)) for c in children)


@pytest.mark.skipif(shutil.which(BINARY) is None, reason=f"{BINARY} missing (apt-get install fairy-stockfish)")
@pytest.mark.parametrize("variant", ORACLE_VARIANTS)
def test_perft_of_late_positions_equals_the_engines(variant: str) -> None:
    """30 positions late in random games (few empty cells, many finished branches), depth 3, through the binary."""
    positions = random_positions(variant, 30, seed=len(variant) + 1, near=0.5, late=0.9)
    assert [perft(state, 3) for state in positions] == binary_perft(variant, positions, 3)
    assert any(map(line_within_two_moves, positions))
