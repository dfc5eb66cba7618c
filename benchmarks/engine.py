"""Engine speed, measured in one run: perft, random playouts and the compiled-code warm-up.

    python benchmarks/engine.py [--seconds 5]

Prints perft nodes/s on gardner perft(6) and perft(7) and on 8x8 chess perft(5) from the start; random-playout
plies/s through the chess family's Python API (``mmc.games.chess``: legal_moves + apply_move + outcome per ply) and
through the game-generic verbs of ``mmc.games`` (which look the family up from the state), next to the same playouts
inside one compiled call (the ceiling for that work); the time a fresh process takes to import the engine and answer
its first call (numba's on-disk cache loaded), and the warm start of a self-play worker (a fresh process that
imports the search and plays one searched game); and, when ``/usr/games/fairy-stockfish`` is installed, its perft on
the same positions and our ratio to it. The same for the k-in-a-row family (``mmc.games.gomoku``): perft(5) of
gomoku_8x8 from the start beside the engine's (loaded with the family's ``engine-variants.ini``), and random playouts
of gomoku_8x8, connect4 and the 15x15 gomoku. Then the jump family: perft nodes/s and playouts in complete moves/s
(:func:`jump_rates`; alone: ``python -c "from benchmarks.engine import jump_rates; jump_rates(5)"``).
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import time
from types import ModuleType

import mmc.games
from mmc.games import chess, gomoku
from mmc.games.gomoku.engine import VARIANT_FILE

FAIRY = "/usr/games/fairy-stockfish"


def perft_rate(depth: int, variant: str = "gardner") -> tuple[int, float]:
    """Leaves and nodes/s of the family's perft from the variant's start (``Game.perft``, compiled code loaded)."""
    family, state = mmc.games.get_game(variant), mmc.games.initial_state(variant)
    family.perft(state, 3)
    start = time.perf_counter()
    nodes = family.perft(state, depth)
    return nodes, nodes / (time.perf_counter() - start)


def fairy_perft_rate(depth: int, variant: str = "gardner") -> float:
    """Fairy-Stockfish's ``go perft`` on the variant's start (gardner and chess are built in; a k-in-a-row variant
    from the family's definitions), start-up subtracted."""
    family = mmc.games.get_game(variant)
    load = f"setoption name VariantPath value {VARIANT_FILE}\n" if family.name == "gomoku" else ""

    def run(d: int) -> float:
        script = f"uci\n{load}setoption name UCI_Variant value {variant}\nposition startpos\ngo perft {d}\nquit\n"
        start = time.perf_counter()
        subprocess.run([FAIRY], input=script, capture_output=True, text=True, check=True)
        return time.perf_counter() - start

    baseline = min(run(1) for _ in range(3))
    nodes = family.perft(mmc.games.initial_state(variant), depth)
    return nodes / (min(run(depth) for _ in range(2)) - baseline)


def api_playouts(variant: str, seconds: float, api: ModuleType) -> float:
    """Plies (complete moves, :func:`random_game`) per second of uniformly random games through a public API: a
    family's package (``mmc.games.chess``, ``mmc.games.gomoku``) or the game-generic ``mmc.games``; one game first,
    untimed, loads the compiled code."""
    rng = random.Random(0)
    random_game(variant, api, rng)
    plies, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        plies += random_game(variant, api, rng)
    return plies / (time.perf_counter() - start)


def random_game(variant: str, api: ModuleType, rng: random.Random) -> int:
    """The complete moves (the position's ply) of one uniformly random game through ``api``: legal_moves +
    apply_move + outcome per action; an action is a ply, but in the jump family a single hop of a chain."""
    state = api.initial_state(variant)
    while api.outcome(state) is None:
        moves = api.legal_moves(state)
        state = api.apply_move(state, moves[rng.randrange(len(moves))])
    return int(state.ply)


def kernel_playouts(variant: str, seconds: float) -> float:
    """Plies/s of the same random games inside one compiled call per game (the family's ``random_playout``; no
    repetition tracking), capped at the family's default move cap."""
    family = mmc.games.get_game(variant)
    board, tab = family.kernel_state(mmc.games.initial_state(variant)).board, family.table(variant)
    cap = family.default_max_plies
    family.kernels.random_playout(board.copy(), 1, tab, 0, cap)
    plies, seed, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        plies += family.kernels.random_playout(board.copy(), 1, tab, seed, cap)
        seed += 1
    return plies / (time.perf_counter() - start)


def warmup_seconds() -> float:
    """A fresh interpreter: import the engine, then legal moves, a move and perft(2) of every variant."""
    code = (
        "import time; t = time.perf_counter()\n"
        "from mmc.games.chess import VARIANTS, initial_state, legal_moves, apply_move, outcome, perft\n"
        "for v in VARIANTS:\n"
        "    s = initial_state(v); outcome(s); perft(s, 2)\n"
        "    m = legal_moves(s)\n"
        "    if m: apply_move(s, m[0])\n"
        "print(time.perf_counter() - t)\n"
    )
    return _fresh_process(code)


def worker_warmup_seconds() -> float:
    """A fresh interpreter as a self-play worker starts: import the search and a network, then one gardner game at 8
    simulations a move (the family's compiled tree loaded from numba's cache)."""
    code = (
        "import time; t = time.perf_counter()\n"
        "import numpy as np\n"
        "from mmc.nn import NetworkConfig, build_network\n"
        "from mmc.play.selfplay import self_play\n"
        "from mmc.search import NetworkLeafEvaluator, SearchConfig\n"
        "net = build_network(NetworkConfig(game='chess', blocks=1, filters=8), seed=0)\n"
        "self_play(NetworkLeafEvaluator(net), 'gardner', 1, SearchConfig(simulations=8), np.random.default_rng(0))\n"
        "print(time.perf_counter() - t)\n"
    )
    return _fresh_process(code)


def _fresh_process(code: str) -> float:
    """The seconds ``code`` prints in a fresh interpreter, the second of two runs (the first fills the cache)."""
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return float(out.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each playout measurement")
    args = parser.parse_args()

    print(f"warm-up, fresh process with compiled cache: {warmup_seconds():.2f} s")
    print(f"warm start of a self-play worker (fresh process, one searched game): {worker_warmup_seconds():.2f} s")
    rates = {}
    cases = (("gardner", 6), ("gardner", 7), ("chess", 5), ("gomoku_8x8", 5))
    for variant, depth in cases:
        nodes, rates[variant, depth] = perft_rate(depth, variant)
        print(f"perft {variant} depth {depth}: {nodes} nodes, {rates[variant, depth] / 1e6:.2f} M nodes/s")
    if shutil.which(FAIRY):
        for variant, depth in cases:
            fairy = fairy_perft_rate(depth, variant)
            ratio = rates[variant, depth] / fairy
            print(
                f"fairy-stockfish perft {variant} depth {depth}: {fairy / 1e6:.2f} M nodes/s; "
                f"ours / fairy = {ratio:.2f}"
            )
    else:
        print(f"{FAIRY} not installed (apt-get install fairy-stockfish): no engine comparison")
    families = [(chess, v) for v in ("gardner", "atomic", "los_alamos", "dark", "chess")]
    for api, variant in [*families, *((gomoku, v) for v in ("gomoku_8x8", "connect4", "gomoku"))]:
        own = api_playouts(variant, args.seconds, api)
        generic = api_playouts(variant, args.seconds, mmc.games)
        kernel = kernel_playouts(variant, args.seconds)
        print(
            f"random playouts {variant}: {own:,.0f} plies/s through the Python API, "
            f"{generic:,.0f} through mmc.games, "
            f"{kernel:,.0f} plies/s in compiled code (API / compiled = {own / kernel:.2f})"
        )
    jump_rates(args.seconds)


def jump_rates(seconds: float) -> None:
    """The jump family (``mmc.games.jump``): compiled perft nodes/s (complete moves, as the rule book counts them)
    and random playouts in complete moves per second, through ``mmc.games`` (one State per action) and inside one
    compiled call per game (the ceiling)."""
    from mmc.games.jump import board as J
    from mmc.games.jump import initial_state as jump_start
    from mmc.games.jump import perft as jump_perft

    for variant, depth in (("jump", 4), ("jump_diagonal", 3), ("jump_6x6", 5)):
        start = jump_start(variant)
        jump_perft(start, 2)  # compiled code loaded
        began = time.perf_counter()
        nodes = jump_perft(start, depth)
        print(
            f"perft {variant} depth {depth}: {nodes} nodes, {nodes / (time.perf_counter() - began) / 1e6:.2f} M nodes/s"
        )
    for variant in ("jump", "jump_6x6"):
        api = api_playouts(variant, seconds, mmc.games)
        board, tab = J.kernel_board(jump_start(variant)), J.table(variant)
        J.random_playout(board.copy(), 1, tab, 0)
        plies, seed, began = 0, 0, time.perf_counter()
        while time.perf_counter() - began < seconds:
            plies += J.random_playout(board.copy(), 1, tab, seed)
            seed += 1
        kernel = plies / (time.perf_counter() - began)
        print(f"random playouts {variant}: {api:,.0f} complete moves/s through mmc.games, {kernel:,.0f} in compiled "
              f"code (API / compiled = {api / kernel:.2f})")  # fmt: skip


if __name__ == "__main__":
    main()
