"""The starts of few-shot adaptation and their rules: what each adapts from, which have a budget-0 model, and which
comparisons answer the study's question.

A start is a model that adaptation begins from, named by a string that every file name, label, table cell and
run name uses (``str(start)`` is that name)::

    LEARNER      the network of a learner of the study (``mmc.meta.learners``: joat, multitask, metafocus, or one of
                 an installed package), made by its stage; a learner that declares no zero-shot model of its own
                 (MetaFocus) has no budget-0 model: with no games it is the learner it starts from
    expert-V     the AlphaZero champion of variant V (its own recipe, on one variant: a different kind of start)
    scratch      a freshly initialised network (the built-in learner ``scratch``, which plays no games)

Which starts exist is the learners' to say (:func:`mmc.meta.get_learner`, read when a rule needs one); this module
holds the rules that every start follows. An adapted model is a (start, budget) pair, named ``{start}-b{budget}``
(of one training replicate ``{start}-b{budget}-r{r}``, :func:`model_label`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from mmc.evaluation.comparison import Comparison
    from mmc.evaluation.rating import Ratings
    from mmc.meta.learners import Learner

__all__ = [
    "EXPERT_PREFIX",
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
    "title",
]

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
        from mmc.meta.learners import NAME

        expert = self.name.startswith(EXPERT_PREFIX) and len(self.name) > len(EXPERT_PREFIX)
        if not isinstance(self.name, str) or not (expert or NAME.fullmatch(self.name)):
            raise StartError(f"unknown start {self.name!r}")

    @classmethod
    def parse(cls, name: str | Start) -> Start:
        """The start named ``name`` (a :class:`Start` is returned as it is); :class:`StartError` if no start has that
        form (``expert-V`` or a learner's name: :func:`check_starts` checks that it exists)."""
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
    def learner(self) -> Learner | None:
        """The learner that makes it (``None`` for an expert); :class:`mmc.meta.LearnerError` if none is installed."""
        from mmc.meta.registry import get_learner

        return None if self.expert is not None else get_learner(self.name)

    @property
    def baseline(self) -> bool:
        """Whether it is a baseline the other starts are compared with (multitask, an expert, scratch)."""
        learner = self.learner
        return learner is None or learner.baseline

    @property
    def parent(self) -> Start | None:
        """The start whose network its learner starts from (MetaFocus: ``joat``), if any."""
        learner = self.learner
        return None if learner is None or learner.starts_from is None else Start(learner.starts_from)

    @property
    def zero_shot(self) -> bool:
        """Whether it has a budget-0 model of its own (MetaFocus: no, at budget 0 it is JOAT)."""
        learner = self.learner
        return learner is None or learner.zero_shot

    @property
    def adapts_from(self) -> Start:
        """The start whose budget-0 model is this one unadapted: itself, or the start its learner starts from for
        one with no zero-shot model of its own (``metafocus``: ``joat``)."""
        parent = self.parent
        return parent if parent is not None and not self.zero_shot else self

    def has_model(self, budget: int) -> bool:
        """Whether the start has an adapted model of its own with ``budget`` games (``metafocus``: budgets > 0)."""
        return budget > 0 or self.zero_shot


def title(start: Start | str) -> str:
    """How prose names a start: its learner's title (``JOAT``, ``MetaFocus``), else its name."""
    parsed = Start.parse(start)
    try:
        learner = parsed.learner
    except ValueError:  # a learner that is not installed here: its name
        return str(parsed)
    return str(parsed) if learner is None else learner.label


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


def known_starts(experts: Iterable[str], learners: Iterable[str]) -> list[str]:
    """Every start name the study knows, given its expert variants and learners, in the order error messages list
    them."""
    return [*(n for n in learners if n != SCRATCH), *(f"{EXPERT_PREFIX}{v}" for v in experts), SCRATCH]


def check_starts(
    starts: Sequence[str], experts: Iterable[str], budgets: Sequence[int], learners: Iterable[str]
) -> list[Start]:
    """The starts of ``starts`` (names), checked against the expert variants, the budgets and the study's learners;
    :class:`StartError` with a one-line message on the first problem (none, repeated, unknown, a learner without
    the one it starts from, or one with no zero-shot model without a budget > 0)."""
    known = known_starts(experts, learners)
    if not starts or len(set(starts)) < len(starts):
        raise StartError(f"must name distinct starting models, got {list(starts)}")
    for name in starts:
        if name not in known:
            raise StartError(f"unknown start {name!r} (known: {', '.join(known)})")
    parsed = [Start(name) for name in starts]
    for start in parsed:
        parent = start.parent
        if parent is not None and parent not in parsed:
            raise StartError(f"{start} needs {parent} among the starts (it starts from {parent}'s network)")
        if not start.zero_shot and not any(budget > 0 for budget in budgets):
            raise StartError(f"{start} needs a budget > 0 in adapt.budgets (at 0 it is {start.adapts_from})")
    return parsed


def adapted_models(starts: Sequence[Start | str], budgets: Sequence[int]) -> list[tuple[Start, int]]:
    """Every adapted model of a target as (start, budget), budget first, then the starts in order (no
    ``metafocus`` at budget 0: there it is JOAT's own budget-0 model)."""
    parsed = [Start.parse(s) for s in starts]
    return [(start, budget) for budget in budgets for start in parsed if start.has_model(budget)]


def comparisons(
    starts: Sequence[Start | str], budgets: Sequence[int]
) -> list[tuple[tuple[Start, int], tuple[Start, int]]]:
    """The paired comparisons that answer the study's question, as ((start, budget), (start, budget)) of the models
    ``a - b``, in this order: at every budget each contender (a learner's start that is no baseline and has a
    zero-shot model: JOAT, an installed meta-learner) against each start that has one, but a contender listed before
    it (that pair is there already) and its parent or child (theirs comes next); each start against the one it
    starts from (the seed's "JOAT2 vs JOAT1": MetaFocus - JOAT, budgets > 0 where it has no zero-shot model); and
    every start adapted against itself unadapted (with a budget 0; MetaFocus's is JOAT)."""
    parsed = [Start.parse(s) for s in starts]
    own = [s for s in parsed if s.zero_shot]
    contenders = [s for s in own if not s.baseline]
    pairs = [
        ((c, b), (s, b))
        for b in budgets
        for i, c in enumerate(contenders)
        for s in own
        if s != c and s not in contenders[:i] and c not in (s.parent, s) and s != c.parent
    ]
    pairs += [
        ((s, b), (parent, b))
        for s in parsed
        if (parent := s.parent) is not None and parent in parsed
        for b in budgets
        if s.has_model(b) and parent.has_model(b)
    ]
    if 0 in budgets:
        pairs += [((s, b), (s.adapts_from, 0)) for b in budgets if b > 0 for s in parsed]
    return pairs


def must_learn(a: Start, b: Start) -> tuple[Start, ...]:
    """The starts whose budget-0 models must beat scratch's for the comparison of ``a``'s and ``b``'s models to say
    anything of their training (``mmc.evaluation.comparison.UNINFORMATIVE`` otherwise): each start other than
    scratch, as the start it adapts from (MetaFocus: JOAT)."""
    return tuple(dict.fromkeys(s.adapts_from for s in (a, b) if not s.is_scratch))


def learning_verdict(
    a: Start, b: Start, comparison: Comparison, margins: Mapping[Start, Comparison]
) -> tuple[str, str]:
    """The verdict of the comparison of ``a``'s and ``b``'s models, and why: ``comparison``'s own verdict if every
    start of :func:`must_learn` learned (``mmc.evaluation.comparison.learned`` of its margin over scratch,
    :func:`scratch_margins`), else ``mmc.evaluation.comparison.UNINFORMATIVE``; the reason names each margin and its
    half-width (``joat +135 > 60; multitask +6 <= 58``; empty where ``margins`` has none of them)."""
    from mmc.evaluation.comparison import UNINFORMATIVE, learned

    checked = [(s, margins[s]) for s in must_learn(a, b) if s in margins]
    said = comparison.verdict if all(learned(m) for _, m in checked) else UNINFORMATIVE
    why = "; ".join(f"{s} {m.difference:+.0f} {'>' if learned(m) else '<='} {m.detectable:.0f}" for s, m in checked)
    return said, why


def scratch_margins(
    ratings: Ratings, starts: Sequence[Start | str], replicates: Sequence[int], rng: np.random.Generator
) -> dict[Start, Comparison]:
    """Each start's budget-0 model against scratch's, ``start - scratch`` paired by replicate
    (``mmc.evaluation.comparison.compare``), for every start with a budget-0 model of its own; empty when ``starts``
    has no scratch (nothing to tell learning from). ``mmc.evaluation.comparison.learned`` reads them."""
    from mmc.evaluation.comparison import compare  # numpy and scipy: only when the rating asks

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
