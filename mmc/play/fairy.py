"""Fairy-Stockfish as an opponent, over UCI in a subprocess (it is GPL-3: never linked, never imported).

Which variants the Debian package ``fairy-stockfish`` (11.1) plays, and how, each game family says in its
``Game.engine`` (:class:`mmc.games.EngineBinding`): the engine's variant names, a definitions file loaded with
``setoption name VariantPath``, and the position and move texts. In the chess family it plays gardner and
los_alamos (built in), baby and mallet (defined in the family's ``engine-variants.ini``) and chess; it cannot load
atomic, extinction, rifle, dark or the colour-bound variants.

Each move is searched from the position's FEN alone (``ucinewgame`` clears the hash table and the histories
first), so a move depends only on the position and the node or depth limit: with ``go nodes N`` and one thread the
engine is deterministic and hardware-independent. A small search gets the engine's smallest table, which is cheap
to clear and plays the default table's moves (:data:`SMALL_HASH_MB`). It does not see the game's history, so it
does not steer by threefold repetition; our engine still adjudicates it.
"""

from __future__ import annotations

import logging
import queue
import shutil
import subprocess
import threading
from collections.abc import Sequence
from types import TracebackType
from typing import IO, Any

import numpy as np

from mmc.games import EngineBinding, get_game, legal_moves

__all__ = ["DEFAULT_BINARY", "FairyError", "FairyPlayer", "engine_variants", "plays"]

logger = logging.getLogger(__name__)

DEFAULT_BINARY = "/usr/games/fairy-stockfish"
"""Where ``apt-get install fairy-stockfish`` puts the engine."""


def _binding(variant: str) -> EngineBinding | None:
    return get_game(variant).engine


def engine_variants(variant: str) -> tuple[str, ...]:
    """The named variants of ``variant``'s family that Fairy-Stockfish plays (its ``Game.engine``; a family's
    generated ids are not listed, :func:`plays` answers for them)."""
    binding = _binding(variant)
    return () if binding is None else tuple(binding.variants)


def plays(spec: str, variant: str) -> bool:
    """Whether the player ``spec`` plays ``variant``: every one does except a ``fairy`` one in a variant
    Fairy-Stockfish does not play (the family's ``Game.engine``)."""
    if not spec.startswith("fairy"):
        return True
    binding = _binding(variant)
    return binding is not None and variant in binding.variants


SMALL_SEARCH = 10_000
"""Node limits up to this get a :data:`SMALL_HASH_MB` transposition table."""
SMALL_HASH_MB = 1
"""The engine's smallest table (UCI ``Hash``, in MB; its default is 16). Every move clears the table
(``ucinewgame``), which took most of a small search's time with the default: about 1.2 ms a move at
``nodes=1``-``100`` against 0.9 with 1 MB (AMD EPYC). A search of up to :data:`SMALL_SEARCH` nodes fills a small
part of its 98,304 entries, so it plays the moves it plays with the default table (a collision that changes one
is rare, and every move of ``tests/play/test_fairy.py``'s games is the same)."""

_TIMEOUT_S = 60.0
"""Longest wait for one engine reply; a search that takes longer is reported as a hung engine."""


class FairyError(RuntimeError):
    """Fairy-Stockfish is missing, cannot play the variant, died, or answered something we cannot use."""


