"""The study's answer at a glance: the verdict table of the paired comparisons (a cell per comparison, target and
stage: zero-shot and adapted), with its headline sentences and the sentence on the instrument's resolution
(:func:`verdict_summary`); the report shows it first (``mmc.evaluation.analysis`` re-exports it for the notebook).
"""

from __future__ import annotations

import html
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mmc.evaluation.comparison import BETTER, NO_DIFFERENCE, UNINFORMATIVE, VERDICTS, WORSE, Comparison
from mmc.evaluation.starts import parse_model_label
from mmc.evaluation.starts import title as start_title

__all__ = [
    "ADAPTED",
    "FRAGILE",
    "FRAGILE_NOTE",
    "UNINFORMATIVE_NOTE",
    "VERDICT_COLOURS",
    "ZERO_SHOT",
    "Verdicts",
    "verdict_summary",
]

ZERO_SHOT = "zero-shot"
"""The stage of a comparison at budget 0: each start as it is, never trained on the target."""
ADAPTED = "adapted"
"""The stage of a comparison at the largest budget."""
VERDICT_COLOURS = {BETTER: "#b7e1b0", WORSE: "#f2b8b0", NO_DIFFERENCE: "#e6e6e6", UNINFORMATIVE: "#f6efd2"}
"""The background of a verdict table cell, by verdict (:data:`mmc.evaluation.comparison.VERDICTS`)."""
_MARKS = {BETTER: "▲ ", WORSE: "▼ ", NO_DIFFERENCE: "", UNINFORMATIVE: "? "}  # the verdict without colour
UNINFORMATIVE_NOTE = (
    "A comparison is uninformative where one of its starts did not beat scratch (a freshly initialised network with "
    "the same search) at budget 0 by more than the smallest difference that comparison detects: those starts learned "
    "too little for their difference to say anything of how they were trained."
)
"""The headlines' last line but one when a cell is :data:`mmc.evaluation.comparison.UNINFORMATIVE`."""
FRAGILE = "fragile"
"""The label of a verdict that does not hold (:func:`mmc.evaluation.comparison.holds`);
:data:`mmc.evaluation.comparison.UNINFORMATIVE` wins."""
FRAGILE_NOTE = (
    "A verdict is fragile where a rerun would repeat it with probability below 0.8 (its interval leaves out 0 by too "
    "little) or leaving out any one training replicate (with two, taking each replicate alone) would not give it: the "
    "run checks every verdict so on the games it played, no game more. Such verdicts are the ones that flip when "
    "meta-training stops a generation earlier or later (BENCHMARKS.md, issue 61); read them as a direction to confirm "
    "with more replicates, not a finding."
)
"""The headlines' last line when a verdict is :data:`FRAGILE`."""


