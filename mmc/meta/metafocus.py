"""MetaFocus: which trunk channels of the JOAT network adapt to a task, chosen from what the task looks like.

The seed project's "controlled dropout" meta-architecture. Standard dropout multiplies activations by a random binary
mask, so a GPU still multiplies full-size matrices; controlled dropout (Ko, Kim, Oh and Choi, "Controlled Dropout: a
different approach to using dropout on GPU", BigComp 2017) drops the same units for a whole minibatch by removing
their rows and columns from the weight matrices, so that the step runs on smaller dense matrices and leaves the
dropped units' weights as they were. MetaFocus keeps the structured, unit-level mask under which only the kept units
learn, but *chooses* the mask for each task with a learned policy instead of drawing it at random, and keeps every
channel in the forward pass: the adapted network is the JOAT network with some of its channels re-tuned, so a
dropped channel is frozen, not removed. The policy is trained with REINFORCE with a baseline (Williams, "Simple
statistical gradient-following algorithms for connectionist reinforcement learning", Machine Learning 8, 1992).

Definitions (``C`` = ``NetworkConfig.filters``)::

    trunk channels   the C output channels of the stem conv and BN and of every conv and BN of every residual block
                     (a trunk tensor's first axis is its output channel); a channel mask m is bool[C],
                     True = kept (learns), False = dropped (frozen at the start's values)
    task features    f = mean over the first `positions` self-play positions x_n of the task, and over the squares
                     of each, of trunk(x_n) (the tower's output, what the heads read): float32[C], network in eval
                     mode, no gradient. Only what the learner sees of a task, never its name: held-out variants
                     and 6x6 boards work alike
    focus model      p = sigmoid(W s + b), keep-probabilities float[C], with s = (f - mean f) / (std f + 1e-6)
                     over the C entries of f (population std, per call); W = 0 and b = logit(initial_keep) at
                     the start, so every p starts at initial_keep
    masks            training samples m_c ~ Bernoulli(p_c) independently; an adaptation (mmc.meta.adapt_many)
                     takes the mode m_c = [p_c >= 1/2] of the features of its own first FocusConfig.positions
                     self-play positions (deterministic)
    masked training  mmc.train's training of a copy in which the gradient of every trunk slice of a dropped
                     channel is zeroed; afterwards the dropped slices and their BN running mean and variance are
                     put back to the start's values exactly (weight decay and the running statistics move them
                     during training; the BN batch counters keep counting). The heads and the kept channels
                     learn; an all-True mask is plain training (mmc.train.trained_copy), bit for bit
    reward           r = score in [0, 1] of the adapted network against the start (the JOAT network), both
                     searching with `reward_simulations` simulations per move, `reward_games` games, colours
                     alternating
    REINFORCE        theta <- theta + learning_rate * sum_i (r_i - b) grad log pi(m_i | f_i), over the tasks i of
                     an iteration, with log pi(m | f) = sum_c m_c log p_c + (1 - m_c) log(1 - p_c) (plain SGD
                     ascent); the baseline b is the first iteration's mean reward, then after every step
                     b <- baseline_decay * b + (1 - baseline_decay) * mean_i r_i

Random streams of :func:`metafocus_train`, from its ``seed`` (``mmc.core.seeding``; the model's deterministic start
draws none): iteration ``i``'s tasks ``("tasks", i)``, and for each task ``t`` its self-play ``("self-play", i, t)``,
mask ``("mask", i, t)``, training ``("train", i, t)`` and reward match ``("reward", i, t)``.
"""

from __future__ import annotations

import copy
import json
import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional
from torch.utils.hooks import RemovableHandle

from mmc.core.atomic import atomic_write
from mmc.core.configs import Count, Range, check_fields, config_from_dict
from mmc.core.fanout import Job, Runner, serial
from mmc.core.seeding import derive, rng
from mmc.loops.alphazero import arena_match, play_games
from mmc.meta.reptile import sample_tasks
from mmc.nn.network import PolicyValueNet
from mmc.play.arena import MatchResult
from mmc.play.selfplay import SelfPlayResult
from mmc.search import SearchConfig
from mmc.train import Examples, TrainConfig, Trained, trained_copy

