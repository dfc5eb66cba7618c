"""Trained opponents out of the box: the baseline networks shipped with the package, ``baseline:NAME`` as a player.

Each baseline is a network file in ``mmc/play/baseline_models/`` (``chess-v1.pt`` and its ``.json`` config) named in the
manifest ``baselines.json`` with its SHA-256, the variant it is meant for, and how it was trained (the command, its
generations, games, minutes and CPU: ``benchmarks/baselines.py`` makes and pins them). One file may serve several
names: the chess family's network is ``gardner-v1`` and ``los_alamos-v1``. A name never changes its file; a
retrained network is a new version (``gardner-v2``).

Every load checks the files (the weights and their config) against the manifest's hashes: a corrupted or replaced
file is refused in one line, as is an unknown name (the line lists the shipped ones). The player is the network
with the study's evaluation search (PUCT, 24 simulations a move: ``sims=N`` changes it); ``baseline`` alone is the
baseline meant for the variant played.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from mmc.games import get_game, get_variant

__all__ = [
    "BASELINE_USAGE",
    "DEFAULT_SIMULATIONS",
    "FOLDER",
    "MANIFEST",
    "Baseline",
    "BaselineError",
    "baseline_for",
    "baseline_path",
    "checked_path",
    "get_baseline",
    "list_baselines",
    "manifest",
    "sha256",
]

FOLDER = Path(__file__).resolve().parent / "baseline_models"
"""Where the shipped files are (package data)."""
MANIFEST = FOLDER / "baselines.json"
"""Name -> the file, its SHA-256, the variant it is meant for and its training."""
DEFAULT_SIMULATIONS = 24
"""The study's evaluation search (``params.yaml``: ``evaluate.search.simulations``)."""
BASELINE_USAGE = "baseline[:NAME][:sims=N]"
"""The spec: ``baseline`` (the one meant for the variant played), ``baseline:gardner-v1``,
``baseline:connect4-v1:sims=200``."""


class BaselineError(ValueError):
    """An unknown baseline, a variant without one, or a file that does not match its hash; one line."""


@dataclass(frozen=True)
class Baseline:
    """One shipped baseline (an entry of the manifest)."""

    name: str
    variant: str
    """The variant it was trained for (its network plays the whole family)."""
    file: str
    sha256: str
    info: dict[str, Any]
    """The rest of its manifest entry: the training command, generations, games, minutes, CPU, variants trained on."""
    folder: Path = FOLDER

    @property
    def path(self) -> Path:
        return self.folder / self.file

    @property
    def family(self) -> str:
        return get_game(self.variant).name


def manifest(folder: Path = FOLDER) -> dict[str, dict[str, Any]]:
    """The manifest of ``folder`` (the package's: the shipped baselines) as it is on disk (name -> entry); empty when
    there is none."""
    path = folder / MANIFEST.name
    if not path.exists():
        return {}
    data: dict[str, dict[str, Any]] = json.loads(path.read_text())
    return data


def list_baselines(folder: Path = FOLDER) -> dict[str, Baseline]:
    """Every baseline of ``folder`` (default: the shipped ones), by name, in name order."""
    found = {}
    for name, entry in sorted(manifest(folder).items()):
        rest = {key: value for key, value in entry.items() if key not in ("variant", "file", "sha256")}
        found[name] = Baseline(name, entry["variant"], entry["file"], entry["sha256"], rest, folder)
    return found


def sha256(path: Path) -> str:
    """The file's SHA-256, hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def get_baseline(name: str, folder: Path = FOLDER) -> Baseline:
    """The shipped baseline ``name`` (of ``folder``); :class:`BaselineError` listing the shipped ones otherwise."""
    known = list_baselines(folder)
    if name not in known:
        raise BaselineError(f"unknown baseline {name!r} (shipped: {', '.join(known) or 'none'})")
    return known[name]


def baseline_for(variant: str) -> Baseline | None:
    """The baseline meant for ``variant`` (its newest version), if one is shipped."""
    name = get_variant(variant).name
    meant = [baseline for baseline in list_baselines().values() if baseline.variant == name]
    return max(meant, key=lambda baseline: _version(baseline.name)) if meant else None


def _version(name: str) -> int:
    _, _, version = name.rpartition("-v")
    return int(version) if version.isdigit() else 0


@cache
def _checked(path: Path, size: int, mtime: int, expected: str) -> bool:
    return sha256(path) == expected


def baseline_path(name: str, folder: Path = FOLDER) -> Path:
    """The network file of baseline ``name`` (of ``folder``, default the package's), checked against the manifest's
    SHA-256: :class:`BaselineError` in one line for an unknown name, a missing file or one whose hash does not
    match."""
    return checked_path(get_baseline(name, folder))


def checked_path(baseline: Baseline) -> Path:
    """:attr:`Baseline.path`, its weights and their config checked against the manifest's SHA-256s (each file hashed
    once per change): :class:`BaselineError` in one line for a missing file or one whose hash does not match."""
    path = baseline.path
    config = path.with_suffix(".json")
    for file, expected in ((path, baseline.sha256), (config, baseline.info.get("config_sha256", ""))):
        if not file.is_file():
            raise BaselineError(f"baseline {baseline.name!r}: its file {file} is missing (reinstall mmc)")
        stat = file.stat()
        if not _checked(file, stat.st_size, stat.st_mtime_ns, expected):
            raise BaselineError(
                f"baseline {baseline.name!r}: its file {file} is corrupted (its SHA-256 is {sha256(file)[:16]}...,"
                f" the manifest's {expected[:16]}...): reinstall mmc"
            )
    return path


def parse_baseline(fields: list[str], variant: str) -> tuple[Baseline, int]:
    """The baseline and simulations a ``baseline[:NAME][:sims=N]`` spec's fields name, for playing ``variant``:
    :class:`BaselineError` (one line) for an unknown name, no baseline for the variant, bad options or a network of
    another family."""
    spec = ":".join(["baseline", *fields])
    name = fields[0] if fields and "=" not in fields[0] else None
    options = fields[1:] if name is not None else fields
    sims = DEFAULT_SIMULATIONS
    for option in options:
        key, sep, value = option.partition("=")
        if key != "sims" or not sep or not value.isdigit() or not 1 <= int(value) <= 10_000:
            raise BaselineError(f"player {spec!r}: expected {BASELINE_USAGE} with sims from 1 to 10000")
        sims = int(value)
    if name is None:
        found = baseline_for(variant)
        if found is None:
            shipped = ", ".join(list_baselines()) or "none"
            raise BaselineError(f"player {spec!r}: no baseline is shipped for {variant} (shipped: {shipped})")
        return found, sims
    baseline = get_baseline(name)
    family = get_game(variant).name
    if baseline.family != family:
        raise BaselineError(f"player {spec!r}: {name} is a {baseline.family} network and cannot play {variant}")
    return baseline, sims