@dataclass(frozen=True)
class Verdicts:
    """The study's answer at a glance (:func:`verdict_summary`): a cell per (comparison, target, stage), with the
    headline sentences (one per comparison) and the sentence on the instrument's resolution."""

    comparisons: tuple[str, ...]
    """The rows: each comparison's label (``JOAT - multitask``, ``JOAT adapted - unadapted``), in study order."""
    targets: tuple[str, ...]
    held_out: tuple[str, ...]
    stages: tuple[tuple[str, int], ...]
    """``(ZERO_SHOT, 0)`` and ``(ADAPTED, largest budget)``, those the rows have."""
    cells: Mapping[tuple[str, str, str], Comparison]
    """Keyed by (comparison, target, stage); a missing key is a comparison not made there."""
    headlines: tuple[str, ...]
    resolution: str

    def to_html(self) -> str:
        """The verdict table as an HTML fragment with inline styles (no stylesheet, no script), and its legend."""
        if not self.stages:
            return "<p>No comparisons were made.</p>"
        edge = "border: 1px solid #999; padding: 3px 8px"
        heads = "".join(
            f'<th colspan="{len(self.stages)}" style="{edge}; text-align: center">{html.escape(t)}'
            + (" (held out)" if t in self.held_out else "") + "</th>"
            for t in self.targets
        )  # fmt: skip
        stages = "".join(
            f'<th style="{edge}; text-align: center">{stage}' + (f" ({budget} games)" if budget else "") + "</th>"
            for _ in self.targets for stage, budget in self.stages
        )  # fmt: skip
        rows = []
        for comparison in self.comparisons:
            cells = [self.cells.get((comparison, t, stage)) for t in self.targets for stage, _ in self.stages]
            row = "".join(_cell_html(cell, edge) for cell in cells)
            rows.append(f'<tr><th style="{edge}; text-align: left">{html.escape(comparison)}</th>{row}</tr>')
        legend = " ".join(
            f'<span style="background: {VERDICT_COLOURS[v]}; padding: 1px 6px">{_MARKS[v]}{v}</span>' for v in VERDICTS
        )
        return (
            '<table class="verdict-table" style="border-collapse: collapse; font-size: 13px">'
            f'<thead><tr><th rowspan="2" style="{edge}">a - b (Elo)</th>{heads}</tr><tr>{stages}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
            f'<p style="font-size: 12px">Each cell: the mean difference in Elo points over the training replicates, '
            f"below it its 95 % interval, then the probability of improvement P(a&gt;b) (how often a replicate of a is "
            f"rated above one of b; 0.5: no tendency) and, from 5 replicates, the interquartile mean (IQM) of the "
            f"replicates' differences; {legend}; <b>{FRAGILE}</b> (striped): a verdict a rerun would repeat with "
            f"probability below 0.8, or that leaving out any one replicate would not give; - not compared.</p>"
        )


def verdict_summary(
    rows: Iterable[Mapping[str, Any]], *, targets: Sequence[str] = (), held_out: Sequence[str] = ()
) -> Verdicts:
    """The verdict table of the paired comparisons ``rows`` (``plots/comparisons/`` rows: ``game``, ``a``, ``b``
    (``START-bBUDGET``), ``difference``, ``low``, ``high``, ``verdict``, ``detectable``, ``replicates``), zero-shot
    (budget 0) and adapted (the largest budget), in ``targets`` order (those of the rows follow any not listed),
    ``held_out`` ones marked; the verdicts are the rows' (:func:`mmc.evaluation.comparison.verdict`). ``ValueError``
    naming the row (or the model name) if a verdict is unknown, a model name malformed, or a cell given twice."""
    rows = list(rows)
    targets = tuple(dict.fromkeys([*targets, *(str(row["game"]) for row in rows)]))
    budgets = {parse_model_label(str(row["a"]))[1] for row in rows}
    largest = max(budgets, default=0)
    stages = ((ZERO_SHOT, 0),) * (0 in budgets) + ((ADAPTED, largest),) * (largest > 0)
    stage_of = {budget: stage for stage, budget in stages}
    cells: dict[tuple[str, str, str], Comparison] = {}
    for row in rows:
        if row["verdict"] not in VERDICTS:
            raise ValueError(f"unknown verdict {row['verdict']!r} (expected one of {list(VERDICTS)}) in {dict(row)}")
        label, budget = _comparison_label(str(row["a"]), str(row["b"]))
        if budget not in stage_of:
            continue  # an intermediate budget: in the comparisons table, not at a glance
        key = (label, str(row["game"]), stage_of[budget])
        if key in cells:
            raise ValueError(f"comparison {label} in {key[1]} {key[2]} given twice: {dict(row)}")
        difference, low, high, detectable, spread = (
            float(row[k]) for k in ("difference", "low", "high", "detectable", "spread")
        )
        improvement, iqm = float(row.get("improvement", 0.5)), _number(row.get("iqm"))
        cells[key] = Comparison(difference, low, high, str(row["verdict"]), detectable, int(row["replicates"]), spread,
                                improvement, iqm, _flag(row.get("holds", True), row))  # fmt: skip
    comparisons = tuple(dict.fromkeys(label for label, _, _ in cells))
    headlines = [_headline(c, targets, stages, cells) for c in comparisons]
    missing = [t for t in targets if not any(key[1] == t for key in cells)]
    if missing and cells:
        headlines.append(f"No comparison was made in {_words(missing)}.")
    if any(cell.verdict == UNINFORMATIVE for cell in cells.values()):
        headlines.append(UNINFORMATIVE_NOTE)
    if any(_fragile(cell) for cell in cells.values()):
        headlines.append(FRAGILE_NOTE)
    held = tuple(t for t in targets if t in held_out)
    return Verdicts(comparisons, targets, held, stages, cells, tuple(headlines), _resolution(stages, cells))