__all__ = [
    "FocusConfig",
    "FocusModel",
    "FocusStep",
    "MetaFocusConfig",
    "focus_mask",
    "load_focus",
    "log_likelihood",
    "masked_trained_copy",
    "metafocus_train",
    "mode_mask",
    "reinforce",
    "sample_mask",
    "save_focus",
    "task_features",
]

_TRUNK = ("stem_conv.", "stem_bn.", "tower.")
"""State-dict prefixes of the trunk; every such tensor but BN's batch counter has the channel as its first axis."""


_OPEN_UNIT = Range(0, 1, low_open=True, high_open=True)


@dataclass(frozen=True)
class FocusConfig:
    """Shape and start of a :class:`FocusModel` (saved beside its ``state_dict``, like ``NetworkConfig``)."""

    channels: Count
    """Trunk channels it masks: the JOAT network's ``filters``."""
    initial_keep: Annotated[float, _OPEN_UNIT] = 0.5
    """Keep-probability of every channel at the start."""
    positions: Count = 64
    """Self-play positions its task features average over (:func:`focus_mask`)."""

    def __post_init__(self) -> None:
        check_fields(self)

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict, in declaration order."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FocusConfig:
        """The config of ``data``; ``ValueError`` naming any unknown or missing key."""
        return config_from_dict(cls, data)


class FocusModel(nn.Module):
    """The focus policy: task features ``float32[C]`` -> keep-probabilities ``[C]`` (module docstring).

    :meth:`from_config` rebuilds the module of a saved config (:func:`save_focus`, :func:`load_focus`). Built on
    the meta device, so that torch's default initialisation draws nothing from the global RNG; the zero start draws
    nothing at all (REINFORCE needs no symmetry breaking in a linear policy), so the model takes no seed.
    """

    def __init__(self, channels: int, *, initial_keep: float = 0.5, positions: int = 64) -> None:
        super().__init__()
        self.config = FocusConfig(channels, initial_keep, positions)
        with torch.device("meta"):
            self.linear = nn.Linear(channels, channels)
        self.to_empty(device="cpu")
        self.reset_parameters()

    @classmethod
    def from_config(cls, config: FocusConfig | Mapping[str, Any]) -> FocusModel:
        """A fresh model of ``config`` (a :class:`FocusConfig` or its ``to_dict()``, say read from JSON); load the
        saved ``state_dict`` into it."""
        if not isinstance(config, FocusConfig):
            config = FocusConfig.from_dict(config)
        return cls(config.channels, initial_keep=config.initial_keep, positions=config.positions)

    @torch.no_grad()
    def reset_parameters(self) -> None:
        """``W = 0``, ``b = logit(initial_keep)``: every keep-probability at ``initial_keep`` for any features."""
        keep = self.config.initial_keep
        self.linear.weight.zero_()
        self.linear.bias.fill_(math.log(keep / (1 - keep)))

    def logits(self, features: np.ndarray | Tensor) -> Tensor:
        """``float32[C]`` task features -> ``[C]`` keep logits ``W s + b`` of the standardised features ``s``."""
        f = torch.as_tensor(features, dtype=torch.float32)
        if f.shape != (self.config.channels,):
            raise ValueError(f"expected task features of shape [{self.config.channels}], got {list(f.shape)}")
        standardised = (f - f.mean()) / (f.std(correction=0) + 1e-6)
        logits: Tensor = self.linear(standardised)
        return logits

    def keep_probabilities(self, features: np.ndarray | Tensor) -> Tensor:
        """``float32[C]`` task features -> ``[C]`` probabilities in (0, 1) that each channel is kept."""
        return torch.sigmoid(self.logits(features))

    def forward(self, features: Tensor) -> Tensor:
        return self.keep_probabilities(features)


def save_focus(model: FocusModel, path: str | os.PathLike[str]) -> Path:
    """``model``'s ``state_dict`` at ``path`` (``.pt``) and its :class:`FocusConfig` beside it (``.json``, indented,
    a final newline), each written atomically (``mmc.core.atomic``), the config first; the path."""
    weights = Path(path)
    weights.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(model.config.to_dict(), indent=2, sort_keys=False) + "\n"
    atomic_write(weights.with_suffix(".json"), lambda file: file.write(text.encode()))
    state = model.state_dict()
    atomic_write(weights, lambda file: torch.save(state, file))
    return weights


