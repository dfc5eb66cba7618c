"""Per-generation curves as PNG images for MLflow (DVC draws its own from the CSVs in ``plots/``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display: files only

import matplotlib.pyplot as plt

__all__ = ["arena_png", "loss_png"]


def loss_png(rows: Sequence[Mapping[str, Any]], variant: str, path: Path) -> Path:
    """Policy and value loss of the last training epoch of each generation (rows of ``plots/losses``)."""
    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    generations = [row["generation"] for row in rows]
    ax.plot(generations, [row["policy"] for row in rows], marker="o", label="policy (cross-entropy)")
    ax.plot(generations, [row["value"] for row in rows], marker="s", label="value (MSE)")
    ax.set(xlabel="generation", ylabel="loss", title=f"{variant}: training loss")
    ax.legend()
    ax.grid(alpha=0.3)
    return _save(fig, path)


def arena_png(rows: Sequence[Mapping[str, Any]], variant: str, threshold: float, path: Path) -> Path:
    """Candidate's arena score against the champion with its Wilson 95 % interval and the gate."""
    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    generations = [row["generation"] for row in rows]
    scores = [row["score"] for row in rows]
    low = [row["score"] - row["ci_low"] for row in rows]
    high = [row["ci_high"] - row["score"] for row in rows]
    ax.errorbar(generations, scores, yerr=[low, high], marker="o", capsize=3, label="candidate score")
    accepted = [(g, s) for g, s, row in zip(generations, scores, rows, strict=True) if row["accepted"]]
    if accepted:
        ax.scatter(*zip(*accepted, strict=True), color="tab:green", zorder=3, label="accepted")
    ax.axhline(threshold, color="tab:red", linestyle="--", label=f"gate {threshold:g}")
    ax.set(xlabel="generation", ylabel="score vs champion", ylim=(0, 1), title=f"{variant}: arena")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return _save(fig, path)


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