def _comparison_label(a: str, b: str) -> tuple[str, int]:
    """A comparison's row label and stage budget from its models' names: ``JOAT - multitask`` (the same budget),
    ``JOAT adapted - unadapted`` or ``MetaFocus adapted - JOAT unadapted`` (against a budget-0 model)."""
    (start_a, budget_a), (start_b, budget_b) = parse_model_label(a), parse_model_label(b)
    name_a, name_b = start_title(start_a), start_title(start_b)
    if budget_a == budget_b:
        return f"{name_a} - {name_b}", budget_a
    if budget_b == 0:
        unadapted = "unadapted" if start_a == start_b else f"{name_b} unadapted"
        return f"{name_a} adapted - {unadapted}", budget_a
    return f"{a} - {b}", budget_a


def _headline(
    comparison: str,
    targets: Sequence[str],
    stages: Sequence[tuple[str, int]],
    cells: Mapping[tuple[str, str, str], Comparison],
) -> str:
    """``JOAT - multitask: after adaptation (100 games), worse in 3 of 4 targets (gardner, dark and mallet) by 100
    to 190 Elo and no detectable difference in 1 of 4 targets (los_alamos); zero-shot, no detectable difference in
    all 4 targets.``: per stage, adapted first, the targets grouped by verdict, the most frequent first."""
    parts = []
    for stage, budget in reversed(stages):
        found = {t: cells[(comparison, t, stage)] for t in targets if (comparison, t, stage) in cells}
        if not found:
            continue
        groups = {v: [t for t, cell in found.items() if _said(cell) == v] for v in _LABELS}
        # the most frequent verdict first; sorted is stable, so ties keep _LABELS' order
        ranked = sorted((v for v in _LABELS if groups[v]), key=lambda v: -len(groups[v]))
        said = []
        for v in ranked:
            where = groups[v]
            if len(found) == 1:
                place = f"in {where[0]}"
            elif len(where) == len(found):
                place = "in both targets" if len(found) == 2 else f"in all {len(found)} targets"
            else:
                place = f"in {len(where)} of {len(found)} targets ({_words(where)})"
            sized = v not in (NO_DIFFERENCE, UNINFORMATIVE)
            said.append(f"{v} {place}" + (f" by {_span(found[t] for t in where)}" if sized else ""))
        when = "zero-shot" if stage == ZERO_SHOT else f"after adaptation ({budget} games)"
        parts.append(f"{when}, {_words(said)}")
    return f"{comparison}: " + "; ".join(parts) + "."


