"""The study's records as dataclasses: one schema per JSON record and per CSV file, with the code to read and
write them.

- :class:`JobRecord`: a finished job (``data/jobs/{stage}/.../{job}.done.json``), written after the files it lists.
- CSV rows: :class:`LossRow` (``plots/losses/{v}.csv``), :class:`ArenaRow` (``plots/arena/{v}.csv``),
  :class:`TrainingLossRow` (``plots/learn/{k}-r{r}.csv``, ``data/report/losses.csv``), :class:`EvaluationRow`
  (``plots/evaluation/{t}.csv``, ``reports/evaluation.csv``), :class:`RatingRow` (``plots/ratings/{t}.csv``),
  :class:`ComparisonRow` (``plots/comparisons/{t}.csv``, built from the library's ``Comparison``).
  The header is the fields' names (a field's ``column`` metadata overrides one: ``player 1``), in field
  order (or a row type's ``COLUMNS``); :func:`write_rows` and :func:`read_rows` convert.
"""

from __future__ import annotations

import csv
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from mmc.evaluation.comparison import Comparison
from mmc.play import MatchResult
from pipelines.files import checked_json, write_csv, write_json

__all__ = [
    "ArenaRow",
    "ComparisonRow",
    "CurveRow",
    "EvaluationRow",
    "JobRecord",
    "LossRow",
    "MatchSummary",
    "MistakeRow",
    "RatingRow",
    "TrainingLossRow",
    "columns",
    "read_rows",
    "write_rows",
]

R = TypeVar("R")


@dataclass(frozen=True)
class JobRecord:
    """A finished job: what it was (name, fingerprint), what it made (``files`` with their SHA-256) and its
    numbers (``summary``: games and plies of self-play, per-epoch losses of training, W/D/L of a match)."""

    name: str
    result: str
    """``self-play``, ``trained``, ``match``, ``matches`` or ``mistakes``: how its files are read back."""
    fingerprint: str
    seconds: float
    summary: dict[str, Any]
    files: dict[str, str]

    def write(self, path: Path) -> Path:
        return write_json(path, dataclasses.asdict(self))

    @classmethod
    def read(cls, root: Path, path: Path) -> JobRecord | None:
        """The record at ``path`` if it parses and every file it lists has its hash; else ``None`` (redo it)."""
        data = checked_json(root, path)
        if data is None:
            return None
        try:
            return cls(**data)
        except TypeError:
            return None


@dataclass(frozen=True)
class MatchSummary:
    """W/D/L from the first player's view, its score and Wilson 95 % interval."""

    games: int
    wins: int
    draws: int
    losses: int
    score: float
    ci_low: float
    ci_high: float

    @classmethod
    def of(cls, result: MatchResult) -> MatchSummary:
        low, high = result.wilson_interval()
        return cls(result.games, result.wins, result.draws, result.losses, round(result.score, 6), round(low, 6),
                   round(high, 6))  # fmt: skip


@dataclass(frozen=True)
class LossRow:
    """An expert generation's training: the last epoch's losses (``plots/losses/{v}.csv``)."""

    generation: int
    policy: float
    value: float
    total: float
    examples: int


@dataclass(frozen=True)
class ArenaRow:
    """An expert generation's gate (``plots/arena/{v}.csv``)."""

    generation: int
    score: float
    ci_low: float
    ci_high: float
    wins: int
    draws: int
    losses: int
    accepted: int


@dataclass(frozen=True)
class TrainingLossRow:
    """One training run's last epoch, for the report (``plots/learn/{k}-r{r}.csv``, ``data/report/losses.csv``):
    series a learner's name (``joat``, ``multitask``) or ``expert-{v}``, stage what trained (``mmc.meta.LossPoint``:
    ``inner``/``meta_train``/``multitask``, or ``expert``)."""

    series: str
    replicate: int
    stage: str
    variant: str
    generation: int
    policy: float
    value: float
    total: float


@dataclass(frozen=True)
class EvaluationRow:
    """One evaluation cell in the seed's table format (``plots/evaluation/{t}.csv``, ``reports/evaluation.csv``)."""

    game: str
    start: str
    budget: int
    replicate: int
    player_1: str = field(metadata={"column": "player 1"})
    player_2: str = field(metadata={"column": "player 2"})
    wins: int
    draws: int
    losses: int
    games: int
    score: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class RatingRow:
    """A player's Elo in one target (``plots/ratings/{t}.csv``): ``kind`` ``model`` (``start``, ``budget``,
    ``replicate``) or ``anchor`` (``start`` empty, ``budget`` and ``replicate`` -1); ``elo``, ``low``, ``high`` in
    Elo points, greedy at 0, the interval over games."""

    game: str
    player: str
    kind: str
    start: str
    budget: int
    replicate: int
    elo: float
    low: float
    high: float
    games: int


