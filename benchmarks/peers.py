"""Random-playout speed of mmc beside other game engines, one core each, measured in one run: one table, with ratios.

    python benchmarks/peers.py [--seconds 5] [--games tictactoe,connect4,gomoku,gardner,chess] [--engines ...]
        [--csv PATH] [--markdown] [--core N]

Every engine plays uniformly random games of each game (rows: tic-tac-toe, connect four, 15x15 gomoku, gardner
5x5 minichess, 8x8 chess) for ``--seconds`` of wall time per cell after a warm-up (the first call, which compiles or
jits, and up to a second more of the same work, untimed), and the table gives the moves played per second. The
engines (columns; ``--engines`` takes their ids):

- ``openspiel``: OpenSpiel's Python API (``pyspiel``): ``legal_actions``, a random one, ``apply_action`` until
  ``is_terminal``;
- ``pettingzoo``: PettingZoo's classic AEC environments (``tictactoe_v3``, ``connect_four_v3``, ``chess_v6``, as
  ``env()`` wraps them): ``last()``, a random action of the observation's ``action_mask``, ``step``;
- ``pgx``: pgx on the CPU, 256 games at once: one jitted call draws a random legal action of every game
  (``jax.random.categorical`` over logits masked by ``legal_action_mask``) and steps the 256 games with
  ``jax.vmap`` of ``pgx.experimental.auto_reset(env.step, env.init)``; a finished game is replaced by a new one
  inside the step that ended it, so every game moves at every step: 256 moves a call;
- ``mmc-api``: mmc's Python API (``mmc.games``): ``legal_moves``, a random one, ``apply_move`` until ``outcome``;
- ``mmc-aec``: mmc's PettingZoo AEC environment (``mmc.env.env``), the same loop as PettingZoo's;
- ``mmc-vector``, ``mmc-vector-nocopy``: mmc's vector environment in self-play, 256 games (``mmc.env.vector_env``;
  ``copy=False`` for the second), ``random_actions`` on the batch's action mask and ``step``. A step that restarts
  a game that ended (Gymnasium's next-step autoreset ignores its action) is not a move and is not counted;
- ``mmc-vector-random``: the same against the compiled random opponent (``opponent="random"``): the agent's moves
  per second, each step being an agent move and then the random reply, so about twice the plies of a self-play step;
- ``mmc-kernel``: the family's compiled ``random_playout`` kernel, a whole game in one call: the ceiling for this
  work (it does not track repetitions or the fifty-move rule, so its chess games run to the cap more often).

Every engine plays the same games as far as its rules go: their own ends, and a ply cap the same for every engine
(:data:`CAPS`: pgx's fixed truncation of gardner at 256 plies and chess at 512; the whole board elsewhere), applied
by the engine where it has one and by the loop where it has none (a playout stopped there counts as finished). The
Python loops draw with ``random.Random``, a new playout's reset or start included in the time.

Each engine runs in a subprocess of its own, one after the other, pinned to one core (``--core``, by default the
last this process may use) with one thread: ``OMP_NUM_THREADS=1``, ``NUMBA_NUM_THREADS=1``, and for JAX
``JAX_PLATFORMS=cpu`` and ``XLA_FLAGS=--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1`` set before
it is imported. The other engines come with the ``peers`` extra (``pip install -e '.[peers]'``, PettingZoo from the
``env`` extra); mmc never imports them, and an engine that is not installed gets ``-`` in its cells and a note under
the table, as does a game an engine lacks (PettingZoo and OpenSpiel have no gardner; PettingZoo and pgx no gomoku).

Printed: a header (CPU model, engine versions, date), the moves/s table (``1.2M``, ``345k``), the ratios of each mmc
column over OpenSpiel and over pgx where both have the game, and the mean length of the playouts each cell finished
in its timed window (agent moves against the random opponent), to check that the engines played comparable games:
the chess rules' draws differ (PettingZoo ends a game when a draw can be claimed, the compiled playout never by
repetition or the fifty-move rule). ``--csv`` writes every cell's numbers. ``--seconds 5`` takes about five minutes.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import importlib
import importlib.metadata
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pipelines.rows import cpu_model

GAMES = ("tictactoe", "connect4", "gomoku", "gardner", "chess")
TITLES = {"tictactoe": "tic-tac-toe", "connect4": "connect four", "gomoku": "gomoku 15x15", "gardner": "gardner 5x5",
          "chess": "chess 8x8"}  # fmt: skip
CAPS = {"tictactoe": 9, "connect4": 42, "gomoku": 225, "gardner": 256, "chess": 512}
"""The ply cap of each game, the same for every engine: the board's size, and pgx's truncation of the chess games."""
BATCH = 256
"""Games stepped together by the batched engines (pgx, mmc's vector environment)."""
INSTALL = "not installed: pip install -e '.[peers]'"
RESULT = "peers-result: "
"""The prefix of a worker's one line of results on its standard output."""
THREADS = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
    "JAX_PLATFORMS": "cpu",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
    "PYGAME_HIDE_SUPPORT_PROMPT": "1",  # PettingZoo's classic games import pygame, which greets on stdout otherwise
}

