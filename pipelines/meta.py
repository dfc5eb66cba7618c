"""Stages ``meta_train`` (JOAT, first-order Reptile across variants) and ``multitask`` (its equal-budget baseline).

Meta-generation ``g`` of either stage draws the same task batch (``mmc.meta.sample_tasks`` on a stream keyed by
``g`` alone, so both stages see the same variants) and plays ``meta.games`` self-play games of every task with
the current network, one ``self-play`` task run per task over the task runner. Then:

- ``meta_train`` (JOAT): each task's games train a copy of theta once (the inner update, one ``train`` task
  run per task, in parallel), and ``theta <- theta + epsilon * (mean theta'_i - theta)``
  (``mmc.meta.meta_aggregate``; batch-norm running statistics take the same interpolation, see
  ``mmc.meta.reptile``). ``epsilon = 1`` is the seed's plain average of the task networks.
- ``multitask``: one copy trains once on all the tasks' games pooled (no inner/outer split): the same games,
  the same epochs over the same examples, one network.

Every task's games and every theta are written under ``data/meta/{k}`` and ``models/meta/{k}`` (persistent DVC
outputs, resumed like the expert's generations: a meta-generation is done when its manifest checks out, a
task's self-play when its JSON does). The final network is published as ``models/starts/{k}.pt`` and
registered in MLflow as ``joat`` / ``multitask`` with alias ``champion``; per-task inner losses are logged per
meta-generation (``step``).
"""

from __future__ import annotations

import copy
import shutil
import tempfile
from collections import Counter
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import torch
from prefect import flow, get_run_logger
from prefect.futures import PrefectFuture, as_completed
from prefect.runtime import flow_run

from mmc.meta import meta_aggregate, sample_tasks
from mmc.nn import PolicyValueNet, build_network, load_checkpoint, save_checkpoint
from mmc.nn.checkpoint import config_path
from mmc.play import read_records, write_records
from mmc.train import EpochLosses, Examples, load_examples
from pipelines import tracking
from pipelines.config import StudyConfig, flatten
from pipelines.files import as_json, checked_json, file_hashes, tree_sha256, write_csv, write_json
from pipelines.generations import initial_network, prepare_folders, save_self_play
from pipelines.paths import META_CODE, Paths
from pipelines.runners import single_threaded
from pipelines.seeds import NETWORK_INIT, generator, int_seed, seed_sequence, torch_generator
from pipelines.tasks import SelfPlayJob, Timed, self_play_task, train_task

__all__ = ["KINDS", "LOSS_HEADER", "meta_flow"]

KINDS = {"joat": "meta_train", "multitask": "multitask"}
"""The two meta stages: the network they make -> their DVC stage (and MLflow child run) name."""
LOSS_HEADER = ["series", "stage", "variant", "generation", "policy", "value", "total"]
"""Columns of ``plots/meta/{k}.csv`` (the report's losses input, ``reports/README.md``)."""
SAMPLE_GAMES = 4


def fingerprint_data(study: StudyConfig, kind: str) -> dict[str, Any]:
    """What a meta stage's generations depend on, except how many there are (adding generations resumes) and,
    for ``multitask``, epsilon (it has no outer step)."""
    return {
        "kind": kind,
        "seed": study.seed,
        "network": study.network.to_dict(),
        "search": asdict(study.search),
        "train": asdict(study.train),
        "meta": asdict(replace(study.meta, generations=1, epsilon=study.meta.epsilon if kind == "joat" else 1.0)),
    }


def task_batch(study: StudyConfig, generation: int) -> list[str]:
    """The task batch of meta-generation ``generation``: the same for ``meta_train`` and ``multitask``."""
    meta = study.meta
    rng = generator(seed_sequence(study.seed, "meta", "tasks", generation))
    return sample_tasks(list(meta.train_variants), meta.probs, meta.tasks, rng)


