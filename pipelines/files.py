"""Atomic file writes and content hashes.

A file is written to a temporary file beside it (``.NAME.XXXX.tmp``), flushed to disk and renamed over the
target (``mmc.core.atomic.atomic_write``, which every ``mmc`` writer uses too), so a reader, or a run killed at any
moment, never finds half a file under the real name. :func:`remove_temporaries` sweeps a killed run's leftovers.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mmc.core.atomic import atomic_write

__all__ = [
    "checked_json",
    "file_hashes",
    "remove_temporaries",
    "sha256",
    "tree_sha256",
    "write_bytes",
    "write_csv",
    "write_json",
    "write_text",
]


def write_bytes(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (parents created, ``mmc.core.atomic.atomic_write``); return ``path``."""
    return atomic_write(path, lambda file: file.write(data))


def write_text(path: Path, text: str) -> Path:
    return write_bytes(path, text.encode())


def write_json(path: Path, data: Any) -> Path:
    """``data`` as indented JSON with a final newline, atomically."""
    return write_text(path, json.dumps(data, indent=2, sort_keys=False) + "\n")


def write_csv(path: Path, header: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> Path:
    """Rows (mappings keyed by ``header``) as CSV with a header line, atomically."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(header), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return write_text(path, buffer.getvalue())


def sha256(path: Path) -> str:
    """Hex SHA-256 of the file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def tree_sha256(root: Path, entries: Iterable[str]) -> str:
    """One hash over the files under ``entries`` (files or folders relative to ``root``, or absolute: an installed
    game's package), skipping caches."""
    digest = hashlib.sha256()
    for entry in entries:
        base = root / entry
        files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for file in files:
            if "__pycache__" in file.parts or file.suffix in (".pyc", ".tmp"):
                continue
            name = file.relative_to(root) if file.is_relative_to(root) else file
            digest.update(name.as_posix().encode() + b"\0")
            digest.update(file.read_bytes() + b"\0")
    return digest.hexdigest()


def remove_temporaries(folder: Path) -> list[Path]:
    """Delete the temporary files (``.NAME.XXXX.tmp``) that a killed writer left under ``folder``."""
    leftovers = [p for p in Path(folder).rglob(".*.tmp") if p.is_file()] if Path(folder).exists() else []
    for path in leftovers:
        path.unlink(missing_ok=True)
    return leftovers


def file_hashes(root: Path, files: Iterable[Path]) -> dict[str, str]:
    """``{path relative to root: sha256}`` of ``files``: what a done marker lists (see :func:`checked_json`)."""
    return {Path(path).resolve().relative_to(root).as_posix(): sha256(path) for path in files}


def checked_json(root: Path, path: Path) -> dict[str, Any] | None:
    """The done marker at ``path`` (a JSON object with ``"files": {relative path: sha256}``, written after the
    files it lists) if it parses and every listed file under ``root`` has its hash; else ``None`` (redo it)."""
    try:
        data = json.loads(Path(path).read_text())
        files = data["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    for name, digest in files.items():
        file = root / name
        if not file.is_file() or sha256(file) != digest:
            logging.getLogger(__name__).warning("%s does not match %s: redoing it", name, path)
            return None
    return dict(data)