class FairyPlayer:
    """Fairy-Stockfish searching ``nodes`` nodes and/or to ``depth`` plies per move (one engine process).

    The process starts in the constructor, which raises :class:`FairyError` before any game when the
    variant is not one the engine plays, the binary is missing, or the engine's start position for the
    variant differs from ours. Use it as a context manager or call :meth:`close`. ``hash_mb`` is the transposition
    table's size (UCI ``Hash``); by default :data:`SMALL_HASH_MB` for a node limit up to :data:`SMALL_SEARCH`, else
    the engine's default 16 (give a search of more nodes than its limit, such as :meth:`mate`'s, a table to match).
    """

    def __init__(
        self,
        variant: str,
        *,
        nodes: int | None = None,
        depth: int | None = None,
        binary: str = DEFAULT_BINARY,
        hash_mb: int | None = None,
    ) -> None:
        binding = _binding(variant)
        self.variant = variant
        if binding is None or variant not in binding.variants:
            known = ", ".join(binding.variants) if binding else "no variant of its family"
            raise FairyError(f"Fairy-Stockfish does not play {variant} (it plays {known})")
        self.binding = binding
        if nodes is None and depth is None:
            raise ValueError("FairyPlayer needs nodes=N or depth=N")
        if (nodes is not None and nodes < 1) or (depth is not None and depth < 1):
            raise ValueError(f"nodes and depth must be >= 1, got nodes={nodes}, depth={depth}")
        self.nodes, self.depth = nodes, depth
        self.hash_mb = hash_mb if hash_mb is not None else (SMALL_HASH_MB if nodes and nodes <= SMALL_SEARCH else 16)
        if self.hash_mb < 1:
            raise ValueError(f"hash_mb must be >= 1, got {hash_mb}")
        limits = [f"{k}={v}" for k, v in (("nodes", nodes), ("depth", depth)) if v is not None]
        self.name = ":".join(["fairy", *limits])
        self._go = " ".join(["go", *(f"{k} {v}" for k, v in (("nodes", nodes), ("depth", depth)) if v is not None)])
        path = shutil.which(binary)
        if path is None:
            raise FairyError(
                f"Fairy-Stockfish not found at {binary!r}: install it with apt-get install fairy-stockfish"
            )
        self._process: subprocess.Popen[str] | None = subprocess.Popen(
            [path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, args=(self._process.stdout,), daemon=True).start()
        try:
            self._handshake()
        except BaseException:
            self.close()
            raise

    def _pump(self, stdout: IO[str]) -> None:
        """Copy the engine's output lines into a queue (``None`` at end of output), so reads can time out."""
        for line in stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def _send(self, command: str) -> None:
        if self._process is None:
            raise FairyError("the Fairy-Stockfish player is closed")
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(command + "\n")
            self._process.stdin.flush()
        except OSError as error:
            raise FairyError(f"Fairy-Stockfish stopped reading commands: {error}") from None

    def _read_until(self, prefix: str) -> list[str]:
        """The engine's lines up to and including the first that starts with ``prefix``."""
        lines = []
        while True:
            try:
                line = self._lines.get(timeout=_TIMEOUT_S)
            except queue.Empty:
                raise FairyError(f"Fairy-Stockfish did not answer {prefix!r} within {_TIMEOUT_S:.0f} s") from None
            if line is None:
                code = self._process.poll() if self._process is not None else None
                raise FairyError(f"Fairy-Stockfish exited (status {code}) while we waited for {prefix!r}")
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def _handshake(self) -> None:
        """UCI handshake, load the variant, and check that the engine's start position is ours."""
        self._send("uci")
        self._read_until("uciok")
        self._send("setoption name Threads value 1")
        self._send(f"setoption name Hash value {self.hash_mb}")
        if self.binding.variant_file is not None:
            self._send(f"setoption name VariantPath value {self.binding.variant_file}")
        engine_name = self.binding.variants[self.variant]
        self._send(f"setoption name UCI_Variant value {engine_name}")
        self._send("isready")
        self._read_until("readyok")
        self._send("position startpos")
        self._send("d")
        board = next(line.split()[1] for line in self._read_until("Fen:") if line.startswith("Fen:"))
        ours = self.binding.start_board(self.variant)
        if board != ours:
            raise FairyError(
                f"Fairy-Stockfish's {engine_name} starts from {board}, not {ours}: "
                "it could not load the variant definition"
            )
        logger.debug("Fairy-Stockfish ready for %s (%s)", self.variant, self.name)

    def best_move(self, state: Any) -> Any:
        """The engine's move in ``state``; :class:`FairyError` naming the FEN if it is missing or illegal here."""
        return self._search(state, self._go)[0]

    def mate(self, state: Any, moves: int, nodes: int = 1_000_000) -> tuple[Any, int | None]:
        """The engine's move in ``state`` and the mate it reports (``go mate MOVES nodes NODES``: it stops at a
        mate in at most ``moves``), in moves of the side to move (negative: it is mated); ``None``: no mate seen."""
        move, lines = self._search(state, f"go mate {moves} nodes {nodes}")
        scores = [line.split() for line in lines if " score mate " in line]
        if not scores:
            return move, None
        words = scores[-1]
        return move, int(words[words.index("mate") + 1])

    def _search(self, state: Any, go: str) -> tuple[Any, list[str]]:
        """The engine's move in ``state`` after the command ``go`` and its output lines (``info``, ``bestmove``)."""
        if state.variant_name != self.variant:
            raise ValueError(f"{self.name} was set up for {self.variant}, got a {state.variant_name} position")
        fen = self.binding.position(state)
        self._send("ucinewgame")
        self._send(f"position fen {fen}")
        self._send(go)
        lines = self._read_until("bestmove")
        reply = lines[-1].split()
        text = reply[1] if len(reply) > 1 else "(none)"
        try:
            move = self.binding.parse_move(state, text)
        except ValueError:
            raise FairyError(f"Fairy-Stockfish answered bestmove {text!r} in {self.variant} position {fen}") from None
        if move not in legal_moves(state):
            raise FairyError(f"Fairy-Stockfish played {text}, illegal in our {self.variant} position {fen}")
        return move, lines

    def play(self, states: Sequence[Any], rng: np.random.Generator) -> list[Any]:
        """One engine move per state, searched one after the other (``rng`` is unused: the engine is deterministic)."""
        return [self.best_move(state) for state in states]

    def close(self) -> None:
        """Ask the engine to quit and reap the process (killed if it does not exit within 2 s). Idempotent."""
        process, self._process = getattr(self, "_process", None), None
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.write("quit\n")
                process.stdin.close()
        except OSError:
            pass
        try:
            process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> FairyPlayer:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()
