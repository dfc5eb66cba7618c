"""The starts of few-shot adaptation and their rules: what each adapts from, which have a budget-0 model, and which
comparisons answer the study's question.

A start is a model that adaptation begins from, named by a string that every file name, label, table cell and
run name uses (``str(start)`` is that name)::

    joat         the JOAT network (first-order Reptile over the meta-training variants, mmc.meta.joat)
    multitask    the multitask baseline (pooled training on the same variants and budget)
    metafocus    JOAT adapted with the channel mask its MetaFocus meta-model gives the target (mmc.meta.metafocus):
                 it adapts JOAT's network and has no budget-0 model of its own (with no games it is JOAT, so its
                 unadapted model is JOAT's budget-0 model)
    expert-V     the AlphaZero champion of variant V
    scratch      a freshly initialised network

An adapted model is a (start, budget) pair, named ``{start}-b{budget}`` (of one training replicate
``{start}-b{budget}-r{r}``, :func:`model_label`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from mmc.rating import Comparison, Ratings

__all__ = [
    "EXPERT_PREFIX",
    "JOAT",
    "METAFOCUS",
    "META_STARTS",
    "MULTITASK",
    "SCRATCH",
    "Start",
    "StartError",
    "adapted_models",
    "check_starts",
    "comparisons",
    "known_starts",
    "learning_verdict",
    "model_label",
    "must_learn",
    "parse_model_label",
    "scratch_margins",
]

JOAT = "joat"
"""The JOAT network (stage ``meta_train``)."""
MULTITASK = "multitask"
"""The multitask baseline (stage ``multitask``)."""
META_STARTS = (JOAT, MULTITASK)
"""Starts made by the meta stages (``meta_train`` and ``multitask``)."""
METAFOCUS = "metafocus"
"""JOAT adapted with the channel mask its MetaFocus meta-model gives the target (stage ``metafocus``); it needs the
``joat`` start, and has no budget-0 model (with no games to adapt on it is JOAT)."""
SCRATCH = "scratch"
"""A freshly initialised network."""
EXPERT_PREFIX = "expert-"
"""``expert-V``: the AlphaZero champion of variant ``V``."""


class StartError(ValueError):
    """A start name, or a list of starts, that the study cannot adapt; the message says why."""


@dataclass(frozen=True)
class Start:
    """A start of adaptation, by its name (``str(start)``); :meth:`parse` checks the name's form."""

    name: str

    def __post_init__(self) -> None:
        if self.name not in (*META_STARTS, METAFOCUS, SCRATCH) and not (
            self.name.startswith(EXPERT_PREFIX) and len(self.name) > len(EXPERT_PREFIX)
        ):
            raise StartError(f"unknown start {self.name!r}")

    @classmethod
    def parse(cls, name: str | Start) -> Start:
        """The start named ``name`` (a :class:`Start` is returned as it is); :class:`StartError` if no start has that
        form (``expert-V`` for any ``V``: :func:`check_starts` checks the variant)."""
        return name if isinstance(name, Start) else cls(name)

    def __str__(self) -> str:
        return self.name

    @property
    def expert(self) -> str | None:
        """The variant ``V`` of ``expert-V``; ``None`` for any other start."""
        return self.name.removeprefix(EXPERT_PREFIX) if self.name.startswith(EXPERT_PREFIX) else None

    @property
    def is_scratch(self) -> bool:
        """Whether the start is a freshly initialised network (no checkpoint)."""
        return self.name == SCRATCH

    @property
    def masked(self) -> bool:
        """Whether it adapts with a MetaFocus channel mask (``metafocus``)."""
        return self.name == METAFOCUS

    @property
    def adapts_from(self) -> Start:
        """The start whose network this one adapts, and whose budget-0 model is this one unadapted: itself, or
        ``joat`` for ``metafocus``."""
        return Start(JOAT) if self.masked else self

    def has_model(self, budget: int) -> bool:
        """Whether the start has an adapted model of its own with ``budget`` games (``metafocus``: budgets > 0)."""
        return budget > 0 or not self.masked


def model_label(start: Start | str, budget: int, replicate: int | None = None) -> str:
    """An adapted model's name in tables, records and job names: ``joat-b100``, of one replicate ``joat-b100-r0``."""
    return f"{start}-b{budget}" + (f"-r{replicate}" if replicate is not None else "")


def parse_model_label(label: str) -> tuple[str, int]:
    """The start and budget of a model's name without its replicate (:func:`model_label`'s ``joat-b100`` ->
    ``("joat", 100)``); ``ValueError`` naming the label if it has no ``-bBUDGET`` ending."""
    start, _, budget = label.rpartition("-b")
    if not start or not budget.isdigit():
        raise ValueError(f"not a model name of the form START-bBUDGET: {label!r}")
    return start, int(budget)


