"""Stage ``adapt@{target}``: every starting model adapted to ``target`` with every budget (few-shot adaptation).

A start is ``joat`` or ``multitask`` (``models/starts``), ``expert-V`` (``models/champion/V.pt``) or ``scratch``
(a network initialised from the study's seed, the same for every target). For a budget of ``b`` self-play
games the adaptation is at most one AlphaZero iteration (``mmc.meta.adapt``): ``b`` games of self-play with the
start (one ``self-play`` task run), then one training of a copy on them (one ``train`` task run); budget 0 is
the start unchanged. All the starts' self-play of one target and budget draws from the same seed (common
random numbers: differences between starts come from the starts).

Each adapted model is written as ``models/adapted/{t}/{start}_b{budget}.pt`` with a done marker written last
(a killed stage redoes only unfinished ones; the folders persist), logged to the stage's MLflow run, and its
losses go to ``metrics/adapt/{t}.json``.
"""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch
from prefect import flow, get_run_logger
from prefect.futures import PrefectFuture
from prefect.runtime import flow_run

from mmc.nn import PolicyValueNet, build_network, load_checkpoint, save_checkpoint
from mmc.nn.checkpoint import config_path
from mmc.play import read_records, write_records
from mmc.train import EpochLosses, save_examples
from pipelines import tracking
from pipelines.config import SCRATCH, StudyConfig, flatten
from pipelines.files import as_json, checked_json, file_hashes, remove_temporaries, tree_sha256, write_json
from pipelines.paths import ADAPT_CODE, Paths
from pipelines.runners import single_threaded
from pipelines.seeds import NETWORK_INIT, int_seed, seed_sequence, torch_generator
from pipelines.tasks import SelfPlayJob, Timed, self_play_task, train_task

__all__ = ["adapt_flow", "load_start", "start_path"]

STAGE = "adapt"


def start_path(paths: Paths, start: str) -> Path | None:
    """The checkpoint of a starting model (``None`` for ``scratch``, which is made from the seed)."""
    if start == SCRATCH:
        return None
    if start.startswith("expert-"):
        return paths.champion(start.removeprefix("expert-"))
    return paths.start_model(start)


def load_start(paths: Paths, study: StudyConfig, start: str) -> PolicyValueNet:
    """The starting model ``start`` in eval mode."""
    path = start_path(paths, start)
    if path is None:
        return build_network(study.network, int_seed(seed_sequence(study.seed, SCRATCH, "network", NETWORK_INIT)))
    if not path.is_file():
        raise FileNotFoundError(f"starting model {start!r}: {path} does not exist (run its stage first)")
    return load_checkpoint(path)[0]


@flow(name="adapt", flow_run_name="adapt-{target}", validate_parameters=False)
def adapt_flow(target: str, study: StudyConfig, root: Path) -> dict[str, Any]:
    """Adapt every start to ``target`` with every budget under ``root``; the metrics (``metrics/adapt/{t}.json``)."""
    logger = get_run_logger()
    torch.set_num_threads(1)
    paths = Paths(root)
    config = study.adapt
    starts = {start: load_start(paths, study, start) for start in config.starts}
    code = tree_sha256(paths.root, ADAPT_CODE)
    for folder in (paths.adapted_dir(target), paths.adapt_data_dir(target)):
        remove_temporaries(folder)
        folder.mkdir(parents=True, exist_ok=True)
    with tracking.stage_run(paths, STAGE, target, flow_run.id) as run:
        run.log_params(flatten(_logged_params(study, target)))
        results: dict[tuple[str, int], dict[str, Any]] = {}
        pending: dict[tuple[str, int], PrefectFuture[Any]] = {}
        for budget in config.budgets:
            for start, net in starts.items():
                fingerprint = _fingerprint(study, target, start, budget, net, code)
                done = checked_json(paths.root, paths.adapted(target, start, budget, ".done.json"))
                if done is not None and done["fingerprint"] == fingerprint:
                    results[start, budget] = done
                elif budget == 0:
                    results[start, budget] = _save(paths, target, start, budget, net, [], None, fingerprint, 0.0)
                else:
                    pending[start, budget] = self_play_task.submit(net, _job(study, target, budget))
        trains = {}
        for (start, budget), future in pending.items():
            played: Timed[Any] = future.result()
            generator = torch_generator(seed_sequence(study.seed, STAGE, target, budget, purpose=f"train/{start}"))
            (examples,) = played.value.examples
            training = study.adapt.training(study.train)
            future = train_task.submit(starts[start], [examples], training, generator, target, budget)
            trains[start, budget] = (played, future)
        for (start, budget), (played, trained_future) in trains.items():
            trained: Timed[tuple[PolicyValueNet, list[EpochLosses]]] = trained_future.result()
            fingerprint = _fingerprint(study, target, start, budget, starts[start], code)
            results[start, budget] = _save(
                paths, target, start, budget, trained.value[0], trained.value[1], played,
                fingerprint, played.seconds + trained.seconds,
            )  # fmt: skip
            logger.info("%s adapted to %s with %d games: %s", start, target, budget, _describe(results[start, budget]))
        metrics = {
            start: {f"b{budget}": _summary(results[start, budget]) for budget in config.budgets}
            for start in config.starts
        }
        write_json(paths.adapt_metrics(target), metrics)
        run.log_metrics({k: v for k, v in flatten(metrics).items() if isinstance(v, int | float)})
        run.log_artifact(paths.adapt_metrics(target), "dvc")
        for start in config.starts:
            for budget in config.budgets:
                model = paths.adapted(target, start, budget)
                run.log_artifact(model, f"models/{model.stem}")
                run.log_artifact(config_path(model), f"models/{model.stem}")
        _log_sample(paths, target, run)
    return metrics


