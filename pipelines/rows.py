"""Rows: a study's results on a frozen benchmark, with what anyone needs to check them.

A row (``python -m pipelines row``, run in a finished study's folder) is one JSON file: per target, each start's Elo at
budget 0 (zero-shot) and at the largest budget (adapted), the mean over the replicates with its 95 % interval, and each
start's difference to multitask and to scratch at both (paired by replicate, ``mmc.evaluation.comparison.compare``, with
its verdict and whether it holds). Around the numbers it carries what they came from: the benchmark and its hash
(``pipelines.benchmarks``), the hash of the study's definition, the code version (the package, the git commit of the
code when it is a checkout, and hashes of ``mmc/`` and ``pipelines/``), the CPU model, and the SHA-256 of every model
under ``models/`` and of every evaluation record under ``data/jobs/evaluate/`` (each match job's games ``.pgn`` and its
``.done.json`` less its seconds: a rerun on the same kind of CPU makes the same files, so the official row of a
benchmark checks a study anyone reran with the row's command).

The numbers are not copied from the study's tables: they are refitted from the recorded games (:func:`refit`: the
evaluate stage's own call, ``mmc.evaluation.evaluate.evaluate_and_rate``, with a runner that hands back each recorded
match and plays none), so the check (``python -m pipelines check-row ROW``) recomputes them the same way and compares.
The check then replays a sample of the recorded match jobs with the recorded models, and compares the games game by
game: exact on the kind of CPU that made the row with the code it names (``mmc/`` with the same hash); elsewhere
it says so and checks the records and the refit only. A row is refused in one line naming what differs: its
benchmark version, its definition, its code version (the commit it names does not hold the code it hashed), a model,
a game record, a number, a replayed game.

The official rows (the built-in learners on each benchmark) are files of this package, ``pipelines/frozen/rows/``;
each names the command that made it (:data:`ROW_COMMAND`).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import platform
import subprocess
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pipelines.benchmarks import FROZEN, Benchmark, check_study, definition_hash, get_benchmark
from pipelines.config import StudyConfig
from pipelines.files import sha256, tree_sha256
from pipelines.paths import Paths, code_root

__all__ = [
    "REPLAYS",
    "ROWS",
    "ROW_COMMAND",
    "RowError",
    "check_row",
    "code_version",
    "cpu_model",
    "make_row",
    "official_row",
    "refit",
    "target_numbers",
]

ROWS = FROZEN / "rows"
"""The official rows, ``{benchmark}.json``."""
ROWS_FOLDER = "pipelines/frozen/rows"
""":data:`ROWS` in the code's folder."""
ROW_FORMAT = 3
"""The row's layout and how its numbers and hashes are computed (2: the study's verdicts, ``uninformative``
included; 3: a job record's hash leaves out its seconds); the check refuses a row of another format."""
REPLAYS = 2
"""Recorded match jobs per target that the check replays unless told otherwise."""
ROW_COMMAND = (
    "python -m pipelines init DIR --benchmark {benchmark} && cd DIR && python -m pipelines study && "
    "python -m pipelines row"
)
"""How a row of a benchmark is made from nothing: a study anywhere (``pipelines.project``), run, then its row."""
NUMBER_TOLERANCE = 0.1
"""Elo a refitted number may differ from the row's: the row keeps one decimal."""


class RowError(ValueError):
    """A row that does not check out (or cannot be made); the message is one line naming what differs."""


def official_row(name: str) -> dict[str, Any] | None:
    """The committed official row of benchmark ``name``, if there is one."""
    path = ROWS / f"{name}.json"
    return dict(json.loads(path.read_text())) if path.is_file() else None


def _code_hashes(root: Path) -> dict[str, str]:
    """The hashes of ``mmc/`` and ``pipelines/`` under ``root`` (the code's folder, or a commit's copy of it): every
    file but caches and the official rows, which are committed after the code they name."""
    hashes = {}
    for package in ("mmc", "pipelines"):
        files = sorted(p.relative_to(root).as_posix() for p in (root / package).rglob("*") if p.is_file())
        hashes[package] = tree_sha256(root, [f for f in files if not f.startswith(f"{ROWS_FOLDER}/")])
    return hashes


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


def code_version() -> dict[str, Any]:
    """The code that runs here: the package's version, the git commit of the checkout it is installed from (``None``
    for an installed copy) and whether ``mmc/`` or ``pipelines/`` differ from it, and the hashes of both packages."""
    root = code_root()
    commit = _git(root, "rev-parse", "HEAD") if _git(root, "ls-files", "mmc/__init__.py") else ""
    modified = bool(commit and _git(root, "status", "--porcelain", "--untracked-files=no", "mmc", "pipelines"))
    try:
        version = importlib.metadata.version("meta-minichess")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return {"package": version, "commit": commit or None, "modified": modified, **_code_hashes(root)}


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``, as ``lscpu`` shows it), or the machine type where there is none."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def _models(paths: Paths) -> dict[str, str]:
    folder = paths.models
    files = (
        sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".pt", ".json")) if folder.is_dir() else []
    )
    return {paths.relative(p): sha256(p) for p in files}


