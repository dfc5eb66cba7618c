"""The expert stage's files, generation by generation: what is done, what to redo, what to throw away.

The generation loop of the AlphaZero expert lives inside one DVC stage (DVC's graph is acyclic, the loop is
not), whose two output folders persist (``persist: true``): DVC leaves them in place when it reruns the
stage, and this module decides what in them is still good.

- ``fingerprint.json`` holds what the generations were made with (parameters except the number of
  generations, and a hash of the code that computes them). When it differs from the current one, both
  folders are emptied and the loop starts over; when only ``expert.generations`` changed, finished
  generations are kept and the loop continues (or extra ones are removed).
- A self-play chunk is done when its ``chunk_NN.json`` exists and the hashes it lists match the files.
- A generation is done when its ``gen_NNN.manifest.json`` exists and the hashes it lists match its files
  (chunks, candidate checkpoint, arena records). Every file is written atomically and the JSON last, so a
  run killed at any moment leaves finished units that check out and unfinished ones that do not.
- Generation ``g`` depends on every generation before it, so the first generation that is not done and
  everything after it is thrown away (its finished chunks are kept: their input, the champion of ``g - 1``,
  is unchanged).
"""

from __future__ import annotations

import json
import logging
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

from mmc.nn import PolicyValueNet, load_checkpoint, save_checkpoint
from mmc.nn.checkpoint import config_path
from mmc.play import GameRecord, MatchResult, write_records
from mmc.play.selfplay import SelfPlayResult
from mmc.train import Examples, load_examples, save_examples
from pipelines.files import checked_json, file_hashes, remove_temporaries, write_json
from pipelines.paths import Paths

__all__ = ["GenerationStore", "initial_network", "match_summary", "prepare_folders", "save_self_play"]

logger = logging.getLogger(__name__)


def match_summary(result: MatchResult) -> dict[str, Any]:
    """W/D/L from the first player's view, its score and Wilson 95 % interval, as JSON-ready numbers."""
    low, high = result.wilson_interval()
    return {
        "games": result.games,
        "wins": result.wins,
        "draws": result.draws,
        "losses": result.losses,
        "score": round(result.score, 6),
        "ci_low": round(low, 6),
        "ci_high": round(high, 6),
    }


def save_self_play(
    root: Path, result: SelfPlayResult, seconds: float, examples_path: Path, records_path: Path, done_path: Path
) -> dict[str, Any]:
    """Write one variant's self-play (examples, records), then its stats JSON listing their hashes (last: the
    marker that the unit is done, see :func:`pipelines.files.checked_json`); the stats."""
    (examples,) = result.examples  # one variant: one board size
    files = [save_examples(examples, examples_path), write_records(result.records, records_path)]
    outcomes = Counter(record.result for record in result.records)
    stats = {
        "games": len(result.records),
        "plies": result.plies,
        "examples": len(examples.value),
        "white_wins": outcomes["1-0"],
        "black_wins": outcomes["0-1"],
        "draws": outcomes["1/2-1/2"],
        "seconds": round(seconds, 3),
        "files": file_hashes(root, files),
    }
    write_json(done_path, stats)
    return stats


def prepare_folders(folders: tuple[Path, ...], path: Path, fingerprint: dict[str, Any], name: str) -> str:
    """Sweep the temporaries under ``folders``; empty them and write ``fingerprint`` to ``path`` unless ``path``
    already holds it. ``"new"``, ``"resumed"`` or ``"restarted"`` (files made with something else were removed)."""
    for folder in folders:
        remove_temporaries(folder)
    previous = json.loads(path.read_text()) if path.is_file() else None
    if previous == fingerprint:
        return "resumed"
    had_files = any(folder.exists() and any(folder.iterdir()) for folder in folders)
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
    write_json(path, fingerprint)
    if had_files:
        logger.warning("%s: parameters or code changed since its generations were made; starting over", name)
        return "restarted"
    return "new"


def initial_network(path: Path, make: Any) -> PolicyValueNet:
    """The network saved at ``path``, or ``make()`` saved there first."""
    if path.is_file() and config_path(path).is_file():
        return load_checkpoint(path)[0]
    net: PolicyValueNet = make()
    save_checkpoint(net, net.config, path)
    return net


