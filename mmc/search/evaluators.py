"""Leaf evaluators: the one batched protocol that search calls, for a network and for random rollouts.

``evaluator(batch) -> (logits, values)`` with ``batch`` a :class:`LeafBatch` of ``n`` positions of one
variant; ``logits`` is ``float32[n, P * H * W]`` over the flattened policy planes of the variant's game family
(``Game.num_policy_planes``; search takes the softmax over each position's legal moves), ``values`` is
``float32[n]`` in [-1, 1] from the player to move. An evaluator with a moves-left estimate returns it third,
``(logits, values, plies)`` with ``plies`` ``float32[n]`` >= 0, the plies to the game's end (a network with
``NetworkConfig.moves_left``; ``SearchConfig.moves_left_slope`` needs it).
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

import numpy as np
import torch

from mmc.games import get_game
from mmc.nn.network import PolicyValueNet, inference_copy
from mmc.search import _simulate
from mmc.search.config import PRECISIONS

__all__ = ["BF16_TOLERANCE", "LeafBatch", "LeafEvaluator", "NetworkLeafEvaluator", "RolloutEvaluator"]

BF16_TOLERANCE = 0.02
"""The largest difference between a bfloat16 and a float32 evaluation of the same network and position, in a
prior (the softmax of the logits over the legal moves) or a value (tests/search/test_evaluators.py checks it
on the study's network shapes)."""


class LeafBatch(NamedTuple):
    """Positions waiting for evaluation, all of one variant."""

    variant: str
    planes: np.ndarray
    """``float32[n, C, H, W]``: each player to move's observation planes (``Game.observation_planes``)."""
    boards: np.ndarray
    """``int8[n, BOARD_LEN]``: the kernels' position arrays (``Game.kernels``), for evaluators that play (rollouts);
    a network must read only ``planes``."""
    sides: np.ndarray
    """``int8[n]``: the player to move, +1 (first) or -1."""


class LeafEvaluator(Protocol):
    """What search calls on the leaves of a step: ``evaluator(batch) -> (logits, values)`` or ``(logits, values,
    plies)``, as in the module docstring. Not :data:`mmc.play.players.PositionEvaluator`, which takes states and
    returns priors."""

    def __call__(self, batch: LeafBatch) -> tuple[np.ndarray, ...]: ...


class NetworkLeafEvaluator:
    """A :class:`PolicyValueNet` as a leaf evaluator: one forward pass per batch, eval mode, no gradients.

    With ``freeze=True`` (the default) it evaluates :func:`mmc.nn.inference_copy`, a snapshot of the network
    taken at construction (batch norm folded, channels-last: faster on a CPU); build a new evaluator after
    the weights change. ``freeze=False`` runs the live module. ``precision="bf16"`` evaluates the snapshot in
    bfloat16 (weights and activations; the outputs come back as float32): on a CPU with AVX-512 BF16 about
    twice the positions per second of float32, the outputs within :data:`BF16_TOLERANCE` of float32's. A network
    with the moves-left head (``NetworkConfig.moves_left``) returns its plies to the end third.
    """

    def __init__(self, net: PolicyValueNet, *, freeze: bool = True, precision: str = "fp32") -> None:
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
        if precision != "fp32" and not freeze:
            raise ValueError(f"precision {precision!r} needs freeze=True (it evaluates a converted snapshot)")
        self.net = net
        self.device = next(net.parameters()).device
        self.dtype = torch.bfloat16 if precision == "bf16" else torch.float32
        self.module = inference_copy(net).to(self.dtype) if freeze else net
        self.memory_format = torch.channels_last if freeze else torch.contiguous_format
        self.positions = 0
        """Positions evaluated so far (for throughput measurements)."""

    def __call__(self, batch: LeafBatch) -> tuple[np.ndarray, ...]:
        self.net.config.check_plays(batch.variant)
        x = torch.from_numpy(batch.planes).to(self.device, self.dtype).contiguous(memory_format=self.memory_format)
        if self.module is self.net:  # the live network: evaluate in eval mode, then restore its mode
            was_training = self.net.training
            self.net.eval()
            try:
                outputs = self._forward(x)
            finally:
                self.net.train(was_training)
        else:
            outputs = self._forward(x)
        self.positions += len(batch.planes)
        return outputs

    def _forward(self, x: torch.Tensor) -> tuple[np.ndarray, ...]:
        with torch.inference_mode():
            policy, value, plies = self.module.heads(x)
            outputs = (policy.flatten(1).float().cpu().numpy(), value.float().cpu().numpy())
            return outputs if plies is None else (*outputs, plies.float().cpu().numpy())


class RolloutEvaluator:
    """Pure MCTS: uniform priors and the result of one uniformly random playout per leaf (no network).

    Playouts are capped at ``max_plies`` plies (then a draw). Seeds come from ``rng``, so a seeded
    evaluator repeats its values.
    """

    def __init__(self, rng: np.random.Generator, max_plies: int = 150) -> None:
        self.rng = rng
        self.max_plies = max_plies

    def __call__(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        n, _, h, w = batch.planes.shape
        game = get_game(batch.variant)
        seeds = self.rng.integers(0, 2**63, size=n, dtype=np.int64).astype(np.uint64)
        rollout = _simulate.compiled_tree(game).rollout_values
        values = rollout(batch.boards, batch.sides, game.table(batch.variant), self.max_plies, seeds)
        return np.zeros((n, game.num_policy_planes * h * w), dtype=np.float32), values