def load_focus(path: str | os.PathLike[str]) -> FocusModel:
    """The focus model :func:`save_focus` wrote at ``path``, in eval mode; ``FileNotFoundError`` naming a missing
    file."""
    weights = Path(path)
    for needed in (weights, weights.with_suffix(".json")):
        if not needed.is_file():
            raise FileNotFoundError(f"MetaFocus model file {needed} does not exist: run its metafocus stage first")
    model = FocusModel.from_config(json.loads(weights.with_suffix(".json").read_text()))
    model.load_state_dict(torch.load(weights, weights_only=True))
    model.eval()
    return model


def sample_mask(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``bool[C]``: channel ``c`` kept with probability ``probs[c]``, independently (a training draw)."""
    probs = np.asarray(probs, dtype=np.float64)
    return np.asarray(rng.random(probs.shape) < probs)


def mode_mask(probs: np.ndarray) -> np.ndarray:
    """``bool[C]``: the most likely mask, channel ``c`` kept where ``probs[c] >= 0.5`` (an adaptation's mask)."""
    return np.asarray(np.asarray(probs) >= 0.5)


@torch.no_grad()
def task_features(net: PolicyValueNet, examples: Sequence[Examples], positions: int) -> np.ndarray:
    """``float32[C]``: the trunk's output averaged over the squares of each of the first ``positions`` rows of
    ``examples`` (parts in order; any board sizes) and over those rows, ``net`` in eval mode (its mode restored)."""
    if isinstance(positions, bool) or not isinstance(positions, int) or positions < 1:
        raise ValueError(f"positions must be an int >= 1, got {positions!r}")
    outputs: list[Tensor] = []
    hook = net.tower.register_forward_hook(lambda _module, _inputs, output: outputs.append(output))
    device, was_training = next(net.parameters()).device, net.training
    net.eval()
    sums, count = torch.zeros(net.config.filters, dtype=torch.float64), 0
    try:
        for part in examples:
            planes = part.planes[: positions - count]
            if len(planes):
                net(torch.from_numpy(planes).to(device))
                sums += outputs.pop().mean(dim=(2, 3)).double().sum(dim=0).cpu()
                count += len(planes)
    finally:
        hook.remove()
        net.train(was_training)
    if count == 0:
        raise ValueError("task_features needs at least one position")
    return (sums / count).float().numpy()


def focus_mask(model: FocusModel, net: PolicyValueNet, examples: Sequence[Examples]) -> np.ndarray:
    """``bool[C]``: the mode mask of ``model`` on the features of ``net`` over the first ``model.config.positions``
    rows of ``examples`` (the task's own self-play): how an adaptation picks its channels."""
    features = task_features(net, examples, model.config.positions)
    with torch.no_grad():
        return mode_mask(model.keep_probabilities(features).numpy())


def _trunk(net: nn.Module, *, buffers: bool) -> dict[str, Tensor]:
    """The trunk's parameters (and with ``buffers``, its BN running statistics) by state-dict name."""
    named: dict[str, Tensor] = dict(net.named_parameters())
    if buffers:
        named |= {k: v for k, v in net.named_buffers() if not k.endswith("num_batches_tracked")}
    return {name: tensor for name, tensor in named.items() if name.startswith(_TRUNK)}


def _check_mask(net: PolicyValueNet, mask: np.ndarray) -> Tensor:
    keep = np.asarray(mask)
    if keep.dtype != np.bool_ or keep.shape != (net.config.filters,):
        raise ValueError(f"a channel mask is bool[{net.config.filters}], got {keep.dtype}{list(keep.shape)}")
    return torch.from_numpy(keep.copy())


def masked_trained_copy(
    net: PolicyValueNet, examples: Sequence[Examples], config: TrainConfig, seed: np.random.SeedSequence,
    device: str, mask: np.ndarray,
) -> Trained:  # fmt: skip
    """:func:`mmc.train.trained_copy` in which only the trunk channels where ``mask`` (``bool[C]``) is True learn:
    the dropped channels' trunk slices and BN running statistics are those of ``net`` exactly; the heads learn.

    Gradient hooks on the copy (``trained_copy``'s ``hooks``) zero the dropped channels' gradients; after training
    their weights and running statistics are copied back from ``net`` exactly (weight decay and the batch
    statistics move them meanwhile). An all-True mask gives ``trained_copy``'s result bit for bit.
    """
    keep = _check_mask(net, mask)

    def zero_dropped(copy: PolicyValueNet) -> list[RemovableHandle]:
        return [p.register_hook(_zero_dropped(keep.to(p.device))) for p in _trunk(copy, buffers=False).values()]

    trained = trained_copy(net, examples, config, seed, device, hooks=zero_dropped)
    start = _trunk(net, buffers=True)
    with torch.no_grad():
        for name, tensor in _trunk(trained.net, buffers=True).items():
            tensor[~keep] = start[name].detach().cpu()[~keep]
    return trained


def _zero_dropped(keep: Tensor) -> Any:
    def hook(grad: Tensor) -> Tensor:
        return grad.masked_fill(~keep.view(-1, *[1] * (grad.dim() - 1)), 0.0)

    return hook


def log_likelihood(model: FocusModel, features: np.ndarray, mask: np.ndarray) -> Tensor:
    """``log pi(mask | features) = sum_c m_c log p_c + (1 - m_c) log(1 - p_c)``, a differentiable scalar."""
    target = torch.as_tensor(np.asarray(mask), dtype=torch.float32)
    return -functional.binary_cross_entropy_with_logits(model.logits(features), target, reduction="sum")


def reinforce(
    model: FocusModel, features: Sequence[np.ndarray], masks: Sequence[np.ndarray], rewards: Sequence[float],
    baseline: float, learning_rate: float,
) -> float:  # fmt: skip
    """One REINFORCE step in place: ``theta += learning_rate * grad sum_i (rewards[i] - baseline) log pi(masks[i] |
    features[i])`` (plain SGD ascent). Returns the mean reward, for the caller's moving-average baseline."""
    if not len(features) == len(masks) == len(rewards) >= 1:
        raise ValueError(f"reinforce needs as many features, masks and rewards, at least one: "
                         f"{len(features)}, {len(masks)}, {len(rewards)}")  # fmt: skip
    model.zero_grad(set_to_none=True)
    terms = [(r - baseline) * log_likelihood(model, f, m) for f, m, r in zip(features, masks, rewards, strict=True)]
    torch.stack(terms).sum().backward()
    with torch.no_grad():
        for parameter in model.parameters():
            assert parameter.grad is not None
            parameter.add_(parameter.grad, alpha=learning_rate)
    model.zero_grad(set_to_none=True)
    return float(np.mean(rewards))


@dataclass(frozen=True)
class MetaFocusConfig:
    """MetaFocus meta-training: the REINFORCE loop over train variants (:func:`metafocus_train`)."""

    iterations: Count = 6
    """REINFORCE steps."""
    tasks: Count = 2
    """Variants per iteration, drawn without replacement from the train variants."""
    games: Count = 24
    """Self-play games of each task's masked adaptation."""
    positions: Count = 64
    """Self-play positions the task features average over (also the trained model's, :class:`FocusConfig`)."""
    reward_games: Count = 8
    """Games of the adapted network against the JOAT network; its score is the reward."""
    reward_simulations: Count = 16
    """Simulations per move of both sides in the reward match."""
    learning_rate: Annotated[float, Range(0, math.inf, low_open=True, high_open=True)] = 0.2
    """REINFORCE's SGD step. The features are standardised, so one task's step moves its logits about
    ``channels + 1`` times as far as the bias alone: with 32 channels and an advantage of 0.125 (one game of 8)
    a logit moves by about ``0.2 * 0.125 * 0.5 * 33 = 0.4``; 0.5 saturated the probabilities within a few steps."""
    baseline_decay: Annotated[float, Range(0, 1, high_open=True)] = 0.8
    """Decay in [0, 1) of the moving-average reward baseline."""
    initial_keep: Annotated[float, _OPEN_UNIT] = 0.5
    """Keep-probability of every channel at the start."""
    epochs: Count = 8
    """Training passes of each masked adaptation (replaces ``train.epochs``)."""
    concurrent: Count = 64
    """Self-play games searched together in one job."""
    max_plies: Count = 150
    """Ply cap of the self-play and reward games."""

    def __post_init__(self) -> None:
        check_fields(self)

    def training(self, train: TrainConfig) -> TrainConfig:
        """The masked adaptations' training: ``train`` with these epochs and one thread (the tasks train side by
        side)."""
        return replace(train, epochs=self.epochs, threads=1)


@dataclass(frozen=True)
class FocusStep:
    """What one MetaFocus iteration did."""

    index: int
    tasks: list[str]
    """The iteration's variants, in order."""
    features: dict[str, np.ndarray]
    """Each task's features ``float32[C]``."""
    keep_probabilities: dict[str, np.ndarray]
    """Each task's keep-probabilities ``float32[C]``, before the step."""
    masks: dict[str, np.ndarray]
    """Each task's sampled mask ``bool[C]``."""
    rewards: dict[str, float]
    """Each task's reward: the adapted network's score against the JOAT network, in [0, 1]."""
    baseline: float
    """The baseline this step's advantages ``r - baseline`` were taken against."""
    model: FocusModel = field(repr=False)
    """The focus model after the step (a copy)."""


def metafocus_train(
    joat: PolicyValueNet, variants: Sequence[str], config: MetaFocusConfig, search: SearchConfig,
    training: TrainConfig, seed: np.random.SeedSequence, device: str = "cpu", *, run: Runner = serial,
) -> Iterator[FocusStep]:  # fmt: skip
    """``config.iterations`` REINFORCE steps of a :class:`FocusModel` for ``joat`` (left untouched) over tasks drawn
    from ``variants``, yielding each. Per iteration ``i``, tasks ``t`` (jobs named ``{kind}-{t}-gen{i:03d}``, every
    network on ``device``): ``self-play`` with ``joat``; features and a sampled mask here; ``train`` a masked copy;
    ``reward``, the copy against ``joat``; then the step and the baseline update."""
    if len(set(variants)) < len(variants) or config.tasks > len(variants):
        raise ValueError(f"metafocus_train needs >= tasks={config.tasks} distinct variants, got {list(variants)}")
    model = FocusModel(joat.config.filters, initial_keep=config.initial_keep, positions=config.positions)
    baseline: float | None = None
    inner = config.training(training)
    for index in range(config.iterations):
        tasks = sample_tasks(list(variants), None, config.tasks, rng(derive(seed, "tasks", index)))
        played: list[SelfPlayResult] = run([
            _job("self-play", index, task, play_games, net=joat, variant=task, games=config.games, search=search,
                 seed=derive(seed, "self-play", index, task), concurrent=config.concurrent,
                 max_plies=config.max_plies, device=device)
            for task in tasks
        ])  # fmt: skip
        features = [task_features(joat, result.examples, config.positions) for result in played]
        with torch.no_grad():
            keep = [model.keep_probabilities(f).numpy() for f in features]
        masks = [sample_mask(p, rng(derive(seed, "mask", index, task))) for p, task in zip(keep, tasks, strict=True)]
        trained: list[Trained] = run([
            _job("train", index, task, masked_trained_copy, net=joat, examples=result.examples, config=inner,
                 seed=derive(seed, "train", index, task), device=device, mask=mask)
            for task, result, mask in zip(tasks, played, masks, strict=True)
        ])  # fmt: skip
        matches: list[MatchResult] = run([
            _job("reward", index, task, arena_match, candidate=adapted.net, champion=joat, variant=task,
                 games=config.reward_games, simulations=config.reward_simulations,
                 seed=derive(seed, "reward", index, task), max_plies=config.max_plies, precision=search.precision,
                 device=device)
            for task, adapted in zip(tasks, trained, strict=True)
        ])  # fmt: skip
        rewards = [match.score for match in matches]
        used = float(np.mean(rewards)) if baseline is None else baseline
        mean = reinforce(model, features, masks, rewards, used, config.learning_rate)
        baseline = config.baseline_decay * used + (1 - config.baseline_decay) * mean
        yield FocusStep(index, tasks, _by(tasks, features), _by(tasks, keep), _by(tasks, masks), _by(tasks, rewards),
                        used, copy.deepcopy(model))  # fmt: skip


def _job(kind: str, index: int, task: str, fn: Callable[..., Any], **kwargs: Any) -> Job[Any]:
    """Job ``{kind}-{task}-gen{index:03d}``: ``fn(**kwargs)``."""
    return Job(kind, (f"{task}-gen{index:03d}",), fn, kwargs)


def _by(tasks: Sequence[str], values: Sequence[Any]) -> dict[str, Any]:
    return dict(zip(tasks, values, strict=True))