@dataclass(frozen=True)
class MistakeRow:
    """A model's mistake rate on its target's solver-labelled suite (``plots/mistakes/{t}.csv``,
    ``mmc.evaluation.mistakes``): the share of the suite's positions where its move (the evaluation's search)
    changes the position's value, with Wilson's 95 % interval, over all positions and over the critical ones, beside
    its Elo (``plots/ratings/{t}.csv``)."""

    game: str
    suite: str
    player: str
    start: str
    budget: int
    replicate: int
    positions: int
    mistakes: int
    rate: float
    low: float
    high: float
    critical_positions: int
    critical_mistakes: int
    critical_rate: float
    critical_low: float
    critical_high: float
    illegal: int
    elo: float


@dataclass(frozen=True)
class CurveRow:
    """A start's strength after adaptation with ``budget`` games in one target (``plots/curves/{t}.csv``): the mean
    Elo of its replicates' models with the 95 % interval over games and replicates
    (``mmc.evaluation.comparison.replicated``), and ``spread``, the standard deviation between the replicates."""

    game: str
    start: str
    budget: int
    elo: float
    low: float
    high: float
    replicates: int
    spread: float


_COMPARED = [f.name for f in dataclasses.fields(Comparison)]
_INTERVAL = _COMPARED.index("spread") + 1  # the fields of the first comparisons the study made


@dataclass(frozen=True, kw_only=True)
class ComparisonRow(Comparison):
    """A paired comparison in one target (``plots/comparisons/{t}.csv``): the library's comparison of ``a - b``
    (``mmc.evaluation.comparison.Comparison``: the mean over replicates of each replicate's difference in Elo points,
    with its 95 % interval over games and replicates, the smallest difference the run could have detected (its
    half-width), the replicates' spread, the probability of improvement, the interquartile mean and whether the verdict
    holds), its numbers rounded (:meth:`of`), in target ``game`` at ``budget``; its verdict is ``uninformative`` where a
    start did not beat scratch at budget 0 (``learned``)."""

    COLUMNS: ClassVar[tuple[str, ...]] = ("game", "budget", "a", "b", *_COMPARED[:_INTERVAL], "learned",
                                          *_COMPARED[_INTERVAL:])  # fmt: skip
    """The CSV's columns, in the order the study has always written them."""

    game: str
    budget: int
    a: str
    b: str
    learned: str = ""
    """Whether the starts learned, the reason for an ``uninformative`` verdict: each start's budget-0 margin over
    scratch and that margin's half-width (``joat +135 > 60; multitask +6 <= 58``); empty where no scratch was rated
    at budget 0 (``mmc.evaluation.starts.scratch_margins``)."""

    @classmethod
    def of(
        cls, comparison: Comparison, *, game: str, budget: int, a: str, b: str, verdict: str, learned: str
    ) -> ComparisonRow:
        """The row of ``comparison`` with ``verdict`` (its own, or ``uninformative``: ``learned`` says why), its
        Elo numbers rounded to 0.1 and its probability of improvement to 0.001."""
        c = comparison
        iqm = None if c.iqm is None else round(c.iqm, 1)
        return cls(round(c.difference, 1), round(c.low, 1), round(c.high, 1), verdict, round(c.detectable, 1),
                   c.replicates, round(c.spread, 1), round(c.improvement, 3), iqm, c.holds, game=game, budget=budget,
                   a=a, b=b, learned=learned)  # fmt: skip


def columns(cls: type[Any]) -> list[str]:
    """The CSV header of row type ``cls``: its fields in order (in the order of its ``COLUMNS`` where it has one)."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    order = getattr(cls, "COLUMNS", fields)
    return [fields[name].metadata.get("column", name) for name in order]


def write_rows(path: Path, cls: type[Any], rows: Iterable[Any]) -> Path:
    """``rows`` (instances of ``cls``) as CSV with ``cls``'s header, atomically."""
    names = {f.name: f.metadata.get("column", f.name) for f in dataclasses.fields(cls)}
    return write_csv(path, columns(cls), ({names[k]: v for k, v in dataclasses.asdict(row).items()} for row in rows))


def read_rows(path: Path, cls: type[R]) -> list[R]:
    """The rows of a CSV written by :func:`write_rows` for ``cls``, typed; ``ValueError`` naming the file if its
    header is not ``cls``'s."""
    with open(path, newline="") as file:
        reader = csv.DictReader(file)
        if reader.fieldnames != columns(cls):
            raise ValueError(f"{path}: header {reader.fieldnames} is not {columns(cls)}")
        fields = dataclasses.fields(cls)  # type: ignore[arg-type]
        return [
            cls(**{f.name: _typed(row[f.metadata.get("column", f.name)], f.type) for f in fields}) for row in reader
        ]


def _typed(text: str, annotation: Any) -> Any:
    kind = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "str")
    if kind == "float | None":
        return None if text == "" else float(text)
    if kind == "bool":
        if text not in ("True", "False"):
            raise ValueError(f"expected True or False, got {text!r}")
        return text == "True"
    return {"int": int, "float": float}.get(kind, str)(text)
