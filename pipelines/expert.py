"""Stage ``expert@{variant}``: the single-variant AlphaZero loop, G generations of self-play -> train -> arena.

Per generation, the flow fans self-play out in chunks over the task runner (one ``self-play`` task run per
chunk), trains a copy of the champion on the replay window in its own process (``train``, one torch thread:
the same weights on any machine), plays it against the champion in chunks over the runner and gates it on
the combined score (``arena``), then writes the generation's manifest. Finished chunks and generations are found on
disk and skipped (``pipelines.generations``). At the end the champion is published (``models/champion``),
with the metrics and curves DVC shows, and registered in MLflow as ``expert-{variant}`` (alias ``champion``).
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path
from typing import Any

import torch
from prefect import flow, get_run_logger
from prefect.futures import PrefectFuture, as_completed
from prefect.runtime import flow_run

from mmc.nn import PolicyValueNet, build_network, load_checkpoint, save_checkpoint
from mmc.play import MatchResult, gate, read_records, write_records
from mmc.train import replay_window
from pipelines import plots, tracking
from pipelines.config import ExpertConfig, StudyConfig, expert_fingerprint_data, flatten
from pipelines.files import tree_sha256, write_csv, write_json
from pipelines.generations import GenerationStore, match_summary
from pipelines.paths import EXPERT_CODE, Paths
from pipelines.runners import single_threaded
from pipelines.seeds import NETWORK_INIT, int_seed, seed_sequence, torch_generator
from pipelines.tasks import ArenaJob, SelfPlayJob, Timed, arena_task, combine, self_play_task, split_games, train_task

__all__ = ["expert_flow"]

STAGE = "expert"
SAMPLE_GAMES = 8
"""Self-play games of the last generation logged to MLflow as a sample."""


@flow(name="expert", flow_run_name="expert-{variant}", validate_parameters=False)
def expert_flow(variant: str, study: StudyConfig, root: Path) -> dict[str, Any]:
    """Run (or resume) ``variant``'s expert under ``root``; its summary metrics (``metrics/expert/{v}.json``)."""
    logger = get_run_logger()
    torch.set_num_threads(1)  # training here: the same weights on any machine, no fight with the workers for cores
    paths = Paths(root)
    config = study.experts[variant]
    store = GenerationStore(paths, variant)
    fingerprint = {**expert_fingerprint_data(study, variant), "code": tree_sha256(paths.root, EXPERT_CODE)}
    state = store.prepare(fingerprint)
    manifests = store.finished()[: config.loop.generations]
    store.keep(config.loop.generations)
    logger.info("%s: %s, %d of %d generations already done", variant, state, len(manifests), config.loop.generations)
    with tracking.stage_run(paths, STAGE, variant, flow_run.id) as run:
        run.log_params(flatten(_logged_params(study, config)))
        for manifest in manifests:
            run.log_metrics(_generation_metrics(manifest), step=manifest["generation"])
        initial = store.initial(
            lambda: build_network(study.network, int_seed(seed_sequence(study.seed, STAGE, variant, NETWORK_INIT)))
        )
        champion = load_checkpoint(store.champion_path(manifests))[0] if manifests else initial
        for generation in range(len(manifests), config.loop.generations):
            manifest, champion = _generation(generation, champion, manifests, study, config, store)
            manifests.append(manifest)
            run.log_metrics(_generation_metrics(manifest), step=generation)
            logger.info("%s generation %d: %s", variant, generation, _describe(manifest))
        return _publish(paths, config, manifests, champion, run)


