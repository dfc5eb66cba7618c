"""Atomic file writes: a reader (or a process killed mid-write) never sees half a file.

Every file ``mmc`` writes (checkpoints, examples, game records) goes through :func:`atomic_write`: the
content goes to a temporary file beside the target, is flushed to disk, then renamed over the target.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

__all__ = ["atomic_write"]


def atomic_write(path: str | os.PathLike[str], write: Callable[[IO[bytes]], object]) -> Path:
    """Write ``path`` through ``write(binary_file)`` atomically (parent folders created); return the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(tmp_name, 0o644)  # mkstemp's 0600 would make outputs private to their writer
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return target