def _job(study: StudyConfig, target: str, budget: int) -> SelfPlayJob:
    return SelfPlayJob(
        target,
        0,
        budget,
        budget,
        0,
        study.search,
        study.adapt.concurrent,
        study.adapt.max_plies,
        seed_sequence(study.seed, STAGE, target, budget, purpose="self-play"),
        single_threaded(study.runner),
    )


def _fingerprint(
    study: StudyConfig, target: str, start: str, budget: int, net: PolicyValueNet, code: str
) -> dict[str, Any]:
    """What one adapted model depends on: the start's weights, the settings and the code."""
    return as_json(
        {
            "seed": study.seed,
            "target": target,
            "start": start,
            "budget": budget,
            "start_weights": _weights_digest(net),
            "search": asdict(study.search),
            "train": asdict(study.train),
            "concurrent": study.adapt.concurrent,
            "max_plies": study.adapt.max_plies,
            "code": code,
        }
    )


def _weights_digest(net: PolicyValueNet) -> str:
    digest = hashlib.sha256()
    for key, tensor in net.state_dict().items():
        digest.update(key.encode())
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()


def _save(
    paths: Paths,
    target: str,
    start: str,
    budget: int,
    net: PolicyValueNet,
    losses: list[EpochLosses],
    played: Timed[Any] | None,
    fingerprint: dict[str, Any],
    seconds: float,
) -> dict[str, Any]:
    """Write the adapted model (and its self-play), then the done marker listing them."""
    model = save_checkpoint(net, net.config, paths.adapted(target, start, budget))
    files = [model, config_path(model)]
    games = plies = examples = 0
    if played is not None:
        (data,) = played.value.examples
        files.append(save_examples(data, paths.adapt_games(target, start, budget, ".npz")))
        files.append(write_records(played.value.records, paths.adapt_games(target, start, budget, ".pgn")))
        games, plies, examples = len(played.value.records), played.value.plies, len(data.value)
    done = {
        "target": target,
        "start": start,
        "budget": budget,
        "games": games,
        "plies": plies,
        "examples": examples,
        "seconds": round(seconds, 3),
        "losses": [{"policy": e.policy, "value": e.value, "total": e.total} for e in losses],
        "fingerprint": fingerprint,
        "files": file_hashes(paths.root, files),
    }
    write_json(paths.adapted(target, start, budget, ".done.json"), done)
    return done


def _summary(done: dict[str, Any]) -> dict[str, Any]:
    last = done["losses"][-1] if done["losses"] else None
    return {
        "games": done["games"],
        "examples": done["examples"],
        "seconds": done["seconds"],
        **({f"loss_{k}": round(last[k], 6) for k in ("policy", "value", "total")} if last else {}),
    }


def _describe(done: dict[str, Any]) -> str:
    last = done["losses"][-1]
    return (
        f"{done['examples']} examples, loss policy {last['policy']:.3f} value {last['value']:.3f} "
        f"({done['seconds']:.0f}s)"
    )


def _log_sample(paths: Paths, target: str, run: tracking.StageRun) -> None:
    """The first games of the largest adaptation of each start, as one game file."""
    games = sorted(paths.adapt_data_dir(target).glob("*.pgn"))
    if not games:
        return
    with tempfile.TemporaryDirectory() as scratch:
        records = [record for path in games for record in read_records(path)[:1]]
        run.log_artifact(write_records(records, Path(scratch) / f"adapt_{target}_sample.pgn"), "games")


def _logged_params(study: StudyConfig, target: str) -> dict[str, Any]:
    return {
        "seed": study.seed,
        "target": target,
        "adapt": asdict(study.adapt),
        "search": asdict(study.search),
        "train": asdict(study.train),
        "runner": asdict(study.runner),
    }