def _generation(
    generation: int,
    champion: PolicyValueNet,
    done: list[dict[str, Any]],
    study: StudyConfig,
    config: ExpertConfig,
    store: GenerationStore,
) -> tuple[dict[str, Any], PolicyValueNet]:
    """Play, train and gate generation ``generation``; its manifest and the champion after it."""
    variant, loop = config.variant, config.loop
    chunks = _self_play(generation, champion, study, config, store)
    window = replay_window(store.window(generation, loop.window, config.chunks), loop.window)
    generator = torch_generator(seed_sequence(study.seed, STAGE, variant, generation, purpose="train"))
    trained: Timed[tuple[PolicyValueNet, list[Any]]] = train_task(
        champion, window, config.train, generator, variant, generation
    )
    candidate, losses = trained.value
    store.save_candidate(generation, candidate)
    arena, accepted = None, True
    if loop.arena_games:
        result, seconds = _arena(generation, candidate, champion, study, config)
        store.save_arena(generation, result.records)
        accepted = gate(result, loop.gate_threshold)
        arena = {**match_summary(result), "seconds": round(seconds, 3)}
    previous = done[-1] if done else None
    champion_path = store.paths.candidate(variant, generation) if accepted else store.champion_path(done)
    manifest = {
        "generation": generation,
        "variant": variant,
        "accepted": accepted,
        "champion": store.paths.relative(champion_path),
        "champion_generation": generation if accepted else (previous["champion_generation"] if previous else -1),
        "selfplay": {
            key: sum(c[key] for c in chunks)
            for key in ("games", "plies", "examples", "white_wins", "black_wins", "draws", "seconds")
        },
        "train": {
            "examples": sum(len(part.value) for part in window),
            "seconds": round(trained.seconds, 3),
            "epochs": [{"policy": e.policy, "value": e.value, "total": e.total} for e in losses],
        },
        "arena": arena,
    }
    return store.finish(generation, manifest, config.chunks), candidate if accepted else champion


def _self_play(
    generation: int, champion: PolicyValueNet, study: StudyConfig, config: ExpertConfig, store: GenerationStore
) -> list[dict[str, Any]]:
    """Every chunk of the generation's self-play, done already or played now (each written as it finishes)."""
    stats: dict[int, dict[str, Any]] = {}
    pending: dict[PrefectFuture[Any], int] = {}
    first_game = generation * config.loop.games
    for chunk, games in enumerate(config.chunk_games()):
        finished = store.chunk(generation, chunk)
        if finished is not None:
            stats[chunk] = finished
        else:
            job = SelfPlayJob(
                config.variant,
                generation,
                chunk,
                games,
                first_game,
                config.search,
                config.loop.concurrent,
                config.loop.max_plies,
                seed_sequence(study.seed, STAGE, config.variant, generation, chunk, "self-play"),
                single_threaded(study.runner),
            )
            pending[self_play_task.submit(champion, job)] = chunk
        first_game += games
    for future in as_completed(list(pending)):
        played: Timed[Any] = future.result()
        stats[pending[future]] = store.save_chunk(generation, pending[future], played.value, played.seconds)
    return [stats[chunk] for chunk in sorted(stats)]


def _arena(
    generation: int, candidate: PolicyValueNet, champion: PolicyValueNet, study: StudyConfig, config: ExpertConfig
) -> tuple[MatchResult, float]:
    """Candidate vs champion in chunks over the task runner (one ``arena`` task run per chunk); the combined
    match and the chunks' summed seconds."""
    loop = config.loop
    futures = [
        arena_task.submit(
            candidate,
            champion,
            ArenaJob(
                config.variant,
                generation,
                chunk,
                games,
                loop.arena_simulations,
                loop.max_plies,
                seed_sequence(study.seed, STAGE, config.variant, generation, chunk, "arena"),
                single_threaded(study.runner),
            ),
        )
        for chunk, games in enumerate(split_games(loop.arena_games, config.chunks))
    ]
    played: list[Timed[MatchResult]] = [future.result() for future in futures]
    return combine([p.value for p in played]), sum(p.seconds for p in played)


def _logged_params(study: StudyConfig, config: ExpertConfig) -> dict[str, Any]:
    return {
        "seed": study.seed,
        "variant": config.variant,
        "network": study.network.to_dict(),
        "expert": {**config.loop.__dict__, "chunks": config.chunks},
        "search": config.search.__dict__,
        "train": config.train.__dict__,
        "runner": study.runner.__dict__,
    }


