"""Write ``chess_perft.csv``: Fairy-Stockfish's perft of 8x8 chess positions (the oracle of
tests/games/chess/test_chess.py).

    python tests/oracle/chess_perft.py [--binary /usr/games/fairy-stockfish] [--random 32] [--seed 24]

Rows ``fen,depth,nodes``: the standard start to depth 5, Kiwipete and the chessprogramming wiki's positions 3-6 to
depth 4, and ``--random`` positions reached by random games played with ``pyffish`` (Fairy-Stockfish's own move
generator, so that no position comes from the engine under test) to depth 4. Counts come from the engine's UCI
``go perft``. Test-only: Fairy-Stockfish and pyffish are GPL and run here as the oracle, never inside ``mmc``.
"""

from __future__ import annotations

import argparse
import csv
import random
import subprocess
from pathlib import Path

import pyffish

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KNOWN = [
    (START, 5),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4),  # Kiwipete
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4),  # position 3
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4),  # position 4
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 4),  # position 5
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 4),  # position 6
]
OUT = Path(__file__).resolve().parent / "chess_perft.csv"


def fairy_perft(binary: str, fen: str, depth: int) -> int:
    script = f"uci\nsetoption name UCI_Variant value chess\nposition fen {fen}\ngo perft {depth}\nquit\n"
    out = subprocess.run([binary], input=script, capture_output=True, text=True, check=True).stdout
    return int(next(line for line in out.splitlines() if line.startswith("Nodes searched")).split(":")[1])


def random_positions(count: int, seed: int) -> list[str]:
    """FENs after 10 to 80 random plies of random games (a game that ends early is replaced)."""
    rng = random.Random(seed)
    fens: list[str] = []
    while len(fens) < count:
        moves: list[str] = []
        for _ in range(rng.randrange(10, 81)):
            legal = pyffish.legal_moves("chess", START, moves)
            if not legal:
                break
            moves.append(rng.choice(sorted(legal)))
        fen = pyffish.get_fen("chess", START, moves)
        if pyffish.legal_moves("chess", fen, []):
            fens.append(fen)
    return fens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default="/usr/games/fairy-stockfish")
    parser.add_argument("--random", type=int, default=32, help="random positions, each to depth 4")
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args()
    rows = KNOWN + [(fen, 4) for fen in random_positions(args.random, args.seed)]
    with OUT.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["fen", "depth", "nodes"])
        for fen, depth in rows:
            writer.writerow([fen, depth, fairy_perft(args.binary, fen, depth)])


if __name__ == "__main__":
    main()
