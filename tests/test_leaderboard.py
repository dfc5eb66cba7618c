"""mmc rate and mmc.evaluation.leaderboard: the study's rating code for any player, its leaderboard file, and its
CLI."""

from __future__ import annotations

import csv
import textwrap
from pathlib import Path

import pytest
import yaml

from mmc.cli import build_parser, main
from mmc.core.seeding import derive, root
from mmc.evaluation.evaluate import Cell, EvaluateConfig, RateConfig, evaluate, rate
from mmc.evaluation.leaderboard import LEADERBOARD_FIELDS, LeaderboardRow, append_leaderboard, rate_players
from mmc.evaluation.rating import Pairing
from mmc.games import Game
from mmc.nn import NetworkConfig, build_network, load_checkpoint, save_checkpoint
from mmc.search import SearchConfig

REPO = Path(__file__).resolve().parents[1]
AGENT = """
    from mmc.games.chess import apply_move, legal_moves, outcome

    def agent(state, rng):
        moves = legal_moves(state)
        for move in moves:
            result = outcome(apply_move(state, move))
            if result is not None and result.winner is state.turn:
                return move
        return moves[rng.integers(len(moves))]
"""
ANY_GAME_AGENT = """
    from mmc.games import apply_move, legal_moves, outcome

    def agent(state, rng):
        moves = legal_moves(state)
        for move in moves:
            result = outcome(apply_move(state, move))
            if result is not None and result.winner == state.turn:
                return move
        return moves[rng.integers(len(moves))]
"""


def test_the_default_anchors_are_the_studys() -> None:
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    assert list(RateConfig().anchors) == params["rate"]["anchors"]
    assert RateConfig().anchor == params["rate"]["anchor"] == "greedy"


@pytest.mark.parametrize(
    ("variant", "engine"), [pytest.param("mnk_5x4_k3", True, marks=pytest.mark.slow), ("grav_13x4_k3", False)]
)  # the engine's anchor: 2.7 s
def test_a_generated_board_has_a_ladder(variant: str, engine: bool, tmp_path: Path) -> None:
    """greedy and MCTS anchors on every generated board, Fairy-Stockfish where the board fits its limit."""
    config = RateConfig(anchors=("random", "greedy", "mcts:8", "fairy:nodes=1", "fairy:nodes=10"))
    rated = rate_players(["mcts:4"], variant, EvaluateConfig(games=2), config, seed=0, opponents=("greedy",))
    fairy = {"fairy:nodes=1", "fairy:nodes=10"}
    assert set(rated.ratings.players) == {"mcts:4", "random", "greedy", "mcts:8"} | (fairy if engine else set())
    assert rated.ratings.elo["greedy"] == 0 and rated.ratings.games["mcts:4"] > 0


def test_a_study_model_gets_the_same_elo_from_mmc_rate_as_in_evaluate(tmp_path: Path) -> None:
    config = NetworkConfig(game="chess", blocks=1, filters=8)
    path = save_checkpoint(build_network(config, seed=0), config, tmp_path / "model.pt")
    spec, variant, seed = f"net:{path}:sims=4", "gardner", 7
    evaluate_config = EvaluateConfig(games=2, search=SearchConfig(simulations=4, temperature_plies=0))
    rate_config = RateConfig(anchors=("random", "greedy"), ladder_games=2, games=2, bootstrap=20)
    # the cells against the opponents, then mmc.evaluation.evaluate.rate: what evaluate@T and mmc rate do in one call
    # (mmc.evaluation.evaluate.evaluate_and_rate, the ladder in the cells' batch), step by step
    net = load_checkpoint(path)[0]
    stage_seed = derive(root(seed), "evaluate", variant)
    cells = [Cell(spec, net, opponent) for opponent in ("random", "greedy")]
    results = evaluate(cells, variant, evaluate_config, stage_seed)
    played = [Pairing(c.player, c.opponent, r.wins, r.draws, r.losses) for c, r in zip(cells, results, strict=True)]
    study = rate({spec: net}, played, ["random", "greedy"], variant, evaluate_config, rate_config,
                 derive(stage_seed, "rate")).ratings  # fmt: skip
    ours = rate_players([spec], variant, evaluate_config, rate_config, seed).ratings
    assert ours.elo[spec] == pytest.approx(study.elo[spec], abs=1e-6)
    assert (ours.low[spec], ours.high[spec]) == pytest.approx((study.low[spec], study.high[spec]), abs=1e-6)
    assert ours.games == study.games


