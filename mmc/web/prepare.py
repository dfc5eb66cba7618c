"""The game families made ready while ``mmc serve`` starts: each family's first game needs its rules and search
compiled (numba, once per clone, a minute or more for some families) or loaded from the cache (seconds). A thread
prepares every family in turn (``mmc.play.warm.prepare_family``) as the server starts, and the page says which are still
being prepared, so that a first move never sits at "thinking…" with no word of why.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["Preparation"]

logger = logging.getLogger(__name__)


class Preparation:
    """Prepares ``families`` one after the other on a daemon thread (:meth:`start`); :meth:`status` is what the page
    shows. ``prepare(name) -> seconds`` does one family (``mmc.play.warm.prepare_family``)."""

    def __init__(self, families: Sequence[str], prepare: Callable[[str], float] | None = None) -> None:
        self.families = list(families)
        self._prepare = prepare
        self._lock = threading.Lock()
        self._done: dict[str, float] = {}
        self._failed: dict[str, str] = {}
        self._current: str | None = None
        self._started: float | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Begin preparing (once); returns at once."""
        with self._lock:
            if self._thread is not None:
                return
            self._started = time.monotonic()
            self._thread = threading.Thread(target=self._run, name="mmc-prepare", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        from mmc.play.warm import prepare_family

        prepare: Callable[[str], float] = self._prepare or prepare_family
        for name in self.families:
            with self._lock:
                self._current = name
            try:
                seconds = prepare(name)
            except Exception as error:  # a family that cannot be prepared is still playable: it compiles on use
                logger.warning("mmc serve: preparing %s failed: %s", name, error)
                with self._lock:
                    self._failed[name] = f"{type(error).__name__}: {error}"
                continue
            with self._lock:
                self._done[name] = round(seconds, 1)
        with self._lock:
            self._current = None

    def pending(self) -> list[str]:
        """The families not prepared yet (none before :meth:`start`: nothing is under way)."""
        with self._lock:
            if self._thread is None:
                return []
            return [name for name in self.families if name not in self._done and name not in self._failed]

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until every family is prepared (or ``timeout`` seconds); whether they all are."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return not self.pending()

    def status(self) -> dict[str, Any]:
        """``{"pending": [...], "current": name or None, "done": {name: seconds}, "failed": {name: why},
        "seconds": since the start}``."""
        pending = self.pending()
        with self._lock:
            since = 0.0 if self._started is None else time.monotonic() - self._started
            return {"pending": pending, "current": self._current, "done": dict(self._done),
                    "failed": dict(self._failed), "seconds": round(since, 1)}  # fmt: skip
