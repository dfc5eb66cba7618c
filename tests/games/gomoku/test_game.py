"""The k-in-a-row family through the platform, with no edit under mmc/search, mmc/train or mmc/play: the search
(wins and blocks, proofs), the AlphaZero loop, one network for every board size, matches against every kind of
player and Fairy-Stockfish, records; and what people see (text, pictures, clicks, the greedy scores)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from mmc.core.seeding import root
from mmc.games import get_game
from mmc.games.gomoku import (
    NUM_PLANES,
    Stone,
    Termination,
    apply_move,
    board_view,
    from_text,
    initial_state,
    legal_moves,
    move_cells,
    observation_planes,
    parse_cell,
    render,
)
from mmc.games.gomoku.board import kernel_board, random_playout, table
from mmc.loops.alphazero import AlphaZeroConfig, alphazero
from mmc.nn import NetworkConfig, build_network
from mmc.play import FairyError, FairyPlayer, RandomPlayer, parse_player, play_match, read_records, replay
from mmc.play.fairy import DEFAULT_BINARY
from mmc.play.records import write_records
from mmc.search import NetworkLeafEvaluator, RolloutEvaluator, SearchConfig, search
from mmc.train import TrainConfig

GAME = get_game("gomoku")
WIN_IN_ONE = "9/9/9/9/9/9/9/oooo5/xxxx5 x"  # black: a1-d1, e1 wins; white threatens e2
LOSS_IN_ONE = "x8/9/9/9/9/9/9/oooo5/xxx1x4 o"  # white to move: e2 wins now, though black threatens d1
needs_engine = pytest.mark.skipif(shutil.which(DEFAULT_BINARY) is None, reason=f"{DEFAULT_BINARY} is not installed")


def cells(names: str) -> list[int]:
    return [parse_cell(n) for n in names.split()]


@pytest.mark.parametrize("variant", ["gomoku_9x9", "exact_9x9", "caro_9x9"])
def test_the_search_takes_a_win_in_one_and_proves_it(variant: str) -> None:
    state = from_text(variant, WIN_IN_ONE)
    config = SearchConfig(simulations=64, solver=True)
    (result,) = search([state], RolloutEvaluator(np.random.default_rng(0)), config, np.random.default_rng(1))
    best = result.moves[int(np.argmax(result.visit_counts))]
    assert best == parse_cell("e1") and result.proven is not None and result.proven.max() == 1


def test_the_search_blocks_in_connect_four() -> None:
    state = from_text("connect4", "7/7/7/o6/o6/o1xx2x x")  # white's a1-a3 threatens a4
    (result,) = search([state], RolloutEvaluator(np.random.default_rng(0)), SearchConfig(simulations=400, solver=True),
                       np.random.default_rng(1))  # fmt: skip
    assert result.moves[int(np.argmax(result.visit_counts))] == parse_cell("a4")


def test_the_greedy_scores_a_win_over_a_block_over_the_longest_line() -> None:
    scores = GAME.heuristic(from_text("gomoku_9x9", WIN_IN_ONE), cells("e1 e2 i9"))
    assert scores[0] > scores[1] > scores[2] == 1
    assert len(GAME.heuristic(initial_state("gomoku_9x9"), [])) == 0
    lines = GAME.heuristic(from_text("gomoku_9x9", "o8/9/9/9/9/9/9/9/xx6o x"), cells("c1 a2 i5"))
    assert lines.tolist() == [3, 2, 1]
    blocked = from_text("gomoku_9x9", LOSS_IN_ONE)
    scores = GAME.heuristic(blocked, cells("e2 d1 i9"))
    assert scores[0] > scores[1] > scores[2]
    assert parse_player("greedy", variant="gomoku_9x9").play([blocked], np.random.default_rng(0)) == cells("e2")


def test_alphazero_self_play_training_and_arena_on_tictactoe() -> None:
    net = build_network(NetworkConfig.for_game(GAME, blocks=1, filters=8, value_hidden=8), seed=0)
    config = AlphaZeroConfig(generations=1, games=4, chunks=1, concurrent=4, max_plies=9, window=1, arena_games=2,
                             arena_simulations=8)  # fmt: skip
    (step,) = alphazero(net, "tictactoe", config, SearchConfig(simulations=16), TrainConfig(epochs=1, batch_size=8),
                        root(0))  # fmt: skip
    examples = step.self_play.examples[0]
    assert examples.planes.shape[1:] == (NUM_PLANES, 3, 3) and examples.policy.shape[1:] == (1, 3, 3)
    assert np.isfinite([loss.total for loss in step.losses]).all() and step.arena is not None
    for record in step.self_play.records:
        assert GAME.outcome(replay(record)[-1]) is not None


def test_one_network_reads_every_board_of_the_family() -> None:
    net = build_network(NetworkConfig.for_game(GAME, blocks=1, filters=8, value_hidden=8), seed=0)
    evaluator = NetworkLeafEvaluator(net)
    for variant in ("tictactoe", "connect4", "gomoku"):
        state = apply_move(initial_state(variant), legal_moves(initial_state(variant))[0])
        (result,) = search([state], evaluator, SearchConfig(simulations=4), np.random.default_rng(0))
        assert result.visit_counts.sum() == 4 and len(result.moves) == len(legal_moves(state))


@pytest.mark.parametrize("opponent", ["random", "greedy", "mcts:16"])
def test_matches_end_and_their_records_replay(opponent: str, tmp_path: Path) -> None:
    for variant in ("gomoku_6x6", "connect4", "caro_9x9"):
        result = play_match(parse_player("greedy", variant=variant), parse_player(opponent, variant=variant),
                            variant, 2, np.random.default_rng(0), opening_plies=2, max_plies=225)  # fmt: skip
        path = write_records(result.records, tmp_path / f"{variant}.pgn")
        for record in read_records(path):
            final = replay(record)[-1]
            assert record.termination in GAME.terminations and record.termination != "move-cap"
            assert GAME.outcome(final) is not None


@needs_engine
@pytest.mark.parametrize("variant", ["gomoku_8x8", "connect4", "mnk_7x5_k4", "grav_12x10_k5"])
def test_fairy_stockfish_plays_whole_games_and_beats_random(variant: str) -> None:
    with FairyPlayer(variant, nodes=100) as engine:
        result = play_match(engine, RandomPlayer(), variant, 4, np.random.default_rng(0), max_plies=225)
    for record in result.records:
        replay(record)
    assert result.wins >= 3


@pytest.mark.parametrize("variant", ["exact_9x9", "caro_9x9", "gomoku", "mnk_13x10_k5", "grav_12x11_k4"])
def test_fairy_stockfish_refuses_the_variants_it_cannot_play(variant: str) -> None:
    with pytest.raises(FairyError, match=f"does not play {variant}"):
        FairyPlayer(variant, nodes=10)


def test_text_picture_and_clicks() -> None:
    state = apply_move(apply_move(initial_state("connect4"), parse_cell("d1")), parse_cell("d2"))
    assert render(state) == "\n".join(["· · · · · · ·"] * 4 + ["· · · ○ · · ·", "· · · ● · · ·"])
    assert render(state, coordinates=True).splitlines()[-1] == "  a b c d e f g"
    view = board_view(state)
    assert view.files == tuple("abcdefg") and view.ranks == tuple("123456")
    assert view.cells[3] == (1, "●") and view.cells[7 + 3] == (-1, "●") and view.cells[0] == (0, "")
    assert view.marks == (("last", (10,)),)
    assert move_cells(state, parse_cell("d3")) == (("d3", "d1", "d2", "d4", "d5", "d6"),)
    assert move_cells(initial_state("gomoku"), parse_cell("o15")) == ("o15",)
    assert len(render(initial_state("gomoku"), coordinates=True).splitlines()[0]) == 2 + 1 + 29


def test_the_planes_show_the_mover_the_legal_cells_and_the_last_stone() -> None:
    state = apply_move(initial_state("connect4"), parse_cell("c1"))
    planes = observation_planes(state)
    assert planes.shape == (NUM_PLANES, 6, 7)
    assert planes[1, 0, 2] == 1 and planes[0].sum() == 0  # white to move: black's c1 is the opponent's
    assert planes[2].all() and planes[3].sum() == 7 and planes[3, 1, 2] == 1 and planes[3, 0, 2] == 0
    assert planes[4].sum() == 1 and planes[4, 0, 2] == 1 and not planes[5].any()
    black = observation_planes(state, color=Stone.BLACK)
    assert black[0, 0, 2] == 1 and black[5].all()


def _played(variant: str, cells: str):
    state = initial_state(variant)
    for cell in cells.split():
        state = apply_move(state, parse_cell(cell))
    return state


def _marked(plane: np.ndarray) -> set[tuple[int, int]]:
    return {(int(rank), int(file)) for rank, file in zip(*np.nonzero(plane), strict=True)}


def test_the_planes_show_each_sides_winning_cells_under_the_variants_rule() -> None:
    freestyle = observation_planes(_played("gomoku_6x6", "a1 a6 b1 b6 c1 c6"))  # black to move, three each
    assert _marked(freestyle[6]) == {(0, 3)} and _marked(freestyle[7]) == {(5, 3)}  # d1 wins, d6 must be blocked
    assert not observation_planes(_played("mnk_6x6_k5", "a1 a6 b1 b6 c1 c6"))[6:].any()  # five in a row: none yet
    three = observation_planes(_played("mnk_6x6_k3", "a1 a6 b1 b6"))
    assert _marked(three[6]) == {(0, 2)} and _marked(three[7]) == {(5, 2)}
    gravity = _played("connect4", "a1 a2 b1 b2 c1 c2")  # white's d2 floats above an empty d1: not a cell to block
    assert _marked(observation_planes(gravity)[6]) == {(0, 3)} and not observation_planes(gravity)[7].any()
    white = observation_planes(gravity, color=Stone.WHITE)
    assert not white[6].any() and _marked(white[7]) == {(0, 3)}


def test_the_kernels_as_the_search_takes_them() -> None:
    state = apply_move(initial_state("gomoku_8x8"), parse_cell("d5"))
    kernel = GAME.kernel_state(state)
    assert kernel.side == -1 and kernel.clock == 0 and kernel.ply == 1 and kernel.history == ()
    assert GAME.code_of(parse_cell("d5")) == 16 * 4 + 3 and GAME.move_of_code(16 * 4 + 3) == parse_cell("d5")
    board = kernel_board(state).copy()
    assert 0 < random_playout(board, -1, table("gomoku_8x8"), 0, 225) <= 63
    assert GAME.kernels.ALTERNATES and GAME.kernels.MAX_MOVES == 225
    assert Termination.LINE.value in GAME.terminations