def test_the_leaderboard_appends_rows_under_one_header(tmp_path: Path) -> None:
    path = tmp_path / "boards" / "gardner.csv"
    row = LeaderboardRow("2025-01-01T00:00:00Z", "gardner", "python:m:f", 12.5, -3.0, 30.0, 40, "random greedy", 0)
    append_leaderboard(path, [row])
    append_leaderboard(path, [row])
    rows = list(csv.reader(path.read_text().splitlines()))
    assert rows[0] == list(LEADERBOARD_FIELDS) and len(rows) == 3 and rows[1][2] == "python:m:f"
    (tmp_path / "other.csv").write_text("a,b\n")
    with pytest.raises(ValueError, match="not a leaderboard"):
        append_leaderboard(tmp_path / "other.csv", [row])


def test_mmc_rate_rates_an_agent_from_a_module(tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / "my_agent.py").write_text(textwrap.dedent(AGENT))
    monkeypatch.chdir(tmp_path)
    argv = ["rate", "python:my_agent:agent", "--variant", "baby", "--games", "2", "--ladder-games", "2",
            "--anchors", "random,greedy"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "python:my_agent:agent" in out and "appended 1 row(s) to leaderboards/baby.csv" in out
    rows = list(csv.DictReader((tmp_path / "leaderboards" / "baby.csv").read_text().splitlines()))
    assert rows[0]["player"] == "python:my_agent:agent" and int(rows[0]["games"]) == 4


def test_mmc_rate_rates_an_agent_in_any_family(bonus_game: Game, tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / "any_agent.py").write_text(textwrap.dedent(ANY_GAME_AGENT))
    monkeypatch.chdir(tmp_path)
    argv = ["rate", "python:any_agent:agent", "--variant", "bonus_2x3", "--games", "2", "--ladder-games", "2",
            "--anchors", "random,greedy,fairy:nodes=1"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "appended 1 row(s) to leaderboards/bonus_2x3.csv" in out and "fairy" not in out  # no engine for bonus
    rows = list(csv.DictReader((tmp_path / "leaderboards" / "bonus_2x3.csv").read_text().splitlines()))
    assert rows[0]["player"] == "python:any_agent:agent" and rows[0]["anchors"] == "random greedy"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["rate", "stockfish", "--variant", "gardner"], "unknown player 'stockfish'"),
        (["rate", "python:no_such_module_xyz:f", "--variant", "gardner"], "cannot import 'no_such_module_xyz'"),
        (["rate", "python:json:__doc__", "--variant", "gardner"], "neither callable"),
        (["rate", "python:json:nothing", "--variant", "gardner"], "has no 'nothing'"),
        (["rate", "random", "--variant", "chess960"], "chess960"),
        (["rate", "random", "--variant", "gardner", "--anchors", "random,mcts:25"], "--anchor"),
        (["rate", "random", "--variant", "gardner"], "not anchors"),
        (["rate", "mcts:4", "--variant", "gardner", "--settle-games", "3"], "--settle-games: must be 0 or even"),
    ],
)
def test_mmc_rate_bad_input_is_one_line(argv: list[str], message: str, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_mmc_rate_settles_as_the_study_does() -> None:
    """``mmc rate``'s default first round is the study's (``evaluate.settle_games``, ``EvaluateConfig``)."""
    args = build_parser().parse_args(["rate", "mcts:4", "--variant", "gardner"])
    assert args.settle_games == EvaluateConfig().settle_games
