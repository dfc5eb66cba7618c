"""Games in progress between a person (clicking on the page) and a player, and what a network thinks of a position.

Everything here is plain Python and ``mmc``: :mod:`mmc.web.app` serves it. A game's moves run in a worker thread
(the app's thread pool), so each game and each loaded network carry a lock.
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mmc.env.views import check_playable
from mmc.games.chess import (
    Color,
    Move,
    State,
    apply_move,
    from_fen,
    initial_state,
    legal_moves,
    outcome,
    visible_squares,
)
from mmc.play.players import Player, close_player, parse_player
from mmc.web.board import board_svg
from mmc.web.study import Study

__all__ = ["MAX_GAMES", "Analyst", "Game", "GameError", "Games", "analysis_json", "position_json", "thought_json"]

MAX_GAMES = 64
"""Games kept in memory; starting one more forgets the oldest."""
REFUSED_KINDS = {"human", "python"}
"""Player kinds the page does not offer: ``human`` waits on a terminal, ``python`` imports any module."""
MODEL_KINDS = {"net", "policy"}
"""Player kinds whose first field is a checkpoint path: it must name a model under the project's ``models/``."""


class GameError(ValueError):
    """A request the game cannot follow (a malformed or illegal move, a bad FEN or player): a 4xx message."""


def position_json(state: State, viewer: Color | None, *, reveal: bool = False) -> dict[str, Any]:
    """What the page draws: the SVG board from ``viewer``'s side (dark chess: only what it sees, unless
    ``reveal``), the side to move, the FEN (not in dark chess, where it would tell all) and the outcome."""
    v = state.variant
    hidden: list[int] = []
    if v.hidden_information and viewer is not None and not reveal:
        seen = visible_squares(state, viewer)
        hidden = [8 * r + f for r in range(v.height) for f in range(v.width) if not seen[8 * r + f]]
    result = outcome(state)
    return {
        "svg": board_svg(state.board_array(), v.height, v.width, flipped=viewer is Color.BLACK, hidden=hidden),
        "turn": "white" if state.turn is Color.WHITE else "black",
        "fen": None if hidden else state.fen(),
        "ply": state.ply,
        "over": result is not None,
        "result": None if result is None else result.result(),
        "termination": None if result is None else result.termination.value,
    }


def check_spec(spec: str, study: Study) -> str:
    """The player spec with a model path resolved inside the project's ``models/`` (``net:joat@r0:sims=32``,
    ``policy:champion/r0/gardner.pt``); :class:`GameError` for a kind the page refuses or a path outside."""
    kind, *fields = spec.strip().split(":")
    if kind in REFUSED_KINDS:
        raise GameError(f"player kind {kind!r} cannot be played from the page")
    if kind in MODEL_KINDS and fields:
        try:
            fields[0] = str(study.model_path(fields[0]))
        except ValueError as error:
            raise GameError(str(error)) from None
    return ":".join([kind, *fields])


class Analyst:
    """One checkpoint's network: its value and prior for a position, and a search's visit counts and Q."""

    def __init__(self, path: Path, device: str = "cpu") -> None:
        from mmc.nn import NetworkEvaluator, load_checkpoint, resolve_device
        from mmc.search import NetworkLeafEvaluator

        net, _ = load_checkpoint(path, resolve_device(device))
        self.evaluator = NetworkEvaluator(net)
        self.leaf_evaluator = NetworkLeafEvaluator(net)
        self.lock = threading.Lock()

    def analyse(self, state: State, simulations: int, rng: np.random.Generator, top: int = 8) -> dict[str, Any]:
        """``{"value", "moves": [{"uci", "prior", "visits", "q"}...]}``, every number from the side to move's
        view, moves by visits then prior, at most ``top``; value in [-1, 1]."""
        from mmc.search import SearchConfig, search

        with self.lock:
            priors, values = self.evaluator([state])
            result = None
            if simulations:
                config = SearchConfig(simulations=simulations, temperature_plies=0)
                result = search([state], self.leaf_evaluator, config, rng)[0]
        moves = legal_moves(state)
        return analysis_json(moves, priors[0], float(values[0]), result, simulations, top)


def analysis_json(
    moves: Sequence[Move], priors: Any, value: float, result: Any, simulations: int, top: int = 8
) -> dict[str, Any]:
    """A network's view of a position as the page shows it: ``{"value", "simulations", "moves": [{"uci",
    "prior", "visits", "q"}...], "priors", "search_value"}`` (``result``: a ``mmc.search.SearchResult`` or None),
    every number from the side to move's view, moves by visits then prior, at most ``top``."""
    rows = []
    for i, move in enumerate(moves):
        row: dict[str, Any] = {"uci": move.uci(), "to": move.uci()[2:4], "prior": float(priors[i])}
        if result is not None:
            row["visits"] = int(result.visit_counts[i])
            row["q"] = float(result.q_values[i])
        rows.append(row)
    rows.sort(key=lambda r: (r.get("visits", 0), r["prior"]), reverse=True)
    answer: dict[str, Any] = {"value": value, "simulations": simulations, "moves": rows[:top]}
    answer["priors"] = {r["uci"]: r["prior"] for r in rows}
    if result is not None:
        answer["search_value"] = float(result.value)
    return answer


