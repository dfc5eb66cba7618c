"""The network as a batched evaluator: states in, priors over their legal moves and values out.

This is the protocol that policy players call (:data:`mmc.play.players.PositionEvaluator`):
``evaluator(states) -> (priors, values)`` where ``priors[i]`` is ``float32[len(legal_moves(states[i]))]`` in
the order of ``legal_moves`` and ``values`` is ``float32[len(states)]`` in [-1, 1] from the side to move's
view. States of any variants of the network's game family may be mixed; each board size is one forward pass. Search
calls another protocol on its leaves, :class:`mmc.search.LeafEvaluator`, which :class:`mmc.search.NetworkLeafEvaluator`
implements.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from mmc.games import game_of, get_family, get_variant, outcome
from mmc.nn.network import PolicyValueNet

__all__ = ["NetworkEvaluator"]

_NO_MOVES = np.zeros(0, dtype=np.float32)
_NO_MOVES.flags.writeable = False


def _terminal_value(state: Any) -> float | None:
    """The finished game's result from the side to move's view (+1 win, 0 draw, -1 loss), ``None`` if not over."""
    result = outcome(state)
    if result is None:
        return None
    if result.winner is None:
        return 0.0
    return 1.0 if result.winner == state.turn else -1.0


def _legal_softmax(logits: np.ndarray, states: Sequence[Any]) -> list[np.ndarray]:
    """Softmax of each state's legal-move logits: ``float32[n, P * H * W]`` flattened policy planes -> ``n``
    arrays in ``legal_moves`` order. One gather and segment-wise reductions instead of a loop of softmaxes."""
    stride = logits.shape[1]
    index = []
    for row, state in enumerate(states):
        space = game_of(state).action_space(state.variant_name)
        index.append(space.policy_index[space.legal_actions(state)] + row * stride)
    counts = np.fromiter(map(len, index), dtype=np.int64, count=len(index))
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    gathered = logits.ravel()[np.concatenate(index)]
    gathered -= np.repeat(np.maximum.reduceat(gathered, starts), counts)
    np.exp(gathered, out=gathered)
    gathered /= np.repeat(np.add.reduceat(gathered, starts), counts)
    return np.split(gathered, starts[1:])


class NetworkEvaluator:
    """Evaluate batches of states with a :class:`PolicyValueNet` (on whatever device its weights are).

    ``evaluator(states)`` returns ``(priors, values)``: ``priors[i]``, ``float32[len(legal_moves(states[i]))]``,
    is the network's policy restricted to the legal moves (softmax over them only) in ``legal_moves`` order;
    ``values[i]`` in [-1, 1] is the network's value from the side to move's view. A state whose game is over
    (``outcome(state) is not None``, including draws that leave legal moves) gets empty priors and its exact
    result (+1, 0 or -1 for the side to move) without going through the network.

    Each board size is one forward pass in eval mode under ``torch.inference_mode``; the network's train/eval
    mode is restored afterwards. The input planes are written into a reusable buffer, so one evaluator must
    not be called from two threads at once.
    """

    def __init__(self, net: PolicyValueNet) -> None:
        config = net.config
        game = get_family(config.game)
        if (config.in_planes, config.policy_planes) != (game.num_planes, game.num_policy_planes):
            raise ValueError(
                f"the evaluator needs in_planes={game.num_planes} and policy_planes={game.num_policy_planes} (the "
                f"{game.name} family's layouts), got in_planes={config.in_planes} and "
                f"policy_planes={config.policy_planes}"
            )
        self.net = net
        self._buffers: dict[tuple[int, int], np.ndarray] = {}

    def __call__(self, states: Sequence[Any]) -> tuple[list[np.ndarray], np.ndarray]:
        """``(priors, values)`` of ``states``: see the class docstring."""
        priors: list[np.ndarray] = [_NO_MOVES] * len(states)
        values = np.zeros(len(states), dtype=np.float32)
        rows_by_shape: dict[tuple[int, int], list[int]] = {}
        for i, state in enumerate(states):
            self.net.config.check_plays(state.variant_name)
            value = _terminal_value(state)
            if value is None:
                variant = get_variant(state.variant_name)
                rows_by_shape.setdefault((variant.height, variant.width), []).append(i)
            else:
                values[i] = value
        was_training = self.net.training
        self.net.eval()
        try:
            for shape, rows in rows_by_shape.items():
                group = [states[i] for i in rows]
                group_priors, values[rows] = self._evaluate(group, shape)
                for i, prior in zip(rows, group_priors, strict=True):
                    priors[i] = prior
        finally:
            self.net.train(was_training)
        return priors, values

    def _evaluate(self, states: list[Any], shape: tuple[int, int]) -> tuple[list[np.ndarray], np.ndarray]:
        """One forward pass over states of one board size -> (priors, ``float32[n]`` values)."""
        planes = self._planes(states, shape)
        device = next(self.net.parameters()).device
        with torch.inference_mode():
            policy, value = self.net(torch.from_numpy(planes).to(device))
            logits = policy.flatten(1).float().cpu().numpy()
            values = value.float().cpu().numpy()
        return _legal_softmax(logits, states), values

    def _planes(self, states: list[Any], shape: tuple[int, int]) -> np.ndarray:
        """``float32[n, C, H, W]``: the states' input planes, in this shape's reusable buffer."""
        buffer = self._buffers.get(shape)
        if buffer is None or len(buffer) < len(states):
            buffer = self._buffers[shape] = np.empty((len(states), self.net.config.in_planes, *shape), dtype=np.float32)
        for row, state in enumerate(states):
            game_of(state).observation_planes(state, out=buffer[row])
        return buffer[: len(states)]
