"""Stage ``expert@{variant}-{r}``: the single-variant AlphaZero loop, ``mmc.loops.alphazero.alphazero``, G generations,
for training replicate ``r``.

The stage resolves the variant's configs and the replicate's seed (:func:`pipelines.calls.expert_inputs`), calls
the library's loop with the stage's job store as its runner (``pipelines.jobs``: every self-play chunk, training
and arena chunk is a Prefect task run, kept on disk under ``data/jobs/expert/{v}-r{r}`` as it finishes, so a
rerun or a resumed run computes only what is missing), logs each generation to MLflow as the loop yields it, and
at the end publishes the champion (``models/champion/r{r}``), the metrics and curves DVC shows, and registers it
in MLflow as ``expert-{variant}`` (alias ``r{r}``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger

from mmc.loops.alphazero import AlphaZeroConfig, Generation, alphazero
from mmc.nn import save_checkpoint
from mmc.play import write_records
from pipelines import metrics as names
from pipelines import plots, tracking
from pipelines.calls import EXPERT, ExpertInputs, keywords
from pipelines.calls import expert_inputs as inputs
from pipelines.config import StudyConfig
from pipelines.files import write_json
from pipelines.jobs import JobStore
from pipelines.paths import Paths, expert_code, replicate_name
from pipelines.records import ArenaRow, LossRow, MatchSummary, write_rows
from pipelines.stage import logged_params, open_stage

__all__ = ["ExpertInputs", "expert_flow", "inputs"]

STAGE = EXPERT
SAMPLE_GAMES = 8
"""Self-play games of the last generation logged to MLflow as a sample."""


@flow(name="expert", flow_run_name="expert-{variant}-r{replicate}", validate_parameters=False)
def expert_flow(variant: str, replicate: int, study: StudyConfig, root: Path) -> dict[str, Any]:
    """Run (or resume) ``variant``'s expert of replicate ``replicate`` under ``root``; its summary metrics."""
    config = study.experts[variant]
    params = logged_params(study, replicate, {"variant": variant}, network=study.network, expert=config.loop,
                           search=config.search, train=config.train, runner=study.runner)  # fmt: skip
    jobs = (STAGE, replicate_name(variant, replicate))
    with open_stage(study, root, STAGE, variant=variant, replicate=replicate, jobs=jobs, code=expert_code(study.family),
                    params=params) as stage:  # fmt: skip
        generations: list[Generation] = []
        for generation in alphazero(**keywords(inputs(study, variant, replicate)), run=stage.store):
            generations.append(generation)
            stage.run.log_metrics(_metrics(generation, variant, stage.store), step=generation.index)
            stage.logger.info("%s generation %d: %s", variant, generation.index, _describe(generation))
        return _publish(stage.paths, config.loop, variant, replicate, generations, stage.run)


def _metrics(generation: Generation, variant: str, store: JobStore) -> dict[str, float]:
    """The per-generation numbers MLflow plots against ``step`` = generation."""
    key = [(variant, f"gen{generation.index:03d}")]
    played, last = generation.self_play, generation.losses[-1]
    games = len(played.records)
    examples = sum(len(part) for part in played.examples)
    metrics = {
        names.SELFPLAY_GAMES: games,
        names.SELFPLAY_PLIES_PER_GAME: played.plies / max(1, games),
        names.SELFPLAY_EXAMPLES: examples,
        names.seconds("self-play"): store.job_seconds(["self-play"], key),
        names.SELFPLAY_DRAW_RATE: sum(r.result == "1/2-1/2" for r in played.records) / max(1, games),
        names.seconds("train"): store.job_seconds(["train"], key),
        **{names.loss(part): getattr(last, part) for part in names.LOSS_PARTS},
        names.ACCEPTED: float(generation.accepted),
        names.CHAMPION_GENERATION: generation.champion_index,
    }
    if generation.arena is not None:
        summary = MatchSummary.of(generation.arena)
        metrics |= {names.arena(k): v for k, v in summary.__dict__.items() if k != "games"}
        metrics[names.seconds("arena")] = store.job_seconds(["arena"], key)
    return metrics


def _describe(generation: Generation) -> str:
    last, arena = generation.losses[-1], generation.arena
    gate = f"arena {arena.wins}/{arena.draws}/{arena.losses} score {arena.score:.2f}" if arena else "no arena"
    verdict = "accepted" if generation.accepted else "rejected"
    return (
        f"{len(generation.self_play.records)} games, loss policy {last.policy:.3f} value {last.value:.3f}, "
        f"{gate} -> {verdict}"
    )


def _publish(
    paths: Paths, loop: AlphaZeroConfig, variant: str, replicate: int, generations: list[Generation],
    run: tracking.StageRun,
) -> dict[str, Any]:  # fmt: skip
    """Write the champion, curves and metrics DVC tracks; log them, samples and plots to MLflow; register."""
    last = generations[-1]
    save_checkpoint(last.champion, last.champion.config, paths.champion(variant, replicate))
    losses = [
        LossRow(g.index, g.losses[-1].policy, g.losses[-1].value, g.losses[-1].total, g.window_examples)
        for g in generations
    ]
    arena = [
        ArenaRow(g.index, s.score, s.ci_low, s.ci_high, s.wins, s.draws, s.losses, int(g.accepted))
        for g in generations
        if g.arena is not None and (s := MatchSummary.of(g.arena))
    ]
    write_rows(paths.loss_curve(variant, replicate), LossRow, losses)
    write_rows(paths.arena_curve(variant, replicate), ArenaRow, arena)
    summary = {
        "generations": len(generations),
        "accepted": sum(g.accepted for g in generations),
        "champion_generation": last.champion_index,
        "selfplay_games": sum(len(g.self_play.records) for g in generations),
        "selfplay_examples": sum(len(part) for g in generations for part in g.self_play.examples),
        "final_loss_policy": round(last.losses[-1].policy, 6),
        "final_loss_value": round(last.losses[-1].value, 6),
        "final_arena_score": round(last.arena.score, 6) if last.arena else None,
    }
    write_json(paths.expert_metrics(variant, replicate), summary)
    run.log_metrics(names.from_json(summary) | {names.FINAL_STEP: len(generations) - 1})
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        sample = last.self_play.records[:SAMPLE_GAMES]
        run.log_artifact(write_records(sample, folder / f"selfplay_gen{last.index:03d}_sample.pgn"), "games")
        if last.arena is not None:
            run.log_artifact(write_records(last.arena.records, folder / "arena.pgn"), "games")
        run.log_artifact(plots.loss_png([row.__dict__ for row in losses], variant, folder / "losses.png"), "plots")
        if arena:
            rows = [row.__dict__ for row in arena]
            run.log_artifact(plots.arena_png(rows, variant, loop.gate_threshold, folder / "arena.png"), "plots")
    curves = (paths.loss_curve(variant, replicate), paths.arena_curve(variant, replicate))
    for path in (*curves, paths.expert_metrics(variant, replicate)):
        run.log_artifact(path, "dvc")
    description = (
        f"{variant} expert, replicate {replicate}: champion after {len(generations)} generations "
        f"(generation {last.champion_index})"
    )
    version = run.register_model(last.champion, f"expert-{variant}", description, replicate)
    get_run_logger().info("registered expert-%s version %s (alias r%d)", variant, version, replicate)
    return summary