@flow(name="meta", flow_run_name="{kind}", validate_parameters=False)
def meta_flow(kind: str, study: StudyConfig, root: Path) -> dict[str, Any]:
    """Run (or resume) the ``joat`` or ``multitask`` meta-training under ``root``; its summary metrics."""
    if kind not in KINDS:
        raise ValueError(f"meta stage kind must be one of {', '.join(KINDS)}, got {kind!r}")
    logger = get_run_logger()
    torch.set_num_threads(1)
    paths = Paths(root)
    meta = study.meta
    store = _Store(paths, kind)
    state = store.prepare(as_json({**fingerprint_data(study, kind), "code": tree_sha256(paths.root, META_CODE)}))
    manifests = store.finished(meta.generations)
    logger.info("%s: %s, %d of %d meta-generations already done", kind, state, len(manifests), meta.generations)
    with tracking.stage_run(paths, KINDS[kind], kind, flow_run.id) as run:
        run.log_params(flatten(_logged_params(study, kind)))
        for manifest in manifests:
            run.log_metrics(_metrics(manifest), step=manifest["generation"])
        theta = store.initial(
            lambda: build_network(study.network, int_seed(seed_sequence(study.seed, "meta", kind, NETWORK_INIT)))
        )
        if manifests:
            theta = load_checkpoint(paths.root / manifests[-1]["network"])[0]
        for generation in range(len(manifests), meta.generations):
            manifest, theta = _generation(kind, generation, theta, study, store)
            manifests.append(manifest)
            run.log_metrics(_metrics(manifest), step=generation)
            logger.info("%s meta-generation %d: %s", kind, generation, _describe(manifest))
        return _publish(paths, kind, study, manifests, theta, run)


def _generation(
    kind: str, generation: int, theta: PolicyValueNet, study: StudyConfig, store: _Store
) -> tuple[dict[str, Any], PolicyValueNet]:
    """Play, train and (JOAT) aggregate meta-generation ``generation``; its manifest and the new network."""
    tasks = task_batch(study, generation)
    played = _self_play(kind, generation, tasks, theta, study, store)
    losses: dict[str, list[EpochLosses]] = {}
    seconds = 0.0
    if kind == "joat":
        futures = {
            variant: train_task.submit(
                theta,
                [store.examples(generation, variant)],
                study.meta.training(study.train),
                torch_generator(seed_sequence(study.seed, kind, variant, generation, purpose="inner")),
                variant,
                generation,
            )
            for variant in tasks
        }
        adapted: list[PolicyValueNet] = []
        for variant, future in futures.items():
            trained: Timed[tuple[PolicyValueNet, list[EpochLosses]]] = future.result()
            adapted.append(trained.value[0])
            losses[variant] = trained.value[1]
            seconds += trained.seconds
        net = copy.deepcopy(theta)
        net.load_state_dict(meta_aggregate(theta.state_dict(), [a.state_dict() for a in adapted], study.meta.epsilon))
        net.eval()
    else:
        pooled: list[Examples] = [store.examples(generation, variant) for variant in tasks]
        trained = train_task(
            theta,
            pooled,
            study.meta.training(study.train),
            torch_generator(seed_sequence(study.seed, kind, "pooled", generation, purpose="train")),
            "pooled",
            generation,
        )
        net, losses["pooled"] = trained.value
        seconds = trained.seconds
    path = store.save_network(generation, net)
    manifest = {
        "generation": generation,
        "kind": kind,
        "tasks": tasks,
        "network": store.paths.relative(path),
        "selfplay": played,
        "train": {
            "seconds": round(seconds, 3),
            "losses": {
                variant: [{"policy": e.policy, "value": e.value, "total": e.total} for e in epochs]
                for variant, epochs in losses.items()
            },
        },
    }
    return store.finish(generation, manifest, tasks), net


def _self_play(
    kind: str, generation: int, tasks: list[str], theta: PolicyValueNet, study: StudyConfig, store: _Store
) -> dict[str, dict[str, Any]]:
    """Every task's self-play of the meta-generation, done already or played now (written as each finishes)."""
    meta = study.meta
    stats: dict[str, dict[str, Any]] = {}
    pending: dict[PrefectFuture[Any], str] = {}
    for index, variant in enumerate(tasks):
        finished = store.task(generation, variant)
        if finished is not None:
            stats[variant] = finished
            continue
        job = SelfPlayJob(
            variant,
            generation,
            index,
            meta.games,
            0,
            study.search,
            meta.concurrent,
            meta.max_plies,
            seed_sequence(study.seed, kind, variant, generation, purpose="self-play"),
            single_threaded(study.runner),
        )
        pending[self_play_task.submit(theta, job)] = variant
    for future in as_completed(list(pending)):
        result: Timed[Any] = future.result()
        stats[pending[future]] = store.save_task(generation, pending[future], result.value, result.seconds)
    return {variant: stats[variant] for variant in tasks}