Chunk = Callable[[], tuple[int, int, int]]
"""One unit of an engine's work (a playout, or a step of a batch): the moves it played, the playouts it finished and
the moves of those playouts (all of them, those played before this unit too)."""


@dataclass(frozen=True)
class Engine:
    """A column: its id on the command line, its title, and whether it is one of mmc's."""

    id: str
    title: str
    mmc: bool = False
    batched: bool = False


ENGINES = (
    Engine("openspiel", "OpenSpiel"),
    Engine("pettingzoo", "PettingZoo AEC"),
    Engine("pgx", f"pgx CPU ({BATCH})", batched=True),
    Engine("mmc-api", "mmc API", mmc=True),
    Engine("mmc-aec", "mmc AEC", mmc=True),
    Engine("mmc-vector", f"mmc vector ({BATCH})", mmc=True, batched=True),
    Engine("mmc-vector-nocopy", "mmc vector, no copy", mmc=True, batched=True),
    Engine("mmc-vector-random", "mmc vector vs random", mmc=True, batched=True),
    Engine("mmc-kernel", "mmc compiled playout", mmc=True),
)
BY_ID = {e.id: e for e in ENGINES}
BASELINES = ("openspiel", "pgx")
"""The engines the ratio tables divide the mmc columns by."""


@dataclass
class Cell:
    """One engine on one game: ``status`` is ``ok``, ``lacks`` (the engine has no such game), ``missing`` (the
    engine is not installed) or ``error``; ``note`` says why for the last two."""

    engine: str
    game: str
    status: str
    per_second: float = 0.0
    moves: int = 0
    playouts: int = 0
    playout_moves: int = 0
    calls: int = 0
    seconds: float = 0.0
    note: str = ""

    @property
    def length(self) -> float | None:
        """The mean length of the playouts that finished in the timed window; ``None`` if none did, or if a batched
        engine made fewer steps than twice the cap: its games all start together, and in a window that short only
        the shorter ones finish."""
        short = BY_ID[self.engine].batched and self.calls < 2 * CAPS[self.game]
        if self.status != "ok" or not self.playouts or short:
            return None
        return self.playout_moves / self.playouts


def playout_loop(new_game: Callable[[], Any], legal: Callable[[Any], Sequence[Any]], play: Callable[[Any, Any], Any],
                 over: Callable[[Any], bool], cap: int, rng: random.Random) -> Chunk:  # fmt: skip
    """One random playout a call through a Python API: ``new_game()``, then ``play(game, move)`` of a random move of
    ``legal(game)`` until ``over(game)`` or ``cap`` moves (``play`` returns the new game, or the same one)."""

    def chunk() -> tuple[int, int, int]:
        game, plies = new_game(), 0
        while plies < cap and not over(game):
            moves = legal(game)
            game = play(game, moves[rng.randrange(len(moves))])
            plies += 1
        return plies, 1, plies

    return chunk


