"""The ``mmc`` command line: ``mmc variants``, ``show``, ``perft``, ``match``, ``play``, ``replay``, ``rate``,
``mistakes``, ``suites``, ``serve``, ``compile``. This module is its grammar (every command's arguments and help)
and :func:`main`; :mod:`mmc.cli_commands` holds what each command does.

Every command takes any variant of any game family and reaches the game only through ``mmc.games`` (a variant id
names its family). Every command checks its input before doing any work; bad input exits with status 2 and one line
``mmc: error: ...`` that names the problem.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TypeAlias

from mmc.cli_commands import (
    MAX_GAMES,
    MAX_PLIES,
    UsageError,
    cmd_baselines,
    cmd_compile,
    cmd_match,
    cmd_mistakes,
    cmd_perft,
    cmd_play,
    cmd_rate,
    cmd_replay,
    cmd_serve,
    cmd_show,
    cmd_suites,
    cmd_variants,
)
from mmc.games import get_variant
from mmc.games.perft import MAX_DEPTH
from mmc.play.players import player_kinds

__all__ = ["build_parser", "main"]

Commands: TypeAlias = "argparse._SubParsersAction[_Parser]"
"""What ``add_subparsers`` returns: each ``_add_*`` below adds its command to it."""


class _Formatter(argparse.HelpFormatter):
    """argparse's help, its lines broken at spaces only: a player spec (``net:PATH.pt[:sims=N]...``) stays whole."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_long_words=False, break_on_hyphens=False)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _variant(name: str) -> str:
    try:
        return get_variant(name).name
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _add_device(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--device",
        default="cpu",
        help="where network players (net:, policy:) run: auto, cpu or cuda (default cpu; auto: cuda if torch sees one)",
    )


def player_forms() -> str:
    """Every form a player spec takes, from the player registry (``mmc.play.player_kinds``), for ``--help``."""
    return ", ".join(kind.usage for kind in player_kinds().values()).replace("%", "%%")


_MAX_PLIES_HELP = f"ply cap, at most {MAX_PLIES}: the game is drawn then (default: the family's, 150 in chess)"
_VARIANT_HELP = "a variant id of any game family (mmc variants lists them)"
_POSITION_HELP = "position text of the variant's family (a FEN in chess; default: the variant's start)"
_OPENING_HELP = (
    "uniformly random plies that open each game before the players play (default: the variant's family's, "
    "Game.opening_plies: 4 in the built-in families)"
)


def build_parser() -> argparse.ArgumentParser:
    """The ``mmc`` parser: one sub-command per ``_add_*`` below, in the order ``mmc --help`` lists them; each sets
    ``func``, the :mod:`mmc.cli_commands` function that runs it."""
    parser = _Parser(prog="mmc", description="meta-minichess: rules engine, self-play and study tools")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for add in COMMANDS:
        add(sub)
    return parser


def _players_help() -> str:
    return f"a player spec: {player_forms()}"


def _add_variants(sub: Commands) -> None:
    p = sub.add_parser("variants", help="list the game families and their variants, one line each")
    p.set_defaults(func=cmd_variants)


def _add_show(sub: Commands) -> None:
    p = sub.add_parser("show", help="print a position as a board")
    p.add_argument("variant", type=_variant, metavar="VARIANT")
    p.add_argument("--position", "--fen", dest="position", metavar="TEXT", help=_POSITION_HELP)
    p.set_defaults(func=cmd_show)


def _add_perft(sub: Commands) -> None:
    p = sub.add_parser("perft", help="count legal-move tree leaves; the last line is the node count")
    p.add_argument("variant", nargs="?", type=_variant, metavar="VARIANT")
    p.add_argument("--position", "--fen", dest="position", metavar="TEXT", help=_POSITION_HELP)
    p.add_argument("--depth", type=int, help=f"moves to search (0 to {MAX_DEPTH})")
    p.add_argument("--divide", action="store_true", help="print the count below each first move")
    p.add_argument("--file", metavar="FILE.csv", help="run a perft suite (columns variant,position,depth,nodes)")
    p.set_defaults(func=cmd_perft)


def _add_match(sub: Commands) -> None:
    p = sub.add_parser("match", help="play games between two players; one summary line (score with 95%% CI)")
    p.add_argument("players", nargs=2, metavar="PLAYER", help=_players_help())
    p.add_argument("--variant", type=_variant, required=True, help=_VARIANT_HELP)
    p.add_argument("--games", type=int, default=20, help=f"games to play, 1 to {MAX_GAMES} (default 20)")
    p.add_argument(
        "--seed", type=int, default=0, help="seed (>= 0) of the openings and the players' randomness (default 0)"
    )
    p.add_argument("--opening-plies", type=int, help=_OPENING_HELP)
    p.add_argument("--max-plies", type=int, help=_MAX_PLIES_HELP)
    p.add_argument("--records", metavar="FILE", help="write the games to FILE (PGN-like, read by mmc replay)")
    _add_device(p)
    p.set_defaults(func=cmd_match)


def _add_play(sub: Commands) -> None:
    p = sub.add_parser("play", help="play a game against a player at the terminal")
    p.add_argument("--variant", type=_variant, required=True, help=_VARIANT_HELP)
    p.add_argument("--opponent", required=True, metavar="PLAYER", help=_players_help())
    p.add_argument(
        "--color",
        default="first",
        help="your side: a player of the variant's family (white or black in chess), first or second (default first)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed (>= 0) of the opponent's randomness (default 0)")
    p.add_argument("--max-plies", type=int, help=_MAX_PLIES_HELP)
    _add_device(p)
    p.set_defaults(func=cmd_play)