def _generation_metrics(manifest: dict[str, Any]) -> dict[str, float]:
    """The per-generation numbers MLflow plots against ``step`` = generation."""
    selfplay, last = manifest["selfplay"], manifest["train"]["epochs"][-1]
    metrics = {
        "selfplay_games": selfplay["games"],
        "selfplay_plies_per_game": selfplay["plies"] / max(1, selfplay["games"]),
        "selfplay_examples": selfplay["examples"],
        "selfplay_seconds": selfplay["seconds"],
        "selfplay_draw_rate": selfplay["draws"] / max(1, selfplay["games"]),
        "train_examples": manifest["train"]["examples"],
        "train_seconds": manifest["train"]["seconds"],
        "loss_policy": last["policy"],
        "loss_value": last["value"],
        "loss_total": last["total"],
        "accepted": float(manifest["accepted"]),
        "champion_generation": manifest["champion_generation"],
    }
    if manifest["arena"]:
        metrics |= {
            f"arena_{k}": manifest["arena"][k]
            for k in ("score", "ci_low", "ci_high", "wins", "draws", "losses", "seconds")
        }
    return metrics


def _describe(manifest: dict[str, Any]) -> str:
    last = manifest["train"]["epochs"][-1]
    arena = manifest["arena"]
    gate_text = f"arena {arena['wins']}/{arena['draws']}/{arena['losses']} score {arena['score']:.2f}" if arena else ""
    verdict = "accepted" if manifest["accepted"] else "rejected"
    return (
        f"{manifest['selfplay']['games']} games in {manifest['selfplay']['seconds']:.0f}s (chunk time summed), "
        f"loss policy {last['policy']:.3f} value {last['value']:.3f}, {gate_text} -> {verdict}"
    )


def _publish(
    paths: Paths,
    config: ExpertConfig,
    manifests: list[dict[str, Any]],
    champion: PolicyValueNet,
    run: tracking.StageRun,
) -> dict[str, Any]:
    """Write the champion, curves and metrics DVC tracks; log them, samples and plots to MLflow; register."""
    variant = config.variant
    save_checkpoint(champion, champion.config, paths.champion(variant))
    losses = [
        {"generation": m["generation"], **m["train"]["epochs"][-1], "examples": m["train"]["examples"]}
        for m in manifests
    ]
    arena = [
        {
            "generation": m["generation"],
            **{k: m["arena"][k] for k in ("score", "ci_low", "ci_high", "wins", "draws", "losses")},
            "accepted": int(m["accepted"]),
        }
        for m in manifests
        if m["arena"]
    ]
    write_csv(paths.loss_curve(variant), ["generation", "policy", "value", "total", "examples"], losses)
    write_csv(
        paths.arena_curve(variant),
        ["generation", "score", "ci_low", "ci_high", "wins", "draws", "losses", "accepted"],
        arena,
    )
    last = manifests[-1]
    summary = {
        "generations": len(manifests),
        "accepted": sum(m["accepted"] for m in manifests),
        "champion_generation": last["champion_generation"],
        "selfplay_games": sum(m["selfplay"]["games"] for m in manifests),
        "selfplay_examples": sum(m["selfplay"]["examples"] for m in manifests),
        "final_loss_policy": round(last["train"]["epochs"][-1]["policy"], 6),
        "final_loss_value": round(last["train"]["epochs"][-1]["value"], 6),
        "final_arena_score": last["arena"]["score"] if last["arena"] else None,
    }
    write_json(paths.expert_metrics(variant), summary)
    run.log_metrics({k: v for k, v in summary.items() if v is not None} | {"final_step": len(manifests) - 1})
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        sample = read_records(paths.chunk_records(variant, last["generation"], 0))[:SAMPLE_GAMES]
        run.log_artifact(write_records(sample, folder / f"selfplay_gen{last['generation']:03d}_sample.pgn"), "games")
        if paths.arena_records(variant, last["generation"]).is_file():
            run.log_artifact(paths.arena_records(variant, last["generation"]), "games")
        run.log_artifact(plots.loss_png(losses, variant, folder / "losses.png"), "plots")
        if arena:
            run.log_artifact(plots.arena_png(arena, variant, config.loop.gate_threshold, folder / "arena.png"), "plots")
    for path in (paths.loss_curve(variant), paths.arena_curve(variant), paths.expert_metrics(variant)):
        run.log_artifact(path, "dvc")
    version = run.register_model(
        champion,
        f"expert-{variant}",
        f"{variant} expert: champion after {len(manifests)} generations (generation {last['champion_generation']})",
    )
    logging.getLogger(__name__).info("registered expert-%s version %s (alias champion)", variant, version)
    return summary
