"""Mistake rate or Elo: which tells two starts apart with less CPU? (issue 65)

    python benchmarks/yardstick.py STUDY_FOLDER [STUDY_FOLDER ...]

Reads a finished study (one run with the mistake rates: ``plots/mistakes``, ``plots/mistake_comparisons``,
``plots/comparisons``, ``plots/ratings`` and the report's ``data/report/runs.json``, where each stage's time went)
and prints, per target with a suite, one Markdown row:

- the CPU seconds the evaluation spent on games (every ``evaluation games vs *`` part of ``evaluate@T``: the cells
  and the rating's games) and on the mistake rates (``mistake rates``);
- each yardstick's smallest detectable difference, the study's own: the median half-width of its paired
  comparisons' 95 % intervals (Elo points; percentage points of mistakes), at budget 0 and at the largest budget;
- the same for one model's measurement: the median half-width of a model's own interval (Elo over games; the
  Wilson interval of its mistake rate, in points);
- the mistake rate's half-widths at the games' CPU seconds: an interval narrows as the square root of what it is
  measured on (positions), so ``half-width * sqrt(mistake seconds / game seconds)``. The training replicates' part
  of a comparison's interval does not narrow with more positions: the scaled comparison figure is the optimistic
  one, the scaled measurement figure the fair one;
- the exchange rate between the two scales: the least-squares slope of the models' Elo on their mistake rate, in
  Elo points per point of mistakes, and its correlation; the mistake rate's half-widths in Elo through it, as
  measured and scaled;
- how often the two yardsticks give the same verdict on the same comparison.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd


def _cpu(runs: dict, stage: str, parts: tuple[str, ...]) -> float:
    return sum(r["cpu_seconds"] for r in runs.get("time", []) if r["stage"] == stage and r["part"].startswith(parts))


def target_row(root: Path, target: str, runs: dict) -> dict[str, object] | None:
    mistakes = pd.read_csv(root / "plots" / "mistakes" / f"{target}.csv")
    if mistakes.empty:
        return None
    elo = pd.read_csv(root / "plots" / "comparisons" / f"{target}.csv")
    by_mistakes = pd.read_csv(root / "plots" / "mistake_comparisons" / f"{target}.csv")
    ratings = pd.read_csv(root / "plots" / "ratings" / f"{target}.csv")
    models = ratings[ratings["kind"] == "model"]
    stage = f"evaluate@{target}"
    games = _cpu(runs, stage, ("evaluation games vs",))
    measured = _cpu(runs, stage, ("mistake rates",))
    scale = math.sqrt(measured / games) if games > 0 and measured > 0 else float("nan")
    slope, _ = np.polyfit(100 * mistakes["rate"], mistakes["elo"], 1)
    r = float(np.corrcoef(100 * mistakes["rate"], mistakes["elo"])[0, 1])
    largest = int(elo["budget"].max())
    row: dict[str, object] = {
        "target": target,
        "suite": mistakes["suite"].iloc[0],
        "models": len(mistakes),
        "game CPU s": round(games),
        "mistake CPU s": round(measured),
        "Elo per point": round(float(slope), 1),
        "r": round(r, 2),
    }
    for budget in sorted({0, largest}):
        e = float(elo[elo["budget"] == budget]["detectable"].median())
        m = float(by_mistakes[by_mistakes["budget"] == budget]["detectable"].median())
        row[f"b{budget} Elo SDD"] = round(e)
        row[f"b{budget} mistake SDD (points)"] = round(m, 1)
        row[f"b{budget} mistake SDD (Elo)"] = round(m * abs(slope))
        row[f"b{budget} mistake SDD at equal CPU (Elo)"] = round(m * scale * abs(slope))
    e_model = float(((models["high"] - models["low"]) / 2).median())
    m_model = float((100 * (mistakes["high"] - mistakes["low"]) / 2).median())
    row["model Elo half-width"] = round(e_model)
    row["model mistake half-width (points)"] = round(m_model, 1)
    row["model mistake half-width (Elo)"] = round(m_model * abs(slope))
    row["model mistake half-width at equal CPU (Elo)"] = round(m_model * scale * abs(slope))
    paired = elo.merge(by_mistakes, on=["game", "budget", "a", "b"], suffixes=("_elo", "_mistakes"))
    row["same verdict"] = f"{int((paired['verdict_elo'] == paired['verdict_mistakes']).sum())}/{len(paired)}"
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("studies", nargs="+", type=Path, help="finished study folders (the project, studies/gomoku)")
    args = parser.parse_args()
    rows = []
    for root in args.studies:
        runs = json.loads((root / "data" / "report" / "runs.json").read_text())
        for path in sorted((root / "plots" / "mistakes").glob("*.csv")):
            row = target_row(root, path.stem, runs)
            if row is not None:
                rows.append(row)
    if not rows:
        raise SystemExit("no target of these studies has mistake rates (run the study with a suite for a target)")
    table = pd.DataFrame(rows).set_index("target").T
    print(table.to_markdown())


if __name__ == "__main__":
    main()
