"""What each ``mmc`` command does: ``variants``, ``show``, ``perft``, ``match``, ``play``, ``rate``, ``replay``,
``serve``, ``compile`` (:mod:`mmc.cli` parses the command line and calls the one named).

Each command takes the parsed arguments, checks them before doing any work and returns the exit status; bad input
raises :class:`UsageError`, which ``mmc`` reports as one line ``mmc: error: ...`` with status 2.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mmc.games import (
    FIRST,
    Game,
    IllegalMoveError,
    from_text,
    game_of,
    games,
    get_game,
    initial_state,
    outcome,
)
from mmc.games.perft import MAX_DEPTH, PerftRow, perft_divide, read_perft_suite
from mmc.play.arena import play_match
from mmc.play.fairy import FairyError
from mmc.play.human import HumanPlayer, Resign
from mmc.play.players import Player, close_player, parse_player
from mmc.play.records import GameRecord, RecordError, read_records, replay, write_records

__all__ = [
    "MAX_GAMES", "MAX_PLIES", "UsageError", "cmd_compile", "cmd_match", "cmd_mistakes", "cmd_perft", "cmd_play",
    "cmd_rate", "cmd_replay", "cmd_serve", "cmd_show", "cmd_suites", "cmd_variants", "move_labels",
]  # fmt: skip

MAX_GAMES = 10_000
"""The most games ``mmc match`` plays: all of them are kept in memory and played concurrently."""
MAX_PLIES = 10_000
"""The highest ``--max-plies``: far beyond any game (the fifty-move rule ends one within a few thousand plies)."""


class UsageError(Exception):
    """Bad input: reported as one line, exit status 2."""


def _state(variant: str, position: str | None) -> Any:
    """The start of ``variant``, or the position of the text ``position`` (the family's ``state.fen()`` text)."""
    try:
        return initial_state(variant) if position is None else from_text(variant, position)
    except ValueError as e:
        raise UsageError(str(e)) from None


def _render(state: Any) -> str:
    return game_of(state).render(state, coordinates=True)


def cmd_variants(args: argparse.Namespace) -> int:
    width = max(len(name) for game in games() for name in game.variants)
    for game in games():
        print(f"{game.name}: {game.description}")
        for v in game.variants.values():
            size = f"{v.height}x{v.width}"
            print(f"  {v.name:<{width}}  {size:<5}  {v.description}")
        if game.generated_variants:
            print(f"  and every generated id: {game.generated_variants}")
    return 0


def cmd_compile(args: argparse.Namespace) -> int:
    from mmc.play.warm import compile_families

    names = args.families or [game.name for game in games()]
    start = time.perf_counter()
    try:
        compiled = compile_families(names, jobs=args.jobs)
    except ValueError as error:  # an unknown family or --jobs below 1: raised before anything compiles
        raise UsageError(str(error).replace("jobs must", "--jobs must")) from None
    for name, seconds in compiled.items():
        print(f"{name}: compiled in {seconds:.1f} s")
    print(f"every kernel and search tree of {len(names)} famil{'y' if len(names) == 1 else 'ies'} is in the cache "
          f"({time.perf_counter() - start:.1f} s)")  # fmt: skip
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    state = _state(args.variant, args.position)
    print(_render(state))
    print(state.fen())
    result = outcome(state)
    if result is not None:
        print(f"game over: {result.result()} ({result.termination.value})")
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    if args.file is not None:
        if args.variant is not None or args.position is not None or args.depth is not None:
            raise UsageError("--file takes no VARIANT, --position or --depth (they come from the file)")
        try:
            rows = read_perft_suite(args.file)
        except OSError as e:
            raise UsageError(f"cannot read perft file {args.file!r}: {e.strerror}") from None
        except ValueError as e:
            raise UsageError(str(e)) from None
        return _perft_suite(rows)
    if args.variant is None or args.depth is None:
        raise UsageError("perft needs VARIANT and --depth N (or --file FILE.csv)")
    if not 0 <= args.depth <= MAX_DEPTH:
        raise UsageError(f"--depth must be between 0 and {MAX_DEPTH}, got {args.depth}")
    if args.divide and args.depth < 1:
        raise UsageError("--divide needs --depth >= 1")
    state = _state(args.variant, args.position)
    if args.divide:
        split = perft_divide(state, args.depth)
        for move, nodes in split:
            print(f"{move}: {nodes}")
        print(sum(n for _, n in split))
    else:
        print(game_of(state).perft(state, args.depth))
    return 0


def _perft_suite(rows: list[PerftRow]) -> int:
    mismatches = 0
    start = time.perf_counter()
    total = 0
    for row in rows:
        nodes = get_game(row.variant).perft(from_text(row.variant, row.position), row.depth)
        total += nodes
        ok = nodes == row.nodes
        mismatches += not ok
        verdict = "OK" if ok else f"MISMATCH (expected {row.nodes})"
        print(f"{row.variant},{row.position},{row.depth},{nodes} {verdict}")
    seconds = time.perf_counter() - start
    print(f"{len(rows) - mismatches}/{len(rows)} rows OK, {mismatches} mismatches, {total} nodes in {seconds:.1f} s")
    return 1 if mismatches else 0


def _player(spec: str, variant: str, device: str) -> Player:
    try:
        return parse_player(spec, variant=variant, device=device)
    except (ValueError, OSError, FairyError) as e:
        raise UsageError(str(e)) from None


def _check_device(name: str) -> None:
    """``--device``: one of ``mmc.nn.DEVICES`` that torch can use here."""
    if name == "cpu":  # the default is always there; checking it would import torch, which is slow
        return
    from mmc.nn import DeviceError, resolve_device

    try:
        resolve_device(name)
    except DeviceError as e:
        raise UsageError(f"--device {e.problem}") from None


def _check_game_args(args: argparse.Namespace) -> None:
    """The options ``match`` and ``play`` share: ``--seed``, ``--max-plies`` (the family's move cap when not given)
    and ``--device``."""
    if args.max_plies is None:
        args.max_plies = get_game(args.variant).default_max_plies
    if args.seed < 0:
        raise UsageError(f"--seed must be >= 0, got {args.seed}")
    if not 1 <= args.max_plies <= MAX_PLIES:
        raise UsageError(f"--max-plies must be between 1 and {MAX_PLIES}, got {args.max_plies}")
    _check_device(args.device)


def _opening_plies(args: argparse.Namespace) -> int:
    """``--opening-plies``, or the variant's family's default (``Game.opening_plies``)."""
    return get_game(args.variant).opening_plies if args.opening_plies is None else int(args.opening_plies)


def _check_match_args(args: argparse.Namespace) -> None:
    if not 1 <= args.games <= MAX_GAMES:
        raise UsageError(f"--games must be between 1 and {MAX_GAMES}, got {args.games}")
    _check_game_args(args)
    args.opening_plies = _opening_plies(args)
    if not 0 <= args.opening_plies < args.max_plies:
        limit = f"below --max-plies ({args.max_plies})"
        raise UsageError(f"--opening-plies must be >= 0 and {limit}, got {args.opening_plies}")
    if args.opening_plies > 0 and outcome(initial_state(args.variant)) is not None:
        raise UsageError(f"the {args.variant} start position is already over: use --opening-plies 0")
    if args.records is not None and not Path(args.records).resolve().parent.is_dir():
        raise UsageError(f"--records: directory of {args.records!r} does not exist")


def cmd_match(args: argparse.Namespace) -> int:
    _check_match_args(args)
    players: list[Player] = []
    try:
        for spec in args.players:
            players.append(_player(spec, args.variant, args.device))
        a, b = players
        result = play_match(
            a,
            b,
            args.variant,
            args.games,
            np.random.default_rng(args.seed),
            opening_plies=args.opening_plies,
            max_plies=args.max_plies,
            progress=True,
        )
    except IllegalMoveError:
        raise  # a player's fault, not the input's
    except ValueError as e:  # drawn before any game starts: no opening of --opening-plies plies left the game going
        raise UsageError(str(e)) from None
    finally:
        for player in players:
            close_player(player)
    low, high = result.wilson_interval()
    print(
        f"{a.name} vs {b.name} on {args.variant}: {result.wins} wins, {result.draws} draws, {result.losses} losses; "
        f"score {result.score:.2f} (95% CI {low:.2f}-{high:.2f})"
    )
    if args.records is not None:
        write_records(result.records, args.records)
    return 0


def _sides(game: Game) -> tuple[str, ...]:
    """What ``--color`` may be: the family's player names, then ``first`` and ``second``."""
    return (*game.players, "first", "second")


def cmd_play(args: argparse.Namespace) -> int:
    game = get_game(args.variant)
    if args.color not in _sides(game):
        raise UsageError(f"argument --color: invalid choice: {args.color!r} (choose from {', '.join(_sides(game))})")
    _check_game_args(args)
    opponent = _player(args.opponent, args.variant, args.device)
    human = HumanPlayer()
    human_first = args.color in ("first", game.players[0])
    first, second = (human, opponent) if human_first else (opponent, human)
    try:
        result = play_match(
            first, second, args.variant, 1, np.random.default_rng(args.seed), opening_plies=0, max_plies=args.max_plies
        )
    except Resign:
        print(f"you resigned: {'0-1' if human_first else '1-0'}")
        return 0
    finally:
        close_player(opponent)
    record = result.records[0]
    print()
    print(_render(replay(record)[-1]))
    if record.result == "1/2-1/2":
        verdict = "draw"
    else:
        verdict = "you win" if (record.result == "1-0") == human_first else "you lose"
    print(f"{record.result} ({record.termination}): {verdict}")
    return 0


def cmd_rate(args: argparse.Namespace) -> int:
    from mmc.core.configs import ConfigError
    from mmc.evaluation.evaluate import EvaluateConfig, RateConfig
    from mmc.evaluation.leaderboard import append_leaderboard, leaderboard_rows, rate_players
    from mmc.play.fairy import plays

    if args.seed < 0:
        raise UsageError(f"--seed must be >= 0, got {args.seed}")
    _check_device(args.device)
    anchors = (
        RateConfig().anchors if args.anchors is None else tuple(filter(None, map(str.strip, args.anchors.split(","))))
    )
    try:
        evaluate_config = EvaluateConfig(games=args.games, opening_plies=_opening_plies(args),
                                         settle_games=args.settle_games)  # fmt: skip
        rate_config = RateConfig(anchors=anchors, ladder_games=args.ladder_games, games=args.games)
    except ConfigError as e:
        raise UsageError(f"--{e.field.replace('_', '-')}: {e.problem}") from None
    playing = [a for a in anchors if plays(a, args.variant)]  # rating leaves out the others (fairy in atomic)
    if len(playing) < 2:
        raise UsageError(f"--anchors: fewer than two of {list(anchors)} play {args.variant}")
    for spec in (*args.players, *playing):  # every spec checked before any game
        close_player(_player(spec, args.variant, args.device))
    try:
        rated = rate_players(args.players, args.variant, evaluate_config, rate_config, args.seed, device=args.device)
    except IllegalMoveError:
        raise  # a player's fault, not the input's
    except ValueError as e:
        raise UsageError(str(e)) from None
    r = rated.ratings
    for name in sorted(r.players, key=lambda p: -r.elo[p]):
        kind = "anchor" if name in anchors else "player"
        print(f"{kind:6}  {name:30}  Elo {r.elo[name]:+7.1f}  (95% {r.low[name]:+.0f}..{r.high[name]:+.0f})  "
              f"{r.games[name]} games")  # fmt: skip
    path = Path(args.leaderboard or Path("leaderboards") / f"{args.variant}.csv")
    try:
        append_leaderboard(path, leaderboard_rows(rated, args.players, args.variant, args.seed))
    except (OSError, ValueError) as e:
        raise UsageError(f"--leaderboard: {e}") from None
    print(f"appended {len(args.players)} row(s) to {path}")
    return 0


def cmd_mistakes(args: argparse.Namespace) -> int:
    from mmc.evaluation.mistakes import mistake_rate, read_suite

    if args.seed < 0:
        raise UsageError(f"--seed must be >= 0, got {args.seed}")
    _check_device(args.device)
    try:
        positions = read_suite(args.suite)
    except (ValueError, OSError) as e:
        raise UsageError(f"--suite: {e}") from None
    variants = sorted({p.variant for p in positions})
    for spec in args.players:  # every spec checked on every variant before any move
        for variant in variants:
            close_player(_player(spec, variant, args.device))
    critical = sum(p.critical for p in positions)
    print(f"suite {args.suite}: {len(positions)} positions of {', '.join(variants)}, {critical} critical")
    for spec in args.players:
        made: list[Player] = []

        def make(variant: str, spec: str = spec, made: list[Player] = made) -> Player:
            made.append(_player(spec, variant, args.device))
            return made[-1]

        try:
            rate = mistake_rate(make, positions, np.random.default_rng(args.seed))
        finally:
            for player in made:
                close_player(player)
        print(rate.summary())
    return 0


def cmd_suites(args: argparse.Namespace) -> int:
    from mmc.evaluation.mistakes import read_suite, suite_names
    from mmc.evaluation.suite_make import SPECS, make_suite, spec

    if args.make is None:
        for name in suite_names():
            positions = read_suite(name)
            critical = sum(p.critical for p in positions)
            about = SPECS[name].description if name in SPECS else "(no recipe)"
            print(f"{name:14} {len(positions):4} positions, {critical:4} critical  {about}")
        return 0
    if args.seed < 0:
        raise UsageError(f"--seed must be >= 0, got {args.seed}")
    try:
        recipe = spec(args.make)
    except ValueError as e:
        raise UsageError(f"--make: {e}") from None
    for player in args.player:
        for variant in recipe.variants:
            close_player(_player(player, variant, "cpu"))
    try:
        make_suite(args.make, seed=args.seed, players=args.player, source=args.source, out=args.out)
    except (ValueError, RuntimeError) as e:
        raise UsageError(str(e)) from None
    return 0


def cmd_baselines(args: argparse.Namespace) -> int:
    from mmc.play.baselines import BaselineError, checked_path, list_baselines

    found = list_baselines()
    if not found:
        print("no baseline is shipped with this installation")
        return 0
    bad: list[str] = []
    for name, baseline in found.items():
        try:
            checked_path(baseline)
            check = "sha256 ok"
        except BaselineError as e:
            check, bad = "CORRUPTED", [*bad, str(e)]
        info = baseline.info
        trained = (f"{info.get('generations', '?')} generations, {info.get('games', '?')} games, "
                   f"{info.get('wall_minutes', '?')} min on {info.get('cpu', '?')}")  # fmt: skip
        print(f"baseline:{name:16} {baseline.variant:12} {baseline.file:14} {check:9}  {trained}")
    if bad:
        raise UsageError(bad[0])
    return 0


def _read_games(path: str, game: int | None) -> list[tuple[int, GameRecord, list[Any]]]:
    try:
        records = read_records(path)
    except OSError as e:
        raise UsageError(f"cannot read record file {path!r}: {e.strerror}") from None
    except RecordError as e:
        raise UsageError(str(e)) from None
    if not records:
        raise UsageError(f"record file {path!r} holds no games")
    if game is not None and not 1 <= game <= len(records):
        raise UsageError(f"--game must be between 1 and {len(records)} (the games in {path!r}), got {game}")
    numbers = range(1, len(records) + 1) if game is None else [game]
    out = []
    for number in numbers:
        try:
            out.append((number, records[number - 1], replay(records[number - 1])))
        except RecordError as e:
            raise UsageError(f"{path}: game {number}: {e}") from None
    return out


def cmd_serve(args: argparse.Namespace) -> int:
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port must be in [1, 65535], got {args.port}")
    if not Path(args.project).is_dir():
        raise UsageError(f"--project {args.project} is not a folder")
    try:
        import uvicorn

        from mmc.web.app import create_app
    except ImportError as error:
        raise UsageError(f"mmc serve needs starlette and uvicorn ({error}): pip install -e '.[web]'") from None
    app = create_app(args.project, mlflow_url=args.mlflow_url, prefect_url=args.prefect_url, device=args.device)
    print(f"mmc serve: http://127.0.0.1:{args.port} (the study in {Path(args.project).resolve()}); Ctrl-C stops it",
          flush=True)  # fmt: skip
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
    return 0


def move_labels(states: list[Any], moves: Sequence[str]) -> list[str]:
    """Each move's label in a replay, chess-style: ``N. move`` for the first player, ``N... move`` for the second,
    ``N`` counting from the start position's move (``ply // 2 + 1``) and going up when the first player moves after
    the second (so a player's moves in a row share one number)."""
    number = states[0].ply // 2 + 1
    labels = []
    for index, (state, move) in enumerate(zip(states[: len(moves)], moves, strict=True)):
        first = int(state.turn) == FIRST
        if first and index > 0 and int(states[index - 1].turn) != FIRST:
            number += 1
        labels.append(f"{number}{'.' if first else '...'} {move}")
    return labels


def cmd_replay(args: argparse.Namespace) -> int:
    for number, record, states in _read_games(args.file, args.game):
        first, second = (name.capitalize() for name in get_game(record.variant).players)
        print(f"game {number}: {record.first} ({first}) vs {record.second} ({second}), {record.variant}, "
              f"seed {record.seed}")  # fmt: skip
        print()
        print("start")
        print(_render(states[0]))
        for ply, (label, state) in enumerate(zip(move_labels(states, record.moves), states[1:], strict=True)):
            note = " (opening)" if ply < record.opening_plies else ""
            print()
            print(label + note)
            print(_render(state))
        winner = {"1-0": f"{first} wins", "0-1": f"{second} wins"}.get(record.result, "draw")
        print()
        print(f"{record.result} ({record.termination}): {winner}")
        print()
    return 0