def _games(paths: Paths, target: str) -> dict[str, str]:
    """``{file: SHA-256}`` of ``target``'s evaluation records: each match job's games (``.pgn``) and its record
    (``.done.json``) less the seconds it took, which a rerun of the same games does not repeat (:func:`_record_hash`).
    """
    folder = paths.jobs("evaluate", target)
    files = sorted(p for p in folder.iterdir() if p.name.endswith((".pgn", ".done.json"))) if folder.is_dir() else []
    return {paths.relative(p): sha256(p) if p.suffix == ".pgn" else _record_hash(p) for p in files}


def _record_hash(path: Path) -> str:
    """A SHA-256 of a job's ``.done.json`` as canonical JSON without its ``seconds``: its name, fingerprint, tallies
    and file hashes (unreadable JSON: the file's bytes)."""
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return sha256(path)
    if not isinstance(record, dict):
        return sha256(path)
    kept = {key: value for key, value in record.items() if key != "seconds"}
    return hashlib.sha256(json.dumps(kept, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _games_of(result: Any) -> list[Any]:
    """The game records of a match job's result: one match's, or each of a model's matches' in turn."""
    return [r for m in result for r in m.records] if isinstance(result, list) else list(result.records)


class _Recorded:
    """The runner of a refit: each match job's recorded result (``pipelines.jobs.JobStore.recorded``), none played;
    a job of ``replay`` is also played again here and its games compared with the recorded ones."""

    def __init__(self, paths: Paths, target: str, replay: int, seed: int) -> None:
        from pipelines.jobs import JobStore

        self.store = JobStore(paths.root, paths.jobs("evaluate", target), "")
        self.replay, self.random = replay, np.random.default_rng(seed)
        self.replayed: list[str] = []
        self.differ: list[str] = []

    def __call__(self, jobs: Sequence[Any]) -> list[Any]:
        from pipelines.jobs import compute

        results = []
        for job in jobs:
            kept = self.store.recorded(job)
            if kept is None:
                raise RowError(f"{self.store.folder.name}: the game record {job.name} is missing or its files do not "
                               "match its .done.json")  # fmt: skip
            results.append(kept)
        picked = self.random.permutation(len(jobs))[: max(0, self.replay - len(self.replayed))]
        for index in sorted(picked):
            job = jobs[index]
            played = compute(job, single_thread=True).value  # as the study's workers ran it
            self.replayed.append(job.name)
            if _games_of(played) != _games_of(results[index]):
                self.differ.append(job.name)
        return results


def refit(
    study: StudyConfig, paths: Paths, target: str, *, replay: int = 0, seed: int = 0
) -> tuple[Any, np.random.SeedSequence, list[str], list[str]]:
    """The ratings of ``target``'s models refitted from the recorded games of its evaluate stage: the stage's own
    call with its own inputs (``pipelines.evaluate.inputs``: the models under ``models/``), every match job handed back
    from its record. ``replay`` match jobs (drawn with ``seed``) are played again. The ratings
    (``mmc.evaluation.rating.Ratings``), the seed the stage drew its replicate bootstrap from, the replayed jobs and
    those whose games differ from the record."""
    from mmc.core.seeding import derive
    from mmc.evaluation.evaluate import evaluate_and_rate
    from pipelines.calls import keywords
    from pipelines.evaluate import inputs, rating_inputs

    given = inputs(study, paths, target)
    rating = rating_inputs(study, given.cells, target, given.seed)
    runner = _Recorded(paths, target, replay, seed)
    _, rated = evaluate_and_rate(**keywords(given), models=rating.models, anchors=rating.anchors,
                                 rate_config=rating.config, run=runner)  # fmt: skip
    return rated.ratings, derive(rating.seed, "replicates"), runner.replayed, runner.differ


def target_numbers(study: StudyConfig, ratings: Any, seed: np.random.SeedSequence) -> dict[str, Any]:
    """A row's numbers for a target: each start's mean Elo over the replicates at budget 0 and at the largest budget
    (where it has a model) with its 95 % interval, and the differences at those budgets (paired by replicate) with
    their intervals, verdicts (``uninformative`` where a start did not beat scratch, as the study says) and whether
    they hold: the study's comparisons (``pipelines.evaluate.comparisons``) and
    each start's difference to multitask and to scratch; one decimal. ``seed`` is the evaluate stage's (:func:`refit`):
    the means and the study's comparisons are drawn as the stage drew them, so they are its published numbers; the
    other differences come from a stream of their own."""
    from mmc.core.seeding import derive, rng
    from mmc.evaluation.comparison import replicate_summary
    from mmc.evaluation.starts import adapted_models, learning_verdict, model_label, scratch_margins
    from pipelines.evaluate import comparisons

    kept = {0, max(study.adapt.budgets)}
    models = adapted_models(study.adapt.starts, study.adapt.budgets)
    pairs = comparisons(study)
    baselines = [s for s, b in models if b == 0 and str(s) in ("multitask", "scratch")]
    own = {(a, b) for a, b in pairs}
    extra = [((s, b), (base, b)) for s, b in models for base in baselines
             if base != s and (base, b) in models and ((s, b), (base, b)) not in own]  # fmt: skip
    replicates = study.replicates

    def names(model: tuple[Any, int]) -> list[str]:
        return [model_label(*model, r) for r in replicates]

    groups, paired = [names(m) for m in models], [(names(a), names(b)) for a, b in pairs]
    means, differences = replicate_summary(ratings, groups, paired, rng(seed))
    _, more = replicate_summary(ratings, [], [(names(a), names(b)) for a, b in extra], rng(derive(seed, "row")))
    margins = scratch_margins(ratings, study.adapt.starts, replicates, rng(derive(seed, "learned")))  # the stage's
    elo = {model_label(*m): {"elo": round(e.value, 1), "low": round(e.low, 1), "high": round(e.high, 1)}
           for m, e in zip(models, means, strict=True) if m[1] in kept}  # fmt: skip
    compared = {
        f"{model_label(*a)} - {model_label(*b)}": {
            "difference": round(c.difference, 1), "low": round(c.low, 1), "high": round(c.high, 1),
            "verdict": learning_verdict(a[0], b[0], c, margins)[0], "holds": bool(c.holds),
        }
        for (a, b), c in zip([*pairs, *extra], [*differences, *more], strict=True)
        if a[1] in kept and b[1] in kept
    }  # fmt: skip
    return {"elo": elo, "differences": compared}


def make_row(paths: Paths, study: StudyConfig, benchmark: Benchmark | None, command: str) -> dict[str, Any]:
    """The row of the finished study at ``paths`` on ``benchmark`` (its params checked against it), or on its own
    definition (``None``: a study of one's own game, say): numbers refitted from its recorded games, with its
    provenance and hashes. :class:`RowError` if the code has uncommitted changes (a row names the code it ran) or a
    recorded game is missing."""
    if benchmark is not None and (contradiction := check_study(study.raw, benchmark)) is not None:
        raise RowError(f"params.yaml: {contradiction[0]}: {contradiction[1]}")
    code = code_version()
    if code["modified"]:
        raise RowError(f"{code_root()}: mmc/ or pipelines/ has uncommitted changes: commit them (a row names the code "
                       "it ran)")  # fmt: skip
    targets = {t: target_numbers(study, *refit(study, paths, t)[:2]) for t in study.targets}
    return {
        "format": ROW_FORMAT,
        "benchmark": None if benchmark is None else benchmark.name,
        "benchmark_hash": None if benchmark is None else benchmark.hash,
        "params_hash": definition_hash(study.raw),
        "learners": list(study.learners.names),
        "code": code,
        "cpu": cpu_model(),
        "machine": platform.machine(),
        "command": command,
        "targets": targets,
        "models": _models(paths),
        "games": {t: _games(paths, t) for t in study.targets},
    }


def _commit_hashes(commit: str) -> dict[str, str] | None:
    """The hashes of ``mmc/`` and ``pipelines/`` as commit ``commit`` of the code's checkout holds them, or ``None``
    where the checkout does not have that commit (an installed copy)."""
    root = code_root()
    known = subprocess.run(
        ["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=root, capture_output=True, check=False
    )
    if known.returncode != 0:
        return None
    with tempfile.TemporaryDirectory() as scratch:
        archive = Path(scratch) / "code.tar"
        # the whole tree: pipelines/template's links point at the project's dvc.yaml and report notebook
        subprocess.run(["git", "archive", "-o", str(archive), commit], cwd=root, check=True, capture_output=True)
        with tarfile.open(archive) as tar:
            tar.extractall(Path(scratch) / "code", filter="data")
        return _code_hashes(Path(scratch) / "code")


def _differs(a: Any, b: Any, where: str) -> str | None:
    """Where the numbers ``a`` (the row's) and ``b`` (refitted) differ by more than :data:`NUMBER_TOLERANCE`."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            if key not in a or key not in b:
                return f"{where}{key} is {'missing from the row' if key not in a else 'not refitted'}"
            if (found := _differs(a[key], b[key], f"{where}{key}: ")) is not None:
                return found
        return None
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or isinstance(b, str):
        return None if a == b else f"{where.rstrip(': ')} is {a!r} in the row, {b!r} refitted"
    return None if abs(float(a) - float(b)) <= NUMBER_TOLERANCE + 1e-9 else (
        f"{where.rstrip(': ')} is {a} in the row, {b} refitted from the recorded games")  # fmt: skip


def check_row(row: dict[str, Any], paths: Paths, study: StudyConfig, *, replays: int = REPLAYS) -> list[str]:
    """Check ``row`` against the study at ``paths`` (its ``params.yaml`` read into ``study``); :class:`RowError` naming
    the first thing that differs, else the notes of what was checked."""
    from pipelines.benchmarks import BenchmarkError

    if row.get("format") != ROW_FORMAT:
        raise RowError(f"the row is of format {row.get('format')}, this code checks format {ROW_FORMAT}: make it again "
                       "with `python -m pipelines row`")  # fmt: skip
    if row.get("benchmark") is not None:
        try:
            benchmark = get_benchmark(str(row["benchmark"]))
        except BenchmarkError as error:
            raise RowError(f"the row's benchmark: {error}") from None
        if row.get("benchmark_hash") != benchmark.hash:
            claimed = str(row.get("benchmark_hash"))[:12]
            raise RowError(f"the row claims {benchmark.name}, but was made on another definition of it (hash "
                           f"{claimed}, {benchmark.name} is {benchmark.hash[:12]})")  # fmt: skip
        if (contradiction := check_study(study.raw, benchmark)) is not None:
            raise RowError(f"params.yaml: {contradiction[0]}: {contradiction[1]}")
    if row.get("params_hash") != definition_hash(study.raw):
        raise RowError("the study's params.yaml is not the one the row was made with (its definition's hash differs)")
    notes = []
    code, here = row["code"], code_version()
    if code.get("commit"):
        held = _commit_hashes(code["commit"])
        if held is None:
            notes.append(f"the code version: commit {code['commit'][:12]} is not in this checkout; not checked")
        elif any(held[p] != code[p] for p in ("mmc", "pipelines")):
            package = next(p for p in ("mmc", "pipelines") if held[p] != code[p])
            raise RowError(f"the row's code is not commit {code['commit'][:12]}'s: its {package}/ differs")
        else:
            notes.append(f"the code version: commit {code['commit'][:12]} holds the code the row hashed")
    else:
        notes.append("the code version: the row was made from an installed copy (no commit): not checked")
    found = _models(paths)  # every model file, hashed once
    for name, digest in row["models"].items():
        if name not in found:
            raise RowError(f"model {name}: missing")
        if found[name] != digest:
            raise RowError(f"model {name}: differs from the row's (SHA-256 {found[name][:12]}, the row "
                           f"{digest[:12]})")  # fmt: skip
    if set(found) != set(row["models"]):
        raise RowError(f"models: {sorted(set(found) ^ set(row['models']))[0]} is in one of the study and the row "
                       "only")  # fmt: skip
    notes.append(f"{len(row['models'])} model files match")
    same_kind = row.get("cpu") == cpu_model() and code.get("mmc") == here["mmc"]
    for target in study.targets:
        games = _games(paths, target)
        for name, digest in row["games"].get(target, {}).items():
            if games.get(name) != digest:
                raise RowError(f"game record {name}: {'missing' if name not in games else 'differs from the row'}")
        if set(games) != set(row["games"].get(target, {})):
            raise RowError(f"game records of {target}: {sorted(set(games) ^ set(row['games'].get(target, {})))[0]} "
                           "is in one of the study and the row only")  # fmt: skip
        ratings, seed, replayed, differ = refit(study, paths, target, replay=replays if same_kind else 0)
        if differ:
            raise RowError(f"{target}: replaying {differ[0]} with the recorded models gives other games than its "
                           "record")  # fmt: skip
        numbers = target_numbers(study, ratings, seed)
        if (differs := _differs(row["targets"].get(target, {}), numbers, f"{target}: ")) is not None:
            raise RowError(differs)
        notes.append(
            f"{target}: {len(games)} record files match; the Elo refitted from them is the row's"
            + (f"; {len(replayed)} match jobs replayed game by game: the same games" if replayed else "")
        )
    if not same_kind:
        why = (f"this CPU ({cpu_model()}) is not the row's ({row.get('cpu')})" if row.get("cpu") != cpu_model()
               else "this mmc/ is not the code that made the row")  # fmt: skip
        notes.append(f"no game replayed: {why}, so replays need not be exact; the records and the refit were checked")
    return notes