def openspiel_chunk(game: str) -> Chunk | None:
    import pyspiel

    name = {"tictactoe": "tic_tac_toe", "connect4": "connect_four", "gomoku": "gomoku", "chess": "chess"}.get(game)
    if name is None or name not in pyspiel.registered_names():
        return None
    spiel = pyspiel.load_game(name)

    def play(state: Any, action: int) -> Any:
        state.apply_action(action)
        return state

    return playout_loop(spiel.new_initial_state, lambda s: s.legal_actions(), play, lambda s: s.is_terminal(),
                        CAPS[game], random.Random(0))  # fmt: skip


def aec_chunk(env: Any, cap: int) -> Chunk:
    """The AEC loop (PettingZoo's and mmc's environments alike): ``last()``, a random action of the observation's
    mask, ``step``, until the game ends or ``cap`` moves; the next playout resets with a new seed."""
    import numpy as np

    rng = random.Random(0)

    def chunk() -> tuple[int, int, int]:
        env.reset(seed=rng.randrange(2**31))
        plies = 0
        while plies < cap:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            actions = np.flatnonzero(observation["action_mask"])
            env.step(int(actions[rng.randrange(len(actions))]))
            plies += 1
        return plies, 1, plies

    return chunk


def pettingzoo_chunk(game: str) -> Chunk | None:
    name = {"tictactoe": "tictactoe_v3", "connect4": "connect_four_v3", "chess": "chess_v6"}.get(game)
    if name is None:
        return None
    module = importlib.import_module(f"pettingzoo.classic.{name}")
    return aec_chunk(module.env(), CAPS[game])


def pgx_chunk(game: str) -> Chunk | None:
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    name = {"tictactoe": "tic_tac_toe", "connect4": "connect_four", "gardner": "gardner_chess", "chess": "chess"}
    if game not in name or name[game] not in pgx.available_envs():
        return None
    env = pgx.make(name[game])
    step = jax.vmap(auto_reset(env.step, env.init))

    @jax.jit
    def advance(state: Any, key: Any, plies: Any) -> tuple[Any, Any, Any, Any, Any]:
        """Every game's random move; the games that ended and their lengths; each game's plies so far."""
        key, pick, restart = jax.random.split(key, 3)
        action = jax.random.categorical(pick, jnp.where(state.legal_action_mask, 0.0, -jnp.inf), axis=-1)
        state = step(state, action, jax.random.split(restart, BATCH))
        ended, plies = state.terminated | state.truncated, plies + 1
        return state, key, jnp.sum(ended), jnp.sum(jnp.where(ended, plies, 0)), jnp.where(ended, 0, plies)

    states = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), BATCH))
    carry = [states, jax.random.PRNGKey(1), jnp.zeros(BATCH, dtype=jnp.int32)]

    def chunk() -> tuple[int, int, int]:
        carry[0], carry[1], ended, lengths, carry[2] = advance(*carry)
        return BATCH, int(ended), int(lengths)  # int() waits for the step: no work queued when the clock stops

    return chunk


def mmc_api_chunk(game: str) -> Chunk | None:
    from mmc.games import get_game

    family = get_game(game)
    return playout_loop(lambda: family.initial_state(game, max_plies=CAPS[game]), family.legal_moves,
                        family.apply_move, lambda s: family.outcome(s) is not None, CAPS[game],
                        random.Random(0))  # fmt: skip


def mmc_aec_chunk(game: str) -> Chunk | None:
    from mmc.env import env

    return aec_chunk(env(game, max_plies=CAPS[game]), CAPS[game])


