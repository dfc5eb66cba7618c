"""What the web app reads from a study's project folder: the models under ``models/``, the game records under
``data/jobs/`` and the MLflow experiment id, by reading the files directly (``mmc`` never imports the study's
tools). Every path a request names is looked up among the files found here; none is opened as given.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RECORD_SUFFIXES", "ModelError", "Study"]

RECORD_SUFFIXES = (".pgn",)
"""Game record files (``mmc.play.records``) as the study writes them."""
_REGISTRY = re.compile(r"^(?P<name>[a-z_]+(?:-[a-z_]+)?)@r(?P<replicate>\d+)$")
MAX_RECORD_FILES = 5000
"""The most record files listed (a study writes a few hundred)."""


class ModelError(ValueError):
    """A model name that is not a checkpoint under the project's ``models/`` folder."""


@dataclass(frozen=True)
class Study:
    """A project folder (the root of a study checkout; nothing in it needs to exist)."""

    root: Path

    @property
    def models_dir(self) -> Path:
        return self.root / "models"

    @property
    def jobs_dir(self) -> Path:
        return self.root / "data" / "jobs"

    def models(self) -> list[str]:
        """Every checkpoint under ``models/`` with its config beside it, as a path relative to ``models/``."""
        base = self.models_dir.resolve()
        if not base.is_dir():
            return []
        found = []
        for weights in sorted(base.rglob("*.pt")):
            if weights.with_suffix(".json").is_file() and weights.resolve().is_relative_to(base):
                found.append(weights.relative_to(base).as_posix())
        return found

    def model_path(self, name: str) -> Path:
        """The checkpoint that ``name`` stands for: a path relative to ``models/`` (``champion/r0/gardner.pt``) or
        a registry-like name (``joat@r0``, ``multitask@r1``, ``expert-gardner@r0``); :class:`ModelError` unless
        it resolves to an existing checkpoint inside ``models/``."""
        match = _REGISTRY.match(name.strip())
        if match:
            kind, replicate = match["name"], match["replicate"]
            if kind.startswith("expert-"):
                name = f"champion/r{replicate}/{kind.removeprefix('expert-')}.pt"
            else:
                name = f"starts/r{replicate}/{kind}.pt"
        base = self.models_dir.resolve()
        path = (base / name).resolve()
        if not path.is_relative_to(base) or path.suffix != ".pt" or not path.is_file():
            raise ModelError(f"no model {name!r} under the project's models/ folder (pick one of the listed models)")
        if not path.with_suffix(".json").is_file():
            raise ModelError(f"model {name!r} has no config file beside it")
        return path

    def record_files(self) -> dict[str, Path]:
        """Game record files under ``data/jobs/``, by their path relative to it."""
        base = self.jobs_dir.resolve()
        if not base.is_dir():
            return {}
        files: dict[str, Path] = {}
        for path in sorted(base.rglob("*")):
            if path.suffix in RECORD_SUFFIXES and path.is_file() and path.resolve().is_relative_to(base):
                files[path.relative_to(base).as_posix()] = path
                if len(files) >= MAX_RECORD_FILES:
                    break
        return files

    def experiment_id(self, name: str = "meta-minichess") -> str | None:
        """The MLflow experiment's id, read from the project's ``mlflow.db`` (sqlite, read-only); None if absent."""
        db = self.root / "mlflow.db"
        if not db.is_file():
            return None
        try:
            with sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True) as connection:
                row = connection.execute("SELECT experiment_id FROM experiments WHERE name = ?", (name,)).fetchone()
        except sqlite3.Error:
            return None
        return None if row is None else str(row[0])
