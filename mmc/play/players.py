"""Players: anything that picks one move for each of a batch of positions, and the ``kind:options`` specs naming them.

Every player implements :class:`Player`. ``play`` is batched so that a network or search player evaluates
all the concurrent games of a match in one forward pass or one search; the others simply loop.

A player spec is ``kind`` or ``kind:field:field...``, e.g. ``random``, ``greedy``, ``policy:models/gen_003.pt``,
``fairy:nodes=100``, ``mcts:200``, ``net:PATH.pt:sims=64``, ``baseline:gardner-v1`` (a trained network shipped with
the package, ``mmc.play.baselines``), ``python:MODULE:CALLABLE`` (a user's player,
``mmc.play.external``). :data:`PLAYER_KINDS` maps each kind to its factory;
the factories of ``policy``, ``mcts`` and ``net`` import torch or the compiled search only when called, so that
``mmc`` starts fast. The network players (``policy``, ``net``) load their checkpoint onto the device that
:func:`parse_player` is given. Another package adds its own kind with :func:`register_player`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import EntryPoint
from typing import Any, Protocol

import numpy as np

from mmc.core import plugins
from mmc.games import game_of, games, get_variant, legal_moves
from mmc.play.baselines import BASELINE_USAGE
from mmc.play.baselines import DEFAULT_SIMULATIONS as DEFAULT_BASELINE_SIMULATIONS
from mmc.play.fairy import FairyPlayer
from mmc.play.human import HumanPlayer

__all__ = [
    "MAX_FAIRY_DEPTH",
    "MAX_FAIRY_NODES",
    "MAX_SIMULATIONS",
    "PLAYER_KINDS",
    "GreedyPlayer",
    "Player",
    "PlayerFactory",
    "PlayerKind",
    "PolicyPlayer",
    "PositionEvaluator",
    "RandomPlayer",
    "close_player",
    "parse_options",
    "parse_player",
    "register_player",
]


class Player(Protocol):
    """Picks moves. ``name`` identifies it in game records and match summaries, e.g. ``"fairy:nodes=100"``."""

    name: str

    def play(self, states: Sequence[Any], rng: np.random.Generator) -> list[Any]:
        """One move for each state (all games not over, side to move is this player's). Batched so that
        network players evaluate many concurrent games in one forward pass."""
        ...


PositionEvaluator = Callable[[Sequence[Any]], tuple[list[np.ndarray], np.ndarray]]
"""What a :class:`PolicyPlayer` calls: ``evaluator(states) -> (priors, values)``, as :class:`mmc.nn.NetworkEvaluator`.

``priors[i]`` is ``float32[len(legal_moves(states[i]))]`` in ``legal_moves`` order, ``values`` is
``float32[len(states)]`` in [-1, 1] from each side to move's view. Search calls a different protocol,
:class:`mmc.search.LeafEvaluator` (a batch of leaf planes in, logits over the policy planes out)."""


def _moves(state: Any) -> tuple[Any, ...]:
    moves = legal_moves(state)
    if not moves:
        raise ValueError(f"no legal move to play in {state.variant_name} position {state.fen()} (the game is over)")
    return moves


class RandomPlayer:
    """A uniformly random legal move."""

    name: str = "random"

    def play(self, states: Sequence[Any], rng: np.random.Generator) -> list[Any]:
        """One uniformly random legal move per state."""
        out = []
        for state in states:
            moves = _moves(state)
            out.append(moves[int(rng.integers(len(moves)))])
        return out


class GreedyPlayer:
    """The game's own one-move heuristic (``Game.heuristic``: material greed in chess): the move it scores highest,
    ties broken uniformly at random. Elo 0 of every ladder."""

    name: str = "greedy"

    def play(self, states: Sequence[Any], rng: np.random.Generator) -> list[Any]:
        """One greedy move per state."""
        return [self._choose(state, rng) for state in states]

    @staticmethod
    def _choose(state: Any, rng: np.random.Generator) -> Any:
        moves = _moves(state)
        scores = game_of(state).heuristic(state, moves)
        best = np.flatnonzero(scores == scores.max())
        return moves[int(rng.choice(best))]


class PolicyPlayer:
    """The network's policy without search: the most probable legal move, or a sample at ``temperature > 0``.

    ``evaluator`` follows :data:`PositionEvaluator` (e.g. ``mmc.nn.NetworkEvaluator``); one call per ``play`` batch.
    At temperature 0 ties of the highest prior are broken uniformly at random; at temperature ``T > 0`` a
    move is drawn with probability proportional to ``prior ** (1 / T)``.
    """

    def __init__(self, evaluator: PositionEvaluator, temperature: float = 0.0, *, name: str = "policy") -> None:
        if not (math.isfinite(temperature) and temperature >= 0):
            raise ValueError(f"temperature must be a finite number >= 0, got {temperature}")
        self.evaluator = evaluator
        self.temperature = temperature
        self.name = name

    def play(self, states: Sequence[Any], rng: np.random.Generator) -> list[Any]:
        """One move per state from a single batched evaluator call."""
        priors, _ = self.evaluator(states)
        return [self._choose(state, prior, rng) for state, prior in zip(states, priors, strict=True)]

    def _choose(self, state: Any, prior: np.ndarray, rng: np.random.Generator) -> Any:
        moves = _moves(state)
        p = np.asarray(prior, dtype=np.float64)
        if len(p) != len(moves):
            raise ValueError(f"evaluator gave {len(p)} priors for {len(moves)} legal moves in {state.fen()}")
        if self.temperature == 0:
            return moves[int(rng.choice(np.flatnonzero(p == p.max())))]
        with np.errstate(divide="ignore"):
            logits = np.log(p) / self.temperature
        weights = np.exp(logits - logits.max())
        return moves[int(rng.choice(len(moves), p=weights / weights.sum()))]


def close_player(player: Player) -> None:
    """Release what a player holds (an engine process), if it has a ``close`` method."""
    close = getattr(player, "close", None)
    if callable(close):
        close()


PlayerFactory = Callable[[list[str], str], Player]
"""``factory(fields, variant) -> Player``: ``fields`` are the spec's ``:``-separated parts after the kind."""


@dataclass(frozen=True)
class PlayerKind:
    """One entry of the player registry."""

    usage: str
    """How the spec is written, for error messages, e.g. ``"fairy:nodes=N"``."""
    factory: Callable[..., Player]
    """Builds the player from the spec's fields and the variant it will play: a :data:`PlayerFactory`, or with
    ``network`` ``factory(fields, variant, device)``."""
    network: bool = False
    """Whether the player runs a network: its factory then also takes the device (``mmc.nn.DEVICES``)."""


def parse_options(fields: Sequence[str], spec: str) -> dict[str, str]:
    """``["nodes=100", "depth=3"]`` -> ``{"nodes": "100", "depth": "3"}``; ``ValueError`` naming ``spec`` otherwise."""
    options: dict[str, str] = {}
    for field in fields:
        key, sep, value = field.partition("=")
        if not sep or not key or not value or key in options:
            raise ValueError(f"player {spec!r}: expected distinct key=value options, got {field!r}")
        options[key] = value
    return options


def _no_fields(make: Callable[[], Player], kind: str) -> PlayerFactory:
    def factory(fields: list[str], variant: str) -> Player:
        if fields:
            raise ValueError(f"player {kind!r} takes no options, got {':'.join([kind, *fields])!r}")
        return make()

    return factory


MAX_SIMULATIONS = 10_000
"""The most simulations per move a ``mcts`` or ``net`` spec may ask for (AlphaZero searched 800)."""
MAX_FAIRY_NODES = 1_000_000_000
"""The most nodes per move a ``fairy`` spec may ask for (minutes per move; more would never finish)."""
MAX_FAIRY_DEPTH = 100
"""The deepest search per move a ``fairy`` spec may ask for."""


def _positive_int(text: str, key: str, spec: str, maximum: int) -> int:
    """``text`` as an integer in ``[1, maximum]``; ``ValueError`` naming ``spec`` and the range otherwise."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= maximum:
        raise ValueError(f"player {spec!r}: {key} must be a positive integer up to {maximum}, got {text!r}")
    return value


def _int_option(options: dict[str, str], key: str, spec: str, maximum: int) -> int | None:
    return None if key not in options else _positive_int(options[key], key, spec, maximum)


def _fairy(fields: list[str], variant: str) -> Player:
    spec = ":".join(["fairy", *fields])
    options = parse_options(fields, spec)
    unknown = set(options) - {"nodes", "depth"}
    if unknown or not options:
        raise ValueError(f"player {spec!r}: expected fairy:nodes=N and/or fairy:depth=N")
    nodes = _int_option(options, "nodes", spec, MAX_FAIRY_NODES)
    depth = _int_option(options, "depth", spec, MAX_FAIRY_DEPTH)
    return FairyPlayer(variant, nodes=nodes, depth=depth)


def _policy(fields: list[str], variant: str, device: str) -> Player:
    spec = ":".join(["policy", *fields])
    if not fields or not fields[0]:
        raise ValueError(f"player {spec!r}: expected policy:PATH.pt[:temperature=T]")
    options = parse_options(fields[1:], spec)
    if set(options) - {"temperature"}:
        raise ValueError(f"player {spec!r}: the only option is temperature=T")
    try:
        temperature = float(options.get("temperature", "0"))
    except ValueError:
        raise ValueError(f"player {spec!r}: temperature must be a number") from None
    if not (math.isfinite(temperature) and temperature >= 0):
        raise ValueError(f"player {spec!r}: temperature must be a finite number >= 0")
    from mmc.nn import NetworkEvaluator, load_checkpoint, resolve_device  # torch is slow to import: only when asked for

    net, _ = load_checkpoint(fields[0], resolve_device(device))
    _check_family(net.config, variant, spec)
    return PolicyPlayer(NetworkEvaluator(net), temperature, name=spec)


def _check_family(config: Any, variant: str, spec: str) -> None:
    """``ValueError`` naming ``spec`` unless its network (``mmc.nn.NetworkConfig``) plays ``variant``'s family."""
    try:
        config.check_plays(variant)
    except ValueError as error:
        raise ValueError(f"player {spec!r}: {error}") from None


def _mcts(fields: list[str], variant: str) -> Player:
    spec = ":".join(["mcts", *fields])
    if len(fields) != 1:
        raise ValueError(f"player {spec!r}: expected mcts:N with N simulations per move")
    simulations = _positive_int(fields[0], "simulations", spec, MAX_SIMULATIONS)
    from mmc.play.search_players import mcts_player  # numba search: only when asked for

    return mcts_player(simulations)


NET_USAGE = "net:PATH.pt[:sims=N][:gumbel=1][:solver=1][:moves_left=SLOPE]"
"""The ``net`` player's spec: ``moves_left`` is ``SearchConfig.moves_left_slope`` (a network with the head)."""


def _net(fields: list[str], variant: str, device: str) -> Player:
    spec = ":".join(["net", *fields])
    if not fields or not fields[0]:
        raise ValueError(f"player {spec!r}: expected {NET_USAGE}")
    options = parse_options(fields[1:], spec)
    flags = ("gumbel", "solver")
    if set(options) - {"sims", "moves_left", *flags} or any(options.get(flag, "0") not in ("0", "1") for flag in flags):
        raise ValueError(f"player {spec!r}: the options are sims=N, gumbel=0|1, solver=0|1 and moves_left=SLOPE")
    sims = _int_option(options, "sims", spec, MAX_SIMULATIONS) or 64
    slope = _slope(options.get("moves_left", "0"), spec)
    from mmc.play.search_players import network_player  # torch is slow to import: only when asked for

    player = network_player(fields[0], sims, gumbel=options.get("gumbel") == "1", solver=options.get("solver") == "1",
                            moves_left=slope, name=spec, device=device)  # fmt: skip
    net_config = getattr(player.evaluator, "net").config  # noqa: B009 (a NetworkLeafEvaluator's)
    _check_family(net_config, variant, spec)
    if slope > 0 and not net_config.moves_left:
        raise ValueError(f"player {spec!r}: moves_left={slope:g} needs a network with the moves-left head")
    return player


def _slope(text: str, spec: str) -> float:
    """The ``moves_left=SLOPE`` option of a ``net`` player: ``SearchConfig.moves_left_slope``, in [0, 1]."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 1:
        raise ValueError(f"player {spec!r}: moves_left must be a number in [0, 1] (plies' weight), got {text!r}")
    return value


def _baseline(fields: list[str], variant: str, device: str) -> Player:
    from mmc.play.baselines import checked_path, parse_baseline

    baseline, sims = parse_baseline(fields, variant)
    path = checked_path(baseline)
    from mmc.play.search_players import network_player  # torch is slow to import: only when asked for

    name = f"baseline:{baseline.name}" + ("" if sims == DEFAULT_BASELINE_SIMULATIONS else f":sims={sims}")
    return network_player(str(path), sims, name=name, device=device)


def _python(fields: list[str], variant: str) -> Player:
    from mmc.play.external import external_player  # a user's module: imported only when asked for

    player: Player = external_player(fields, variant)
    return player


PLAYER_KINDS: dict[str, PlayerKind] = {
    "random": PlayerKind("random", _no_fields(RandomPlayer, "random")),
    "greedy": PlayerKind("greedy", _no_fields(GreedyPlayer, "greedy")),
    "policy": PlayerKind("policy:PATH.pt[:temperature=T]", _policy, network=True),
    "fairy": PlayerKind("fairy:nodes=N or fairy:depth=N", _fairy),
    "mcts": PlayerKind("mcts:N", _mcts),
    "net": PlayerKind(NET_USAGE, _net, network=True),
    "human": PlayerKind("human", _no_fields(HumanPlayer, "human")),
    "python": PlayerKind("python:MODULE:CALLABLE", _python),
    "baseline": PlayerKind(BASELINE_USAGE, _baseline, network=True),
}
"""The player registry: spec kind (the text before the first ``:``) -> :class:`PlayerKind`. The installed
packages' kinds join it the first time a spec is parsed or the kinds are listed (:func:`player_kinds`)."""
_OWNERS: dict[str, str] = dict.fromkeys(PLAYER_KINDS, plugins.HOME)
_PLUGINS = {"loaded": False}


def register_player(kind: str, usage: str, factory: PlayerFactory) -> None:
    """Add a player kind, so that ``parse_player(f"{kind}:...")`` builds it with ``factory`` (by hand, it replaces a
    kind of the same name: a test's or a notebook's own)."""
    if not kind or ":" in kind:
        raise ValueError(f"a player kind is a non-empty name without ':', got {kind!r}")
    PLAYER_KINDS[kind] = PlayerKind(usage, factory)


def player_kinds() -> dict[str, PlayerKind]:
    """Every player kind: the built-ins, then those of the installed packages' ``mmc.players`` entry points, loaded
    the first time (a kind whose name is taken is left out, its line naming both distributions)."""
    if not _PLUGINS["loaded"]:
        _PLUGINS["loaded"] = True
        games()  # the installed games first: a package's players may play its own game

        def add(point: EntryPoint, factory: Any) -> None:
            if not callable(factory):
                raise TypeError(f"the object is a {type(factory).__name__}, not a player factory")
            if point.name in PLAYER_KINDS:
                owner = _OWNERS.get(point.name, plugins.HOME)
                raise ValueError(f"the player kind {point.name!r} is taken (by {owner})")
            register_player(point.name, str(getattr(factory, "usage", point.name)), factory)
            _OWNERS[point.name] = plugins.distribution(point)

        plugins.each(plugins.PLAYERS_GROUP, add)
    return PLAYER_KINDS


def parse_player(spec: str, *, variant: str, device: str = "cpu") -> Player:
    """The player named by ``spec`` (``kind[:field...]``), ready to play ``variant``; a network player's network
    on ``device`` (``mmc.nn.DEVICES``).

    Raises ``ValueError`` naming the spec and the known kinds for an unknown kind or malformed options;
    a player's own checks (a missing checkpoint file, a variant Fairy-Stockfish does not play, a device torch
    does not see: ``mmc.nn.DeviceError``) raise their own errors (``OSError``, ``mmc.play.fairy.FairyError``)
    before any game starts.
    """
    variant = get_variant(variant).name
    kind, *fields = spec.strip().split(":")
    entry = PLAYER_KINDS.get(kind) or player_kinds().get(kind)
    if entry is None:
        known = ", ".join(k.usage for k in PLAYER_KINDS.values())
        raise ValueError(f"unknown player {spec!r} (known kinds: {known})")
    if entry.network:
        return entry.factory(fields, variant, device)
    return entry.factory(fields, variant)
