"""The ``mmc`` command line: ``mmc variants``, ``mmc show``, ``mmc perft``.

Every command checks its input before doing any work; bad input exits with status 2 and one line
``mmc: error: ...`` that names the problem.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from mmc.engine import VARIANTS, from_fen, get_variant, initial_state, outcome, perft, perft_divide, render
from mmc.engine.state import State

__all__ = ["main"]


class UsageError(Exception):
    """Bad input: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _state(variant: str, fen: str | None) -> State:
    try:
        return initial_state(variant) if fen is None else from_fen(variant, fen)
    except ValueError as e:
        raise UsageError(str(e)) from None


def cmd_variants(args: argparse.Namespace) -> int:
    width = max(map(len, VARIANTS))
    for v in VARIANTS.values():
        print(f"{v.name:<{width}}  {v.height}x{v.width}  {v.description}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    state = _state(args.variant, args.fen)
    print(render(state, coordinates=True))
    print(state.fen())
    result = outcome(state)
    if result is not None:
        print(f"game over: {result.result()} ({result.termination.value})")
    return 0


@dataclass(frozen=True)
class PerftRow:
    line: int
    variant: str
    fen: str
    depth: int
    nodes: int


def read_perft_file(path: Path) -> list[PerftRow]:
    """Read and validate a perft suite (``variant,fen,depth,nodes``); ``UsageError`` names the first bad row."""
    try:
        text = path.read_text()
    except OSError as e:
        raise UsageError(f"cannot read perft file {str(path)!r}: {e.strerror}") from None
    reader = csv.reader(text.splitlines())
    header = next(reader, None)
    if header != ["variant", "fen", "depth", "nodes"]:
        raise UsageError(f"{path}:1: header must be 'variant,fen,depth,nodes', got {','.join(header or [])!r}")
    rows = []
    for line, fields in enumerate(reader, start=2):
        if not fields:
            continue
        if len(fields) != 4:
            raise UsageError(f"{path}:{line}: expected 4 fields, got {len(fields)}")
        variant, fen, depth, nodes = fields
        try:
            row = PerftRow(line, variant, fen, int(depth), int(nodes))
        except ValueError:
            raise UsageError(f"{path}:{line}: depth and nodes must be integers, got {depth!r}, {nodes!r}") from None
        if row.depth < 0 or row.nodes < 0:
            raise UsageError(f"{path}:{line}: depth and nodes must be >= 0")
        try:
            from_fen(variant, fen)
        except ValueError as e:
            raise UsageError(f"{path}:{line}: {e}") from None
        rows.append(row)
    return rows


def cmd_perft(args: argparse.Namespace) -> int:
    if args.file is not None:
        if args.variant is not None or args.fen is not None or args.depth is not None:
            raise UsageError("--file takes no VARIANT, --fen or --depth (they come from the file)")
        return _perft_suite(read_perft_file(Path(args.file)))
    if args.variant is None or args.depth is None:
        raise UsageError("perft needs VARIANT and --depth N (or --file FILE.csv)")
    if args.depth < 0:
        raise UsageError(f"--depth must be >= 0, got {args.depth}")
    if args.divide and args.depth < 1:
        raise UsageError("--divide needs --depth >= 1")
    state = _state(args.variant, args.fen)
    if args.divide:
        split = perft_divide(state, args.depth)
        for move, nodes in split:
            print(f"{move}: {nodes}")
        print(sum(n for _, n in split))
    else:
        print(perft(state, args.depth))
    return 0


def _perft_suite(rows: list[PerftRow]) -> int:
    mismatches = 0
    start = time.perf_counter()
    total = 0
    for row in rows:
        nodes = perft(from_fen(row.variant, row.fen), row.depth)
        total += nodes
        ok = nodes == row.nodes
        mismatches += not ok
        verdict = "OK" if ok else f"MISMATCH (expected {row.nodes})"
        print(f"{row.variant},{row.fen},{row.depth},{nodes} {verdict}")
    seconds = time.perf_counter() - start
    print(f"{len(rows) - mismatches}/{len(rows)} rows OK, {mismatches} mismatches, {total} nodes in {seconds:.1f} s")
    return 1 if mismatches else 0


def _variant(name: str) -> str:
    try:
        return get_variant(name).name
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="mmc", description="meta-minichess: rules engine, self-play and study tools")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("variants", help="list the variants with a one-line description")
    p.set_defaults(func=cmd_variants)

    p = sub.add_parser("show", help="print a position as a Unicode board")
    p.add_argument("variant", type=_variant, metavar="VARIANT")
    p.add_argument("--fen", help="position (default: the variant's start)")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("perft", help="count legal-move tree leaves; the last line is the node count")
    p.add_argument("variant", nargs="?", type=_variant, metavar="VARIANT")
    p.add_argument("--fen", help="position (default: the variant's start)")
    p.add_argument("--depth", type=int, help="plies to search")
    p.add_argument("--divide", action="store_true", help="print the count below each first move")
    p.add_argument("--file", metavar="FILE.csv", help="run a perft suite (columns variant,fen,depth,nodes)")
    p.set_defaults(func=cmd_perft)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return int(args.func(args))
    except UsageError as e:
        print(f"mmc: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
