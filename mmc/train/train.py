"""Training the policy-value network on self-play examples (AlphaZero's loss, SGD with momentum).

The loss of a minibatch is AlphaZero's (Silver et al. 2018, eq. 1, its L2 term left to the optimizer)::

    l = value_loss_weight * mean (z - v)^2  -  mean sum_a pi_a log p_a

where ``z`` is the value target and ``v`` the network's value, both from the side to move's view, ``pi`` the
search policy target and ``p`` the network's policy, a softmax over the legal actions only
(:func:`mmc.nn.masked_log_softmax`). The value target is the game result ``r``, discounted by
``value_discount`` (``gamma``) per ply to the game's end and mixed with the root search's value ``q`` of the
position with ``search_value_weight`` (``w``)::

    z = (1 - w) * r * gamma ** plies_left + w * q

With a moves-left head (``NetworkConfig.moves_left``) and ``moves_left_weight`` ``u > 0`` the loss adds
``u * mean huber(m / U, plies_left / U)``, ``m`` the head's plies to the end and ``U`` ``mmc.nn.MOVES_LEFT_UNIT``
(Lc0's moves-left head; the search reads it with ``SearchConfig.moves_left_slope``).

``w = 0, gamma = 1`` is AlphaZero's target. ``q`` says what the position was worth to a search, the result what
became of it (a blunder twenty plies later included); the mix has less variance than the result alone. The
discount makes a win sooner worth more than a win later (and a loss later less bad than one sooner), so that a
search steers won positions to the end instead of drifting into a draw.

The optimizer is SGD with momentum and (coupled, L2) weight decay, as in AlphaZero: the study replicates
its recipe, and an L2 penalty through the optimizer is exactly the paper's ``c ||theta||^2`` term. AdamW
would converge faster at the start but changes the regulariser and adds two more knobs to every
cross-variant comparison.

A minibatch never mixes board sizes (5x5 and 6x6 rows cannot share a tensor): each size's rows are
shuffled and cut into minibatches, and the minibatches of all sizes are shuffled together, so sizes
interleave through each epoch in proportion to their rows. All randomness (shuffles, symmetry draws)
comes from the ``torch.Generator`` passed in: the same seed, data and starting weights give the same
weights on the same device and thread count.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from copy import deepcopy
from dataclasses import asdict, dataclass
from typing import Annotated, Any

import numpy as np
import torch
from torch import Tensor, nn
from torch.utils.hooks import RemovableHandle

from mmc.core.configs import ConfigError, Count, Range, check_fields, config_from_dict
from mmc.core.seeding import torch_generator
from mmc.games import get_game
from mmc.nn.device import resolve_device
from mmc.nn.network import MOVES_LEFT_UNIT, PolicyValueNet, masked_log_softmax
from mmc.train.examples import Examples, group_by_size

__all__ = [
    "LR_SCHEDULES",
    "EpochLosses",
    "TrainConfig",
    "Trained",
    "learning_rate_at",
    "replay_window",
    "replay_window_positions",
    "train",
    "trained_copy",
    "value_target",
]

logger = logging.getLogger(__name__)

_FINITE_NON_NEGATIVE = Range(0.0, math.inf, high_open=True)
LR_SCHEDULES = ("constant", "cosine")
"""``TrainConfig.lr_schedule``'s values."""