class _Store:
    """The persistent files of one meta stage (``data/meta/{k}``, ``models/meta/{k}``); see ``pipelines.generations``
    for the rules (fingerprint, done markers written last, everything after the first unfinished unit redone)."""

    def __init__(self, paths: Paths, kind: str) -> None:
        self.paths, self.kind = paths, kind
        self.folders = (paths.meta_data_dir(kind), paths.meta_models_dir(kind))

    def prepare(self, fingerprint: dict[str, Any]) -> str:
        path = self.paths.meta_models_dir(self.kind) / "fingerprint.json"
        return prepare_folders(self.folders, path, fingerprint, self.kind)

    def initial(self, make: Any) -> PolicyValueNet:
        return initial_network(self.paths.meta_models_dir(self.kind) / "initial.pt", make)

    def _manifest_path(self, generation: int) -> Path:
        return self.paths.meta_models_dir(self.kind) / f"gen_{generation:03d}.manifest.json"

    def network_path(self, generation: int) -> Path:
        return self.paths.meta_models_dir(self.kind) / f"gen_{generation:03d}.pt"

    def finished(self, generations: int) -> list[dict[str, Any]]:
        """Manifests of the done meta-generations (at most ``generations``); later files are thrown away, except
        the finished self-play of the first unfinished generation (its input network is unchanged)."""
        done: list[dict[str, Any]] = []
        while len(done) < generations:
            manifest = checked_json(self.paths.root, self._manifest_path(len(done)))
            if manifest is None or manifest.get("generation") != len(done):
                break
            done.append(manifest)
        keep_tasks = len(done) < generations
        for file in list(self.paths.meta_models_dir(self.kind).glob("gen_*")):
            if int(file.name[4:7]) >= len(done):
                file.unlink()
        for folder in list(self.paths.meta_data_dir(self.kind).glob("gen_*")):
            index = int(folder.name[4:])
            if index > len(done) or (index == len(done) and not keep_tasks):
                shutil.rmtree(folder)
        return done

    def task(self, generation: int, variant: str) -> dict[str, Any] | None:
        return checked_json(self.paths.root, self.paths.meta_task(self.kind, generation, variant, ".json"))

    def examples(self, generation: int, variant: str) -> Examples:
        return load_examples(self.paths.meta_task(self.kind, generation, variant, ".npz"))

    def save_task(self, generation: int, variant: str, result: Any, seconds: float) -> dict[str, Any]:
        def path(suffix: str) -> Path:
            return self.paths.meta_task(self.kind, generation, variant, suffix)

        return save_self_play(self.paths.root, result, seconds, path(".npz"), path(".pgn"), path(".json"))

    def save_network(self, generation: int, net: PolicyValueNet) -> Path:
        return save_checkpoint(net, net.config, self.network_path(generation))

    def finish(self, generation: int, manifest: dict[str, Any], tasks: list[str]) -> dict[str, Any]:
        files = [self.network_path(generation), config_path(self.network_path(generation))]
        for variant in tasks:
            files += [self.paths.meta_task(self.kind, generation, variant, s) for s in (".npz", ".pgn", ".json")]
        manifest = {**manifest, "files": file_hashes(self.paths.root, files)}
        write_json(self._manifest_path(generation), manifest)
        return manifest