def _add_rate(sub: Commands) -> None:
    p = sub.add_parser("rate", help="Elo of players against the study's anchor ladder (greedy = 0), to a leaderboard")
    p.add_argument("players", nargs="+", metavar="PLAYER", help=_players_help())
    p.add_argument("--variant", type=_variant, required=True, help=_VARIANT_HELP)
    p.add_argument("--games", type=int, default=20, help="games of each pairing of a rated player (default 20)")
    p.add_argument("--ladder-games", type=int, default=30, help="games of each pair of anchors (default 30)")
    p.add_argument(
        "--settle-games", type=int, default=10,
        help="games of each pairing's first round: one that scores 0.95 or more (or 0.05 or less) in them stops "
        "there; 0: every game is played (default 10, the study's evaluate.settle_games)",
    )  # fmt: skip
    p.add_argument(
        "--anchors",
        help="comma-separated anchor specs, weakest first, greedy among them (default: the study's rate.anchors: "
        "random,mcts:25,greedy,fairy:nodes=1,fairy:nodes=10,fairy:nodes=100; add mcts:100 after greedy for a rung "
        "above greedy where Fairy-Stockfish does not play)",
    )  # fmt: skip
    p.add_argument("--seed", type=int, default=0, help="root seed (>= 0), as params.yaml's seed (default 0)")
    p.add_argument("--opening-plies", type=int, help=_OPENING_HELP)
    p.add_argument("--leaderboard", metavar="FILE.csv", help="CSV to append to (default leaderboards/VARIANT.csv)")
    _add_device(p)
    p.set_defaults(func=cmd_rate)


def _add_mistakes(sub: Commands) -> None:
    p = sub.add_parser(
        "mistakes", help="the share of a solver-labelled suite's positions where a player's move changes the value"
    )
    p.add_argument("players", nargs="+", metavar="PLAYER", help=_players_help())
    p.add_argument("--suite", required=True, help="a shipped suite (mmc suites lists them) or a suite file NAME.csv")
    p.add_argument("--seed", type=int, default=0, help="the players' random stream (>= 0, default 0)")
    _add_device(p)
    p.set_defaults(func=cmd_mistakes)


def _add_suites(sub: Commands) -> None:
    p = sub.add_parser("suites", help="list the solver-labelled position suites, or make one (--make NAME)")
    p.add_argument("--make", metavar="NAME", help="draw and label suite NAME and write it (slow: minutes)")
    p.add_argument(
        "--player", action="append", default=[], metavar="PLAYER",
        help="--make: a player whose self-play games also give positions (repeatable), e.g. a study's network",
    )  # fmt: skip
    p.add_argument("--from", dest="source", metavar="FILE.csv", help="--make, a chess suite: the mate suite to relabel")
    p.add_argument("--seed", type=int, default=0, help="--make: the root seed (>= 0, default 0)")
    p.add_argument("--out", metavar="FILE.csv", help="--make: where to write it (default: the shipped file)")
    p.set_defaults(func=cmd_suites)


def _add_baselines(sub: Commands) -> None:
    p = sub.add_parser(
        "baselines", help="list the trained baseline networks shipped with mmc (baseline:NAME), their files checked"
    )
    p.set_defaults(func=cmd_baselines)


def _add_replay(sub: Commands) -> None:
    p = sub.add_parser("replay", help="print every position of recorded games")
    p.add_argument("file", metavar="FILE", help="a record file written by mmc match --records")
    p.add_argument("--game", type=int, help="only this game (1 = the first in the file)")
    p.set_defaults(func=cmd_replay)


def _add_serve(sub: Commands) -> None:
    p = sub.add_parser("serve", help="a local web app: play, inspect a network, watch the study's games")
    p.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000)")
    p.add_argument("--project", default=".", help="the study's folder: models/, data/jobs/, mlflow.db (default .)")
    p.add_argument("--mlflow-url", default="http://127.0.0.1:5000", help="the MLflow UI (default port 5000)")
    p.add_argument("--prefect-url", default="http://127.0.0.1:4200", help="the Prefect UI (default port 4200)")
    _add_device(p)
    p.set_defaults(func=cmd_serve)


def _add_compile(sub: Commands) -> None:
    p = sub.add_parser(
        "compile", help="compile the game families' kernels and search trees into numba's cache ahead of first use"
    )
    p.add_argument("families", nargs="*", metavar="FAMILY", help="game families (default: every registered one)")
    p.add_argument("--jobs", type=int, default=1, help="families compiled side by side, one process each (default 1)")
    p.set_defaults(func=cmd_compile)


COMMANDS: tuple[Callable[[Commands], None], ...] = (
    _add_variants, _add_show, _add_perft, _add_match, _add_play, _add_rate, _add_mistakes, _add_suites, _add_baselines,
    _add_replay,
    _add_serve, _add_compile,
)  # fmt: skip
"""Every command's ``_add_*``, in ``mmc --help``'s order."""


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return int(args.func(args))
    except UsageError as e:
        print(f"mmc: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader closed the pipe (``mmc replay FILE | head``): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