class GenerationStore:
    """The persistent expert files of one variant (``data/selfplay/{v}``, ``models/expert/{v}``)."""

    def __init__(self, paths: Paths, variant: str) -> None:
        self.paths = paths
        self.variant = variant
        self.folders = (paths.selfplay_dir(variant), paths.models_dir(variant))

    # -- the whole stage ---------------------------------------------------------------------------------
    def prepare(self, fingerprint: dict[str, Any]) -> str:
        """Sweep temporaries; start over if ``fingerprint`` changed. ``"new"``, ``"resumed"`` or ``"restarted"``."""
        return prepare_folders(self.folders, self.paths.fingerprint(self.variant), fingerprint, self.variant)

    def initial(self, make: Any) -> PolicyValueNet:
        """The initial network: loaded if saved, else ``make()`` saved (generation 0's champion)."""
        return initial_network(self.paths.initial_model(self.variant), make)

    def finished(self) -> list[dict[str, Any]]:
        """The manifests of the generations that are done, in order; everything after them is thrown away."""
        done: list[dict[str, Any]] = []
        while (manifest := self._manifest(len(done))) is not None:
            done.append(manifest)
        self._discard_from(len(done))
        return done

    def keep(self, generations: int) -> None:
        """Remove the generations from ``generations`` on (``expert.generations`` was lowered)."""
        self._discard_from(generations, keep_chunks=False)

    def champion_path(self, manifests: list[dict[str, Any]]) -> Path:
        """The champion after the last of ``manifests`` (the initial network if there are none)."""
        if not manifests:
            return self.paths.initial_model(self.variant)
        return self.paths.root / manifests[-1]["champion"]

    # -- one generation ----------------------------------------------------------------------------------
    def chunk(self, generation: int, chunk: int) -> dict[str, Any] | None:
        """The stats of a finished self-play chunk, or ``None`` if it is not done (or does not check out)."""
        return self._checked(self.paths.chunk_done(self.variant, generation, chunk))

    def save_chunk(self, generation: int, chunk: int, result: SelfPlayResult, seconds: float) -> dict[str, Any]:
        """Write a chunk's examples and records, then its stats JSON (last: it marks the chunk done)."""
        self.paths.generation_dir(self.variant, generation).mkdir(parents=True, exist_ok=True)
        return save_self_play(
            self.paths.root,
            result,
            seconds,
            self.paths.chunk_examples(self.variant, generation, chunk),
            self.paths.chunk_records(self.variant, generation, chunk),
            self.paths.chunk_done(self.variant, generation, chunk),
        )

    def window(self, generation: int, window: int, chunks: int) -> list[list[Examples]]:
        """The examples of generations ``generation - window + 1 .. generation``, one list per generation."""
        first = max(0, generation - window + 1)
        return [
            [load_examples(self.paths.chunk_examples(self.variant, g, c)) for c in range(chunks)]
            for g in range(first, generation + 1)
        ]

    def save_candidate(self, generation: int, net: PolicyValueNet) -> Path:
        return save_checkpoint(net, net.config, self.paths.candidate(self.variant, generation))

    def save_arena(self, generation: int, records: list[GameRecord]) -> Path:
        self.paths.generation_dir(self.variant, generation).mkdir(parents=True, exist_ok=True)
        return write_records(records, self.paths.arena_records(self.variant, generation))

    def finish(self, generation: int, manifest: dict[str, Any], chunks: int) -> dict[str, Any]:
        """Write generation ``generation``'s manifest (last: it marks the generation done), listing its files."""
        files = [
            self.paths.candidate(self.variant, generation),
            config_path(self.paths.candidate(self.variant, generation)),
        ]
        for c in range(chunks):
            files += [
                self.paths.chunk_examples(self.variant, generation, c),
                self.paths.chunk_records(self.variant, generation, c),
                self.paths.chunk_done(self.variant, generation, c),
            ]
        if self.paths.arena_records(self.variant, generation).is_file():
            files.append(self.paths.arena_records(self.variant, generation))
        manifest = {**manifest, "files": self._hashes(files)}
        write_json(self.paths.manifest(self.variant, generation), manifest)
        return manifest

    # -- internals ---------------------------------------------------------------------------------------
    def _hashes(self, files: list[Path]) -> dict[str, str]:
        return file_hashes(self.paths.root, files)

    def _checked(self, path: Path) -> dict[str, Any] | None:
        """The JSON at ``path`` if it exists, parses and every file it lists has the listed hash."""
        return checked_json(self.paths.root, path)

    def _manifest(self, generation: int) -> dict[str, Any] | None:
        manifest = self._checked(self.paths.manifest(self.variant, generation))
        if manifest is not None and manifest.get("generation") != generation:
            return None
        return manifest

    def _discard_from(self, generation: int, *, keep_chunks: bool = True) -> None:
        """Delete generations ``generation`` and later; keep ``generation``'s finished chunks if ``keep_chunks``."""
        models = self.paths.models_dir(self.variant)
        for manifest in sorted(models.glob("gen_*.manifest.json")):
            index = int(manifest.name[4:7])
            if index >= generation:
                for path in (
                    manifest,
                    self.paths.candidate(self.variant, index),
                    config_path(self.paths.candidate(self.variant, index)),
                ):
                    path.unlink(missing_ok=True)
        for candidate in models.glob("gen_*.pt"):
            if int(candidate.name[4:7]) >= generation:
                candidate.unlink(missing_ok=True)
                config_path(candidate).unlink(missing_ok=True)
        for folder in sorted(self.paths.selfplay_dir(self.variant).glob("gen_*")):
            index = int(folder.name[4:])
            if index > generation or (index == generation and not keep_chunks):
                shutil.rmtree(folder)
            elif index == generation:
                self.paths.arena_records(self.variant, index).unlink(missing_ok=True)