def mmc_vector_chunk(game: str, copy: bool = True, opponent: str | None = None) -> Chunk | None:
    import numpy as np

    from mmc.env import random_actions, vector_env

    envs = vector_env(game, BATCH, max_plies=CAPS[game], copy=copy, opponent=opponent)
    observations, _ = envs.reset(seed=0)
    state, actions = np.array([1], dtype=np.uint64), np.zeros(BATCH, dtype=np.int64)
    # Each game's first move is at step started + 1; the games that ended at the last step (restarting) restart at
    # this one, which is no move of theirs.
    started, steps, restarting = np.zeros(BATCH, dtype=np.int64), [0], [0]

    def chunk() -> tuple[int, int, int]:
        nonlocal observations
        random_actions(observations["action_mask"], state, actions)
        observations, _, terminated, truncated, _ = envs.step(actions)
        steps[0] += 1
        moved, restarting[0], lengths = BATCH - restarting[0], 0, 0
        ended = terminated | truncated
        if ended.any():
            games = np.flatnonzero(ended)
            restarting[0], lengths = len(games), int((steps[0] - started[games]).sum())
            started[games] = steps[0] + 1
        return moved, restarting[0], lengths

    return chunk


def mmc_kernel_chunk(game: str) -> Chunk | None:
    from mmc.games import get_game

    family = get_game(game)
    if not hasattr(family.kernels, "random_playout"):
        return None
    start = family.kernel_state(family.initial_state(game, max_plies=CAPS[game]))
    board, side, tab = start.board, start.side, family.table(game)
    seed = [0]

    def chunk() -> tuple[int, int, int]:
        seed[0] += 1
        plies = int(family.kernels.random_playout(board.copy(), side, tab, seed[0], CAPS[game]))
        return plies, 1, plies

    return chunk


CHUNKS: dict[str, Callable[[str], Chunk | None]] = {
    "openspiel": openspiel_chunk,
    "pettingzoo": pettingzoo_chunk,
    "pgx": pgx_chunk,
    "mmc-api": mmc_api_chunk,
    "mmc-aec": mmc_aec_chunk,
    "mmc-vector": mmc_vector_chunk,
    "mmc-vector-nocopy": lambda game: mmc_vector_chunk(game, copy=False),
    "mmc-vector-random": lambda game: mmc_vector_chunk(game, opponent="random"),
    "mmc-kernel": mmc_kernel_chunk,
}


def measure(chunk: Chunk, seconds: float) -> tuple[int, int, int, int, float]:
    """Moves, finished playouts, their moves, the calls and the seconds of ``chunk`` run for ``seconds`` (at least
    once), after a warm-up: one call (compilation) and up to a second more."""
    chunk()
    warm = time.perf_counter() + min(1.0, seconds)
    while time.perf_counter() < warm:
        chunk()
    moves = playouts = playout_moves = calls = 0
    start = time.perf_counter()
    while True:
        m, p, pm = chunk()
        moves, playouts, playout_moves, calls = moves + m, playouts + p, playout_moves + pm, calls + 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return moves, playouts, playout_moves, calls, elapsed


def run_engine(engine: str, games: Sequence[str], seconds: float) -> list[Cell]:
    """Every game's cell of ``engine`` in this process; an engine that does not import gets ``missing`` cells."""
    cells: list[Cell] = []
    for game in games:
        try:
            chunk = CHUNKS[engine](game)
        except ImportError as e:
            note = f"{INSTALL} ({e})"
            return cells + [Cell(engine, g, "missing", note=note) for g in games[len(cells) :]]
        except Exception as e:  # one game failing leaves the others measured
            cells.append(Cell(engine, game, "error", note=f"{type(e).__name__}: {e}"))
            continue
        if chunk is None:
            cells.append(Cell(engine, game, "lacks"))
            continue
        try:
            moves, playouts, playout_moves, calls, elapsed = measure(chunk, seconds)
        except Exception as e:
            cells.append(Cell(engine, game, "error", note=f"{type(e).__name__}: {e}"))
            continue
        cells.append(Cell(engine, game, "ok", moves / elapsed, moves, playouts, playout_moves, calls, elapsed))
    return cells