def known_starts(experts: Iterable[str]) -> list[str]:
    """Every start name the study knows, given its expert variants, in the order error messages list them."""
    return [*META_STARTS, METAFOCUS, *(f"{EXPERT_PREFIX}{v}" for v in experts), SCRATCH]


def check_starts(starts: Sequence[str], experts: Iterable[str], budgets: Sequence[int]) -> list[Start]:
    """The starts of ``starts`` (names), checked against the expert variants and the budgets; :class:`StartError`
    with a one-line message on the first problem (none, repeated, unknown, metafocus without joat or without a
    budget > 0)."""
    known = known_starts(experts)
    if not starts or len(set(starts)) < len(starts):
        raise StartError(f"must name distinct starting models, got {list(starts)}")
    for name in starts:
        if name not in known:
            raise StartError(f"unknown start {name!r} (known: {', '.join(known)})")
    if METAFOCUS in starts and JOAT not in starts:
        raise StartError("metafocus needs joat among the starts (it is JOAT adapted with a mask)")
    if METAFOCUS in starts and not any(budget > 0 for budget in budgets):
        raise StartError("metafocus needs a budget > 0 in adapt.budgets (at 0 it is JOAT)")
    return [Start(name) for name in starts]


def adapted_models(starts: Sequence[Start | str], budgets: Sequence[int]) -> list[tuple[Start, int]]:
    """Every adapted model of a target as (start, budget), budget first, then the starts in order (no
    ``metafocus`` at budget 0: there it is JOAT's own budget-0 model)."""
    parsed = [Start.parse(s) for s in starts]
    return [(start, budget) for budget in budgets for start in parsed if start.has_model(budget)]


def comparisons(
    starts: Sequence[Start | str], budgets: Sequence[int]
) -> list[tuple[tuple[Start, int], tuple[Start, int]]]:
    """The paired comparisons that answer the study's question, as ((start, budget), (start, budget)) of the models
    ``a - b``, in this order: at every budget JOAT against each other start, MetaFocus against JOAT (the seed's
    "JOAT2 vs JOAT1", budgets > 0), and every start adapted against itself unadapted (with a budget 0; MetaFocus's
    is JOAT)."""
    parsed = [Start.parse(s) for s in starts]
    joat, metafocus = Start(JOAT), Start(METAFOCUS)
    others = [s for s in parsed if s not in (joat, metafocus)]
    pairs = [((joat, b), (s, b)) for b in budgets for s in others if joat in parsed]
    pairs += [((metafocus, b), (joat, b)) for b in budgets if b > 0 and metafocus in parsed]
    if 0 in budgets:
        pairs += [((s, b), (s.adapts_from, 0)) for b in budgets if b > 0 for s in parsed]
    return pairs


def must_learn(a: Start, b: Start) -> tuple[Start, ...]:
    """The starts whose budget-0 models must beat scratch's for the comparison of ``a``'s and ``b``'s models to say
    anything of their training (``mmc.rating.UNINFORMATIVE`` otherwise): each start other than scratch, as the
    start it adapts from (MetaFocus: JOAT)."""
    return tuple(dict.fromkeys(s.adapts_from for s in (a, b) if not s.is_scratch))


def learning_verdict(
    a: Start, b: Start, comparison: Comparison, margins: Mapping[Start, Comparison]
) -> tuple[str, str]:
    """The verdict of the comparison of ``a``'s and ``b``'s models, and why: ``comparison``'s own verdict if every
    start of :func:`must_learn` learned (``mmc.rating.learned`` of its margin over scratch, :func:`scratch_margins`),
    else ``mmc.rating.UNINFORMATIVE``; the reason names each margin and its half-width (``joat +135 > 60;
    multitask +6 <= 58``; empty where ``margins`` has none of them)."""
    from mmc.rating import UNINFORMATIVE, learned

    checked = [(s, margins[s]) for s in must_learn(a, b) if s in margins]
    said = comparison.verdict if all(learned(m) for _, m in checked) else UNINFORMATIVE
    why = "; ".join(f"{s} {m.difference:+.0f} {'>' if learned(m) else '<='} {m.detectable:.0f}" for s, m in checked)
    return said, why


def scratch_margins(
    ratings: Ratings, starts: Sequence[Start | str], replicates: Sequence[int], rng: np.random.Generator
) -> dict[Start, Comparison]:
    """Each start's budget-0 model against scratch's, ``start - scratch`` paired by replicate
    (``mmc.rating.compare``), for every start with a budget-0 model of its own; empty when ``starts`` has no scratch
    (nothing to tell learning from). ``mmc.rating.learned`` reads them."""
    from mmc.rating import compare  # numpy and scipy: only when the rating asks

    parsed = [Start.parse(s) for s in starts]
    scratch = Start(SCRATCH)
    if scratch not in parsed:
        return {}
    base = [model_label(scratch, 0, r) for r in replicates]
    return {
        s: compare(ratings, [model_label(s, 0, r) for r in replicates], base, rng)
        for s in parsed
        if not s.is_scratch and s.has_model(0)
    }