def loss_rows(kind: str, manifests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The report's loss rows: JOAT's inner update per task (``inner``) and their mean (``meta_train``), or the
    multitask network's pooled training (``multitask``); the last epoch of each training run."""
    rows = []
    for manifest in manifests:
        last = {variant: epochs[-1] for variant, epochs in manifest["train"]["losses"].items()}
        g = manifest["generation"]
        if kind == "joat":
            rows += [{"series": kind, "stage": "inner", "variant": v, "generation": g, **e} for v, e in last.items()]
            mean = {k: sum(e[k] for e in last.values()) / len(last) for k in ("policy", "value", "total")}
            rows.append({"series": kind, "stage": "meta_train", "variant": "mean", "generation": g, **mean})
        else:
            rows.append({"series": kind, "stage": "multitask", "variant": "pooled", "generation": g, **last["pooled"]})
    return rows


def _metrics(manifest: dict[str, Any]) -> dict[str, float]:
    metrics: dict[str, float] = {"meta_generation": manifest["generation"]}
    for variant, epochs in manifest["train"]["losses"].items():
        name = "pooled" if variant == "pooled" else f"inner.{variant}"
        metrics |= {f"{name}.loss_{k}": epochs[-1][k] for k in ("policy", "value", "total")}
    for variant, stats in manifest["selfplay"].items():
        metrics[f"selfplay.{variant}.plies_per_game"] = stats["plies"] / max(1, stats["games"])
        metrics[f"selfplay.{variant}.draw_rate"] = stats["draws"] / max(1, stats["games"])
    metrics["selfplay_seconds"] = sum(s["seconds"] for s in manifest["selfplay"].values())
    metrics["train_seconds"] = manifest["train"]["seconds"]
    return metrics


def _describe(manifest: dict[str, Any]) -> str:
    losses = ", ".join(
        f"{v} {epochs[-1]['policy']:.3f}/{epochs[-1]['value']:.3f}" for v, epochs in manifest["train"]["losses"].items()
    )
    games = sum(s["games"] for s in manifest["selfplay"].values())
    return f"tasks {', '.join(manifest['tasks'])}: {games} games, loss policy/value {losses}"


def _logged_params(study: StudyConfig, kind: str) -> dict[str, Any]:
    return {
        "seed": study.seed,
        "kind": kind,
        "network": study.network.to_dict(),
        "meta": asdict(study.meta),
        "search": asdict(study.search),
        "train": asdict(study.train),
        "runner": asdict(study.runner),
    }


def _publish(
    paths: Paths,
    kind: str,
    study: StudyConfig,
    manifests: list[dict[str, Any]],
    net: PolicyValueNet,
    run: tracking.StageRun,
) -> dict[str, Any]:
    save_checkpoint(net, net.config, paths.start_model(kind))
    write_csv(paths.meta_losses(kind), LOSS_HEADER, loss_rows(kind, manifests))
    plays = Counter(variant for m in manifests for variant in m["tasks"])
    summary = {
        "generations": len(manifests),
        **({"epsilon": study.meta.epsilon} if kind == "joat" else {}),
        "selfplay_games": sum(s["games"] for m in manifests for s in m["selfplay"].values()),
        "selfplay_examples": sum(s["examples"] for m in manifests for s in m["selfplay"].values()),
        "tasks_per_variant": dict(sorted(plays.items())),
        "final_loss": {
            variant: round(epochs[-1]["total"], 6) for variant, epochs in manifests[-1]["train"]["losses"].items()
        },
    }
    write_json(paths.meta_metrics(kind), summary)
    run.log_metrics({k: v for k, v in flatten(summary).items() if isinstance(v, int | float)})
    with tempfile.TemporaryDirectory() as scratch:
        last = manifests[-1]
        for variant in last["tasks"]:
            records = read_records(paths.meta_task(kind, last["generation"], variant, ".pgn"))[:SAMPLE_GAMES]
            sample = Path(scratch) / f"selfplay_gen{last['generation']:03d}_{variant}_sample.pgn"
            run.log_artifact(write_records(records, sample), "games")
    for path in (paths.meta_losses(kind), paths.meta_metrics(kind)):
        run.log_artifact(path, "dvc")
    description = f"{kind} after {len(manifests)} meta-generations on {', '.join(study.meta.train_variants)}" + (
        f" (epsilon {study.meta.epsilon})" if kind == "joat" else " (pooled data, same budget as joat)"
    )
    version = run.register_model(net, kind, description)
    get_run_logger().info("registered %s version %s (alias champion)", kind, version)
    return summary