def worker_env() -> dict[str, str]:
    """This process's environment with one thread for every library the engines use."""
    return {**os.environ, **THREADS}


def run_isolated(engine: str, games: Sequence[str], seconds: float, core: int) -> list[Cell]:
    """``engine``'s cells measured in a fresh interpreter pinned to ``core`` with one thread (:func:`worker`)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", engine, "--games", ",".join(games),
               "--seconds", str(seconds), "--core", str(core)]  # fmt: skip
    limit = 900 + 4 * seconds * len(games)  # pgx's chess compiles for a minute or more
    try:
        done = subprocess.run(command, env=worker_env(), capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return [Cell(engine, g, "error", note=f"no result in {limit:.0f} s") for g in games]
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(RESULT):
            return [Cell(**c) for c in json.loads(line[len(RESULT) :])]
    last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
    return [Cell(engine, g, "error", note=f"the worker failed: {last}") for g in games]


def worker(engine: str, games: Sequence[str], seconds: float, core: int) -> None:
    """The subprocess of one engine: pinned to ``core``, every game measured, one line of JSON printed."""
    os.sched_setaffinity(0, {core})
    os.environ.update(THREADS)  # before any engine is imported (the parent sets them too)
    cells = run_engine(engine, games, seconds)
    print(RESULT + json.dumps([asdict(c) for c in cells]), flush=True)


def human(rate: float) -> str:
    """``1.2M``, ``345k``, ``12.3k``, ``950``."""
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if rate >= scale:
            value = rate / scale
            return f"{value:.0f}{suffix}" if value >= 100 else f"{value:.1f}{suffix}"
    return f"{rate:.0f}"


def ratio(value: float) -> str:
    """``12x``, ``3.4x``, ``0.52x``."""
    return f"{value:.0f}x" if value >= 100 else f"{value:.1f}x" if value >= 1 else f"{value:.2f}x"


def render(header: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool) -> str:
    """A table: GitHub markdown (numbers right-aligned), or plain columns padded to their widest cell."""
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---", *["---:"] * (len(header) - 1)]) + "|"]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join((c.ljust(w) if i == 0 else c.rjust(w)) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in [header, *rows]]  # fmt: skip
    return "\n".join(lines)


def tables(cells: Sequence[Cell], engines: Sequence[str], games: Sequence[str], markdown: bool) -> str:
    """The moves/s table, the ratio tables and the playout lengths, with a note per engine not installed or cell
    failed."""
    by = {(c.engine, c.game): c for c in cells}

    def rate(engine: str, game: str) -> float | None:
        cell = by.get((engine, game))
        return cell.per_second if cell is not None and cell.status == "ok" else None

    header = ["game", *(BY_ID[e].title for e in engines)]
    moves = [[TITLES[g], *(human(r) if (r := rate(e, g)) is not None else "-" for e in engines)] for g in games]
    caps = ", ".join(str(CAPS[g]) for g in games)
    out = [f"Moves (plies) per second, one core each ({caps}-ply caps; against the random opponent: the agent's "
           "moves):", "", render(header, moves, markdown)]  # fmt: skip
    ours = [e for e in engines if BY_ID[e].mmc]
    for base in (b for b in BASELINES if b in engines):
        if not ours:
            break
        rows = []
        for g in games:
            b = rate(base, g)
            rows.append([TITLES[g], *(ratio(r / b) if b and (r := rate(e, g)) is not None else "-" for e in ours)])
        out += ["", f"Each mmc column over {BY_ID[base].title} (x faster):", "",
                render(["game", *(BY_ID[e].title for e in ours)], rows, markdown)]  # fmt: skip
    lengths = [[TITLES[g], *(f"{n:.1f}" if (c := by.get((e, g))) and (n := c.length) is not None else "-"
                             for e in engines)] for g in games]  # fmt: skip
    out += ["", "Mean playout length (plies of the playouts finished in the timed window; agent moves against the "
            "random opponent; - where a batch made too few steps to tell):", "",
            render(header, lengths, markdown)]  # fmt: skip
    notes = []
    for e in engines:
        engine_cells = [by[e, g] for g in games if (e, g) in by]
        if engine_cells and all(c.status == "missing" for c in engine_cells):
            notes.append(f"- {BY_ID[e].title}: {engine_cells[0].note}")
        notes += [f"- {BY_ID[e].title}, {TITLES[c.game]}: {c.note}" for c in engine_cells if c.status == "error"]
    if notes:
        out += ["", *notes]
    return "\n".join(out)


def version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def header_line(engines: Sequence[str], seconds: float, core: int) -> str:
    """The CPU, each engine's version (and what it runs on), the date and the time per cell."""
    parts = []
    for name, packages in (("OpenSpiel", ["open_spiel"]), ("PettingZoo", ["pettingzoo"]), ("pgx", ["pgx", "jax"]),
                           ("mmc", ["meta-minichess", "numba", "numpy"])):  # fmt: skip
        versions = [f"{p} {v}" for p in packages if (v := version(p)) is not None]
        parts.append(", ".join(versions) if versions else f"{name} not installed")
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).resolve().parent,
                                capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
        parts[-1] += f" (git {commit})"
    except (OSError, subprocess.CalledProcessError):
        pass
    today = datetime.date.today().isoformat()
    return (f"{cpu_model()}, core {core}, one thread; {'; '.join(parts)}; Python {sys.version.split()[0]}; {today}; "
            f"{seconds:g} s per cell after warm-up")  # fmt: skip