@dataclass(frozen=True)
class TrainConfig:
    """How :func:`train` fits the network to one generation's replay window."""

    epochs: Count = 4
    """Passes over the examples."""
    batch_size: Count = 256
    """Rows per minibatch (the last minibatch of each board size may be smaller)."""
    learning_rate: Annotated[float, Range(0.0, math.inf, low_open=True, high_open=True)] = 0.02
    """SGD step size (AlphaZero: 0.2 at batch 4096; scaled down for batch 256)."""
    momentum: Annotated[float, Range(0.0, 1.0, high_open=True)] = 0.9
    """SGD momentum, in [0, 1)."""
    weight_decay: Annotated[float, _FINITE_NON_NEGATIVE] = 1e-4
    """L2 penalty on every parameter, through the optimizer (AlphaZero's ``c``)."""
    value_loss_weight: Annotated[float, _FINITE_NON_NEGATIVE] = 1.0
    """Weight of the value MSE against the policy cross-entropy."""
    search_value_weight: Annotated[float, Range(0, 1)] = 0.0
    """Weight ``w`` in [0, 1] of the root search's value in the value target ``(1 - w) * result + w * q``
    (0: the game result alone, AlphaZero's target)."""
    value_discount: Annotated[float, Range(0, 1, low_open=True)] = 0.99
    """``gamma`` in (0, 1]: the result counts ``gamma ** plies_left`` in the value target (1: undiscounted)."""
    augment_mirror: bool = True
    """Augment with the board symmetries of the game (``Game.symmetries``; in chess the left-right mirror, see
    ``mmc.games.chess.mirror``): every time a row is drawn it is transformed by one of the symmetries its board
    size's variants all keep, or by none, each with equal probability (in chess: mirrored with probability 1/2,
    never on a board size with a variant the mirror breaks, chess's 8x8)."""
    lr_schedule: str = "constant"
    """The learning rate across one training's minibatch steps (:data:`LR_SCHEDULES`): ``constant``, or ``cosine``
    from ``learning_rate`` down to ``lr_floor * learning_rate`` at the last step (Loshchilov & Hutter 2017, one
    cycle, no restarts). Each generation's training starts a new schedule, as it starts a new optimizer."""
    lr_floor: Annotated[float, Range(0, 1)] = 0.1
    """``cosine``: the last step's learning rate as a fraction of ``learning_rate``, in [0, 1] (unused by
    ``constant``)."""
    policy_surprise: Annotated[float, Range(0, 1)] = 0.0
    """KataGo's policy-surprise weighting (Wu 2019, sec. 3.3), in [0, 1]: before the first step, every row's
    KL(policy target || the network's prior) is measured once, and each row's losses count
    ``1 - s + s * KL / mean KL`` instead of 1 (a mean of 1 over the rows): the fraction ``s`` of the weight moves to
    the rows whose target surprises the network most (a mate its prior misses); the epoch losses are the weighted
    ones. 0: every row counts 1, as AlphaZero."""
    convert_weight: Annotated[float, Range(1.0, math.inf, high_open=True)] = 1.0
    """The weight of a won game's last moves by its winner, >= 1 (issue 34: the conversion of a won position, the
    mate and the moves that lead to it without a stalemate, is a few rows per decisive game): the rows whose side
    to move went on to win with at most ``convert_plies`` plies to the end count ``convert_weight`` times the
    others, the weights scaled to a mean of 1 over the rows (with :attr:`policy_surprise`, the product of the two
    weights so scaled). 1: every row counts the same."""
    convert_plies: Count = 1
    """The plies to the end within which a winner's row counts :attr:`convert_weight` times (1: the winning move
    alone, a mate in one in chess)."""
    moves_left_weight: Annotated[float, _FINITE_NON_NEGATIVE] = 0.0
    """Weight of the moves-left head's loss (module docstring; Lc0's head), > 0 only for a network with the head
    (``NetworkConfig.moves_left``). 0: the head, if any, is not trained."""
    threads: Count = 2
    """Torch threads of a training job (:func:`trained_copy`). A result depends on them (a step's float sums
    run in another order), so they are a training setting, the same wherever the job runs, never the runner's.
    2 for the trainings that run alone (an expert's generation, the multitask network: the second core would
    idle); JOAT's inner updates and the adaptations run side by side, with 1 (their loops set it)."""

    def __post_init__(self) -> None:
        check_fields(self)
        if self.lr_schedule not in LR_SCHEDULES:
            raise ConfigError(
                "TrainConfig", "lr_schedule", f"must be one of {', '.join(LR_SCHEDULES)}, got {self.lr_schedule!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict, in declaration order."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrainConfig:
        """The config of ``data``; ``ValueError`` naming any unknown or missing key."""
        return config_from_dict(cls, data)


@dataclass(frozen=True)
class EpochLosses:
    """Mean losses of one epoch, over its rows (each minibatch weighted by its size)."""

    policy: float
    """Cross-entropy of the policy target against the network's policy over the legal actions (nats)."""
    value: float
    """Mean squared error of the value (the result is in [-1, 1], so at most 4)."""
    total: float
    """``policy + value_loss_weight * value`` (plus ``moves_left_weight`` times the moves-left head's loss where it
    trains, :attr:`TrainConfig.moves_left_weight`): what the optimizer minimised."""


def replay_window(generations: Sequence[Sequence[Examples]], window: int) -> list[Examples]:
    """The rows of the last ``window`` generations (each a sequence of :class:`Examples`), one per board size.

    Sorted by ``(H, W)``; rows keep their order, oldest generation first. ``ValueError`` if ``window < 1``.
    """
    if type(window) is not int or window < 1:
        raise ValueError(f"replay window must be an int >= 1, got {window!r}")
    return group_by_size(part for generation in generations[-window:] for part in generation)


def learning_rate_at(step: int, steps: int, config: TrainConfig) -> float:
    """The learning rate of minibatch step ``step`` of ``steps`` (0-based) under ``config.lr_schedule``: constant,
    or ``lr * (floor + (1 - floor) * (1 + cos(pi * step / (steps - 1))) / 2)``, ``lr`` at the first step and
    ``floor * lr`` at the last."""
    if config.lr_schedule == "constant" or steps <= 1:
        return config.learning_rate
    decay = 0.5 * (1.0 + math.cos(math.pi * step / (steps - 1)))
    return config.learning_rate * (config.lr_floor + (1.0 - config.lr_floor) * decay)


def replay_window_positions(generations: Sequence[Sequence[Examples]], positions: int) -> list[Examples]:
    """The newest ``positions`` rows of ``generations`` (each a sequence of :class:`Examples`, oldest first), one
    :class:`Examples` per board size: whole generations, newest first, then the newest rows of the oldest one
    reached (of its largest board size first; a generation's rows are in the order its games finished). Fewer
    when the generations hold fewer. Sorted by ``(H, W)``, rows in order, oldest first. ``ValueError`` if
    ``positions < 1``."""
    if type(positions) is not int or positions < 1:
        raise ValueError(f"replay window in positions must be an int >= 1, got {positions!r}")
    kept: list[Examples] = []
    left = positions
    for generation in reversed(generations):
        for part in reversed(group_by_size(generation)):
            n = min(len(part), left)
            if n:
                kept.insert(0, part if n == len(part) else part.take(np.arange(len(part) - n, len(part))))
            left -= n
        if left == 0:
            break
    return group_by_size(kept)


@dataclass(frozen=True)
class _Batch:
    planes: Tensor  # float32[B, NUM_PLANES, H, W]
    policy: Tensor  # float32[B, NUM_POLICY_PLANES, H, W]
    legal: Tensor  # bool[B, NUM_POLICY_PLANES, H, W]
    value: Tensor  # float32[B]: the value target
    plies_left: Tensor  # float32[B]: the plies to the game's end (the moves-left target)


def value_target(examples: Examples, config: TrainConfig) -> np.ndarray:
    """``float32[N]``: ``(1 - w) * result * gamma ** plies_left + w * search value`` of every row (module docstring)."""
    value = examples.value
    if config.value_discount < 1:
        value = value * np.power(config.value_discount, examples.plies_left, dtype=np.float64)
    w = config.search_value_weight
    if w > 0:
        value = (1 - w) * value + w * examples.search_value
    return np.asarray(value, dtype=np.float32)


def _as_batch(examples: Examples, config: TrainConfig) -> _Batch:
    """All rows as CPU tensors (the arrays' memory shared where the value target is the result alone)."""
    arrays = (examples.planes, examples.policy, examples.legal, value_target(examples, config),
              examples.plies_left.astype(np.float32))  # fmt: skip
    return _Batch(*(torch.from_numpy(a) for a in arrays))


def _minibatches(sizes: Sequence[int], batch_size: int, generator: torch.Generator) -> list[tuple[int, Tensor]]:
    """One epoch's minibatches, ``(group, int64[B] row indices)``: each group shuffled and cut, then all shuffled."""
    batches: list[tuple[int, Tensor]] = []
    for group, size in enumerate(sizes):
        order = torch.randperm(size, generator=generator)
        batches += [(group, rows) for rows in order.split(batch_size)]
    order = torch.randperm(len(batches), generator=generator)
    return [batches[i] for i in order.tolist()]


Symmetry = Callable[[Tensor, Tensor, Tensor], tuple[Tensor, Tensor, Tensor]]


def _draw(data: _Batch, rows: Tensor, symmetries: Sequence[Symmetry], generator: torch.Generator,
          device: torch.device) -> _Batch:  # fmt: skip
    """The rows ``rows`` on ``device``, each transformed by one of ``symmetries`` or by none (equally likely): row
    ``i`` by ``symmetries[j]`` where ``floor(u_i * (len(symmetries) + 1)) == j``, ``u_i ~ U[0, 1)``."""
    fields = (data.planes, data.policy, data.legal, data.value, data.plies_left)
    batch = _Batch(*(t.index_select(0, rows).to(device) for t in fields))
    if not symmetries:
        return batch
    draw = torch.rand(len(rows), generator=generator)
    planes, policy, legal = batch.planes, batch.policy, batch.legal
    for j, transform in enumerate(symmetries):
        pick = (draw < (j + 1) / (len(symmetries) + 1)) & (draw >= j / (len(symmetries) + 1))
        pick = pick.to(device)[:, None, None, None]
        moved_planes, moved_policy, moved_legal = transform(batch.planes, batch.policy, batch.legal)
        planes = torch.where(pick, moved_planes, planes)
        policy = torch.where(pick, moved_policy, policy)
        legal = torch.where(pick, moved_legal, legal)
    return _Batch(planes, policy, legal, batch.value, batch.plies_left)


def _symmetries(examples: Examples, config: TrainConfig) -> Sequence[Symmetry]:
    """The symmetries every variant of ``examples`` keeps (none without ``config.augment_mirror``); ``ValueError``
    if the rows come from two game families (one network plays one family)."""
    variants = sorted(set(examples.variant.tolist()))
    families = {get_game(v).name for v in variants}
    if len(families) > 1:
        raise ValueError(f"examples of one network come from one game family, got {', '.join(sorted(families))}")
    game = get_game(variants[0])
    if not config.augment_mirror or game.symmetries is None:
        return []
    return list(game.symmetries(variants))


def _losses(net: PolicyValueNet, batch: _Batch, weight: Tensor | None = None, *,
            moves_left: bool = False) -> tuple[Tensor, Tensor, Tensor | None]:  # fmt: skip
    """``(policy cross-entropy, value MSE, moves-left Huber loss)`` of one minibatch, each a scalar mean over its
    rows (each row counted ``weight[row]`` times when given: :func:`row_weights`); the third ``None`` unless
    ``moves_left`` (module docstring)."""
    if moves_left:
        logits, value, plies = net.heads(batch.planes)
    else:
        (logits, value), plies = net(batch.planes), None
    log_p = masked_log_softmax(logits.flatten(1), batch.legal.flatten(1))
    cross_entropy = -(batch.policy.flatten(1) * log_p).sum(dim=1)
    squared = (value - batch.value) ** 2
    huber = None
    if plies is not None:
        huber = nn.functional.huber_loss(plies / MOVES_LEFT_UNIT, batch.plies_left / MOVES_LEFT_UNIT, reduction="none")
    if weight is None:
        return cross_entropy.mean(), torch.mean(squared), None if huber is None else huber.mean()
    weighted_huber = None if huber is None else (weight * huber).mean()
    return (weight * cross_entropy).mean(), (weight * squared).mean(), weighted_huber


def policy_priors(net: PolicyValueNet, examples: Examples, batch_size: int = 1024) -> Iterator[tuple[Tensor, Tensor]]:
    """``(target, log prior)`` of ``examples``' rows (one board size), ``batch_size`` rows at a time, both
    ``float32[b, A]`` on the CPU: each row's policy target and ``net``'s log-prior over its legal actions, the
    network in eval mode (its mode given back at the end) without gradients."""
    device = next(net.parameters()).device
    was_training = net.training
    net.eval()
    try:
        with torch.no_grad():
            for start in range(0, len(examples), batch_size):
                rows = slice(start, start + batch_size)
                logits, _ = net(torch.from_numpy(examples.planes[rows]).to(device))
                legal = torch.from_numpy(examples.legal[rows]).flatten(1)
                target = torch.from_numpy(examples.policy[rows]).flatten(1)
                yield target, masked_log_softmax(logits.flatten(1).float().cpu(), legal)
    finally:
        net.train(was_training)


def target_divergence(target: Tensor, log_prior: Tensor) -> Tensor:
    """``[b]``: KL(target || prior) of each row in nats, from ``[b, A]`` targets and log-priors."""
    log_target = torch.where(target > 0, target, 1.0).log()
    return torch.where(target > 0, target * (log_target - log_prior), 0.0).sum(dim=1)


def surprise_weights(net: PolicyValueNet, groups: Sequence[Examples], share: float, device: torch.device,
                     batch_size: int = 1024) -> list[Tensor]:  # fmt: skip
    """Each group's row weights ``1 - share + share * KL / mean KL`` (:attr:`TrainConfig.policy_surprise`), on
    ``device``: the KL of each row's policy target from ``net``'s prior (:func:`policy_priors`), the mean over
    every row of every group of ``groups`` (one board size each); all 1 when no target surprises the network."""
    divergences = [
        torch.cat([target_divergence(*pair) for pair in policy_priors(net, group, batch_size)] or [torch.zeros(0)])
        for group in groups
    ]
    mean = torch.cat(divergences).mean()
    if not mean > 0:
        return [torch.ones(len(d), device=device) for d in divergences]
    return [(1 - share + share * d / mean).to(device) for d in divergences]


def conversion_weights(groups: Sequence[Examples], weight: float, plies: int) -> list[np.ndarray]:
    """Each group's ``float32`` row weights (:attr:`TrainConfig.convert_weight`): ``weight`` for the rows whose side
    to move won (``value`` +1) with at most ``plies`` plies left, 1 for the others, all scaled to a mean of 1 over
    every row of every group of ``groups``."""
    raw = [np.where((g.value > 0) & (g.plies_left <= plies), weight, 1.0) for g in groups]
    mean = np.concatenate(raw).mean()
    return [(r / mean).astype(np.float32) for r in raw]


def row_weights(net: PolicyValueNet, groups: Sequence[Examples], config: TrainConfig,
                device: torch.device) -> list[Tensor] | None:  # fmt: skip
    """Each group's row weights on ``device`` for one training (:attr:`TrainConfig.policy_surprise`,
    :attr:`TrainConfig.convert_weight`; their product scaled to a mean of 1 when both are on); None when every
    row counts 1."""
    surprise = surprise_weights(net, groups, config.policy_surprise, device) if config.policy_surprise > 0 else None
    if config.convert_weight == 1:
        return surprise
    convert = [torch.from_numpy(w).to(device) for w in conversion_weights(groups, config.convert_weight,
                                                                          config.convert_plies)]  # fmt: skip
    if surprise is None:
        return convert
    product = [s * c for s, c in zip(surprise, convert, strict=True)]
    mean = torch.cat(product).mean()
    return [p / mean for p in product]


def _check_examples(net: PolicyValueNet, groups: Sequence[Examples], config: TrainConfig) -> None:
    if not groups or sum(map(len, groups)) == 0:
        raise ValueError("train needs at least one example")
    if config.moves_left_weight > 0 and not net.config.moves_left:
        raise ValueError(
            f"TrainConfig.moves_left_weight is {config.moves_left_weight}, but the network has no moves-left head "
            "(NetworkConfig.moves_left)"
        )
    for group in groups:
        planes, policy_planes = group.planes.shape[1], group.policy.shape[1]
        if (planes, policy_planes) != (net.config.in_planes, net.config.policy_planes):
            raise ValueError(
                f"examples have {planes} input and {policy_planes} policy planes, the network "
                f"{net.config.in_planes} and {net.config.policy_planes}"
            )


def train(
    net: PolicyValueNet, examples: Sequence[Examples], config: TrainConfig, generator: torch.Generator
) -> list[EpochLosses]:
    """Fit ``net`` in place to ``examples`` for ``config.epochs`` epochs; return each epoch's mean losses.

    ``examples`` may hold several board sizes, in any number of parts (rows of one size are merged). A new
    SGD optimizer (momentum buffers start at zero) runs on the network's device, in train mode (batch norm
    uses batch statistics and updates its running ones); the network's previous mode is restored at the end.
    ``generator`` is a CPU ``torch.Generator`` and the only source of randomness. No file I/O.
    """
    groups = [group for group in group_by_size(examples) if len(group)]
    _check_examples(net, groups, config)
    data = [_as_batch(group, config) for group in groups]
    symmetries = [_symmetries(group, config) for group in groups]
    device = next(net.parameters()).device
    optimizer = torch.optim.SGD(
        net.parameters(), lr=config.learning_rate, momentum=config.momentum, weight_decay=config.weight_decay
    )
    was_training = net.training
    net.train()
    history = []
    steps = config.epochs * sum(-(-len(g) // config.batch_size) for g in groups)
    step = 0
    weights = row_weights(net, groups, config, device)
    heads = config.moves_left_weight > 0
    try:
        for epoch in range(config.epochs):
            sums = torch.zeros(3, dtype=torch.float64, device=device)
            moves_left_sum = torch.zeros((), dtype=torch.float64, device=device)
            for group, rows in _minibatches([len(g) for g in groups], config.batch_size, generator):
                if config.lr_schedule != "constant":
                    for param_group in optimizer.param_groups:
                        param_group["lr"] = learning_rate_at(step, steps, config)
                step += 1
                batch = _draw(data[group], rows, symmetries[group], generator, device)
                weight = None if weights is None else weights[group][rows.to(device)]
                policy_loss, value_loss, moves_left_loss = _losses(net, batch, weight, moves_left=heads)
                total = policy_loss + config.value_loss_weight * value_loss
                if moves_left_loss is not None:
                    total = total + config.moves_left_weight * moves_left_loss
                    moves_left_sum += moves_left_loss.detach().double() * len(rows)
                optimizer.zero_grad(set_to_none=True)
                total.backward()
                optimizer.step()
                sums += torch.stack([policy_loss, value_loss, total]).detach().double() * len(rows)
            policy, value, total_mean = (sums / sum(map(len, groups))).tolist()
            history.append(EpochLosses(policy=policy, value=value, total=total_mean))
            rows_seen = sum(map(len, groups))
            logger.info("epoch %d/%d: %s%s", epoch + 1, config.epochs, history[-1],
                        f" (moves left {float(moves_left_sum) / rows_seen:.4f})" if heads else "")  # fmt: skip
    finally:
        net.train(was_training)
    return history


@dataclass(frozen=True)
class Trained:
    """A trained copy of a network and the losses of its epochs."""

    net: PolicyValueNet
    losses: list[EpochLosses]


def trained_copy(
    net: PolicyValueNet, examples: Sequence[Examples], config: TrainConfig, seed: np.random.SeedSequence,
    device: str = "cpu", *, hooks: Callable[[PolicyValueNet], list[RemovableHandle]] | None = None,
) -> Trained:  # fmt: skip
    """:func:`train` on a copy of ``net`` (left untouched) on ``device`` (``mmc.nn.DEVICES``) with a generator
    seeded from ``seed`` and ``config.threads`` torch threads (the caller's count is restored after); the copy
    in eval mode, on the CPU. The training step of every loop (an AlphaZero generation, an inner update, an
    adaptation).

    ``hooks(copy)``, when given, registers hooks on the copy before it trains and returns their handles, which
    are removed after (``deepcopy`` drops a tensor's hooks, so they cannot be put on ``net``): MetaFocus's
    masked adaptation zeroes the gradient of the channels it keeps fixed this way."""
    threads = torch.get_num_threads()
    torch.set_num_threads(config.threads)
    try:
        copy = deepcopy(net).to(resolve_device(device))
        handles = hooks(copy) if hooks is not None else []
        try:
            losses = train(copy, examples, config, torch_generator(seed))
        finally:
            for handle in handles:
                handle.remove()
    finally:
        torch.set_num_threads(threads)
    copy.eval()
    return Trained(copy.cpu(), losses)