def thought_json(player: Player, state: State, move: Move) -> dict[str, Any] | None:
    """What a searching player (``net``, ``mcts``: ``last_results`` of ``mmc.play.search_players.MCTSPlayer``)
    saw in ``state`` when it played ``move``: its network's value and prior, and its search's visits, Q and
    value; None for a player that does not search."""
    results = getattr(player, "last_results", None)
    if not results:
        return None
    result = results[0]
    moves = list(result.moves)
    if move not in moves:
        return None
    answer = analysis_json(moves, result.prior, float(result.network_value), result, int(result.visit_counts.sum()))
    return {"move": move.uci(), "turn": "white" if state.turn is Color.WHITE else "black", **answer}


@dataclass
class Game:
    """One game: the person plays ``human``; ``opponent`` the other side."""

    id: str
    human: Color
    opponent: Player
    opponent_spec: str
    states: list[State]
    rng: np.random.Generator
    moves: list[str] = field(default_factory=list)
    thoughts: list[dict[str, Any] | None] = field(default_factory=list)
    """Per move: the opponent's search when it played it (:func:`thought_json`), None for the person's."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def state(self) -> State:
        return self.states[-1]

    def json(self) -> dict[str, Any]:
        """The game as the page needs it: the position from the person's side and their legal moves."""
        state = self.state
        over = outcome(state) is not None
        mine = not over and state.turn is self.human
        hidden = state.variant.hidden_information
        return {
            "id": self.id,
            "variant": state.variant_name,
            "human": "white" if self.human is Color.WHITE else "black",
            "opponent": self.opponent_spec,
            "position": position_json(state, self.human, reveal=over),
            "legal": [m.uci() for m in legal_moves(state)] if mine else [],
            "moves": [] if hidden and not over else self.moves,
            "last": None if (hidden and not over) or not self.moves else self.moves[-1],
            "thought_plies": [] if hidden and not over else [i + 1 for i, t in enumerate(self.thoughts) if t],
        }

    def look_back(self, ply: int) -> dict[str, Any]:
        """Move ``ply`` (1-based) of the game: the position before it, the move, and the opponent's search when it
        played it (None for the person's moves); refused in dark chess until the game is over."""
        over = outcome(self.state) is not None
        if self.state.variant.hidden_information and not over:
            raise GameError("in dark chess the moves can be looked back at only when the game is over")
        if not 1 <= ply <= len(self.moves):
            raise GameError(f"ply must be in [1, {len(self.moves)}], got {ply}")
        before = self.states[ply - 1]
        return {
            "ply": ply,
            "move": self.moves[ply - 1],
            "position": position_json(before, self.human, reveal=over),
            "thought": self.thoughts[ply - 1],
        }

    def reply(self) -> None:
        """The opponent plays while it is its turn and the game goes on."""
        while outcome(self.state) is None and self.state.turn is not self.human:
            state = self.state
            move = self.opponent.play([state], self.rng)[0]
            self._push(move, thought_json(self.opponent, state, move))

    def move(self, uci: str) -> None:
        """The person's move (UCI), then the opponent's reply; :class:`GameError` if malformed, illegal or not
        the person's turn."""
        if outcome(self.state) is not None:
            raise GameError("the game is over")
        if self.state.turn is not self.human:
            raise GameError("it is not your turn")
        try:
            move = Move.from_uci(uci)
        except ValueError as error:
            raise GameError(str(error)) from None
        if move not in legal_moves(self.state):
            raise GameError(f"{uci} is not a legal move here")
        self._push(move, None)
        self.reply()

    def _push(self, move: Move, thought: dict[str, Any] | None) -> None:
        self.states.append(apply_move(self.state, move))
        self.moves.append(move.uci())
        self.thoughts.append(thought)


class Games:
    """The games in progress (at most :data:`MAX_GAMES`, oldest forgotten first) and the loaded networks."""

    def __init__(self, study: Study, device: str = "cpu") -> None:
        self.study = study
        self.device = device
        self._games: OrderedDict[str, Game] = OrderedDict()
        self._analysts: dict[Path, Analyst] = {}
        self._lock = threading.Lock()

    def start(self, variant: str, opponent: str, color: str, fen: str | None = None, seed: int = 0) -> Game:
        """A new game (the opponent's first move played if the person has Black); :class:`GameError` if any
        input is bad."""
        try:
            name = check_playable(variant)
            state = initial_state(name) if not fen else from_fen(name, fen)
        except ValueError as error:
            raise GameError(str(error)) from None
        if color not in ("white", "black"):
            raise GameError(f"colour must be white or black, got {color!r}")
        spec = check_spec(opponent, self.study)
        try:
            player = parse_player(spec, variant=name, device=self.device)
        except (ValueError, OSError) as error:
            raise GameError(str(error).replace(str(self.study.models_dir.resolve()) + "/", "")) from None
        human = Color.WHITE if color == "white" else Color.BLACK
        game = Game(uuid.uuid4().hex, human, player, opponent.strip(), [state], np.random.default_rng(seed))
        with self._lock:
            self._games[game.id] = game
            while len(self._games) > MAX_GAMES:
                close_player(self._games.popitem(last=False)[1].opponent)
        with game.lock:
            game.reply()
        return game

    def get(self, game_id: str) -> Game:
        with self._lock:
            game = self._games.get(game_id)
        if game is None:
            raise KeyError(game_id)
        return game

    def analyst(self, model: str) -> Analyst:
        """The network of ``model`` (a name :meth:`Study.model_path` takes), loaded once."""
        try:
            path = self.study.model_path(model)
        except ValueError as error:
            raise GameError(str(error)) from None
        with self._lock:
            if path not in self._analysts:
                self._analysts[path] = Analyst(path, self.device)
            return self._analysts[path]

    def close(self) -> None:
        with self._lock:
            for game in self._games.values():
                close_player(game.opponent)
            self._games.clear()