def write_csv(path: str, cells: Sequence[Cell]) -> None:
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["game", "engine", "column", "status", "moves_per_second", "moves", "playouts",
                      "playout_moves", "calls", "seconds", "mean_length", "note"])  # fmt: skip
        for c in cells:
            length = "" if c.length is None else f"{c.length:.2f}"
            out.writerow([c.game, c.engine, BY_ID[c.engine].title, c.status, f"{c.per_second:.1f}", c.moves,
                          c.playouts, c.playout_moves, c.calls, f"{c.seconds:.3f}", length, c.note])  # fmt: skip


def names(text: str, known: Sequence[str], flag: str, parser: argparse.ArgumentParser) -> list[str]:
    chosen = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in chosen if n not in known]
    if unknown or not chosen:
        parser.error(f"{flag}: one or more of {','.join(known)} (comma-separated), got {text!r}")
    return chosen


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="timed wall time per cell (default 5)")
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated rows (default all)")
    parser.add_argument("--engines", default=",".join(BY_ID), help="comma-separated columns (default all)")
    parser.add_argument("--csv", help="also write every cell's numbers to this CSV file")
    parser.add_argument("--markdown", action="store_true", help="GitHub markdown tables (plain columns otherwise)")
    parser.add_argument("--core", type=int, default=max(os.sched_getaffinity(0)), help="the core every engine runs on")
    parser.add_argument("--worker", help=argparse.SUPPRESS)  # the subprocess of one engine (run_isolated)
    args = parser.parse_args(argv)
    games = names(args.games, GAMES, "--games", parser)
    engines = names(args.engines if args.worker is None else args.worker, list(BY_ID), "--engines", parser)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    if args.worker is not None:
        worker(args.worker, games, args.seconds, args.core)
        return
    cells: list[Cell] = []
    for engine in engines:
        began = time.perf_counter()
        cells += run_isolated(engine, games, args.seconds, args.core)
        print(f"peers: {engine} done in {time.perf_counter() - began:.0f} s", file=sys.stderr, flush=True)
    print(header_line(engines, args.seconds, args.core))
    print()
    print(tables(cells, engines, games, args.markdown))
    if args.csv:
        write_csv(args.csv, cells)


if __name__ == "__main__":
    main()