def _resolution(stages: Sequence[tuple[str, int]], cells: Mapping[tuple[str, str, str], Comparison]) -> str:
    """The smallest difference the instrument detects per stage (the median half-width of the intervals obtained)
    and the replicates it rests on."""
    if not cells:
        return "No comparisons were made."
    said = []
    for stage, budget in stages:
        widths = sorted(cell.detectable for key, cell in cells.items() if key[2] == stage)
        when = "zero-shot" if stage == ZERO_SHOT else f"after {budget} games of adaptation"
        spread = f"; {widths[0]:.0f} to {widths[-1]:.0f}" if round(widths[0]) != round(widths[-1]) else ""
        said.append(f"{statistics.median(widths):.0f} Elo {when} (the median over {len(widths)} comparison"
                    f"{'s' if len(widths) > 1 else ''}{spread})")  # fmt: skip
    counts = sorted({cell.replicates for cell in cells.values()})
    if counts == [1]:
        rests = "one training replicate per model, so the intervals cover the games only, not training noise"
    else:
        many = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
        rests = (f"{many} training replicates per model (the intervals cover game and training noise; measured on "
                 "the gomoku study with ten replicates, two-replicate intervals contained the ten replicates' mean in "
                 "95 % of draws, and in 82 % in the worst cell)")  # fmt: skip
    return (
        f"The smallest difference this study can tell from 0 (half the width of a paired 95% interval) is "
        f"{_words(said)}: a smaller observed difference reads as no detectable difference (a true difference of "
        f"that size is found about half the time, one 1.4 times as large four times in five). It rests on {rests}."
    )


_LABELS = (BETTER, WORSE, f"{BETTER} ({FRAGILE})", f"{WORSE} ({FRAGILE})", NO_DIFFERENCE, UNINFORMATIVE)
"""What a headline groups targets by: the verdicts, a fragile one apart from one that holds."""


def _fragile(cell: Comparison) -> bool:
    """Whether the cell's verdict is labelled fragile: a verdict that does not hold, unless uninformative."""
    return not cell.holds and cell.verdict in (BETTER, WORSE)


def _said(cell: Comparison) -> str:
    """The verdict as the headline says it: ``worse (fragile)`` for a fragile one."""
    return f"{cell.verdict} ({FRAGILE})" if _fragile(cell) else cell.verdict


def _number(value: Any) -> float | None:
    """A row's optional number: ``None`` for a missing one (empty in the CSV, NaN in pandas)."""
    if value is None or value == "":
        return None
    number = float(value)
    return None if math.isnan(number) else number


def _flag(value: Any, row: Mapping[str, Any]) -> bool:
    """A row's ``holds`` (a bool, or ``True``/``False`` as text); ``ValueError`` naming the row otherwise."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if value in ("True", "False"):
        return value == "True"
    raise ValueError(f"holds must be True or False, got {value!r} in {dict(row)}")


def _span(cells: Iterable[Comparison]) -> str:
    """The size of the differences: ``120 Elo``, or ``100 to 190 Elo``."""
    sizes = sorted(round(abs(cell.difference)) for cell in cells)
    return f"{sizes[0]} Elo" if sizes[0] == sizes[-1] else f"{sizes[0]} to {sizes[-1]} Elo"


def _cell_html(cell: Comparison | None, edge: str) -> str:
    if cell is None:
        return f'<td style="{edge}; text-align: center; color: #888">-</td>'
    fragile = _fragile(cell)
    style = f"{edge}; text-align: center; background: {VERDICT_COLOURS[cell.verdict]}"
    if fragile:  # the verdict's colour, striped: it does not hold
        style += f"; background: repeating-linear-gradient(135deg, {VERDICT_COLOURS[cell.verdict]} 0 6px, #fff 6px 9px)"
    iqm = "" if cell.iqm is None else f"; IQM {cell.iqm:+.0f}"
    return (
        f'<td style="{style}" title="{_said(cell)}">'
        f"{_MARKS[cell.verdict]}{cell.difference:+.0f}" + (f" <b>{FRAGILE}</b>" if fragile else "") + "<br>"
        f'<span style="font-size: 11px">{cell.low:+.0f} to {cell.high:+.0f}<br>'
        f"P(a&gt;b) {cell.improvement:.2f}{iqm}</span></td>"
    )


def _words(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return ", ".join(items[:-1]) + f" and {items[-1]}" if len(items) > 1 else "".join(items)
