"""The policy-value network: one set of weights for every variant and board size (AlphaZero's residual tower).

Input ``float32[B, in_planes, H, W]`` (``mmc.games.chess.observation_planes``, the side to move's view) goes
through a 3x3 stem and ``blocks`` residual blocks, then two heads::

    policy: conv1x1 -> BN -> ReLU -> conv1x1         -> logits  [B, policy_planes, H, W]
            (the first convolution KxK with ``NetworkConfig.policy_kernel`` K; 1 by default, as AlphaZero's)
    value:  conv1x1 -> BN -> ReLU -> mean over H, W -> Linear -> ReLU -> Linear -> tanh -> [B]

and, with ``NetworkConfig.moves_left``, a third head of the value head's shape (Lc0's moves-left head)::

    moves left: conv1x1 -> BN -> ReLU -> mean over H, W -> Linear -> ReLU -> Linear -> softplus * MOVES_LEFT_UNIT
                -> [B], the plies to the game's end (>= 0)

Every head is size-agnostic (the policy head is fully convolutional, the value head pools globally), so
the same weights read 5x5 and 6x6 boards. :func:`policy_logits` picks each action's logit out of the
policy planes with ``ActionSpace.policy_index``, and :func:`masked_log_softmax` / :func:`masked_softmax`
turn logits into distributions over the legal actions only.

Initialisation draws from an explicit ``torch.Generator`` (never torch's global RNG): build with
:func:`build_network` or ``PolicyValueNet(config, seed=...)``.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn.utils.fusion import fuse_conv_bn_eval

from mmc.nn.config import NetworkConfig

__all__ = [
    "MOVES_LEFT_UNIT",
    "PolicyValueNet",
    "build_network",
    "inference_copy",
    "masked_log_softmax",
    "masked_softmax",
    "policy_logits",
]


MOVES_LEFT_UNIT = 10.0
"""Plies per unit of the moves-left head: it outputs ``softplus(x) * MOVES_LEFT_UNIT`` plies, and its training loss
is the Huber loss of its output and the target in these units (``mmc.train``), so that a miss of a few plies counts
about as much as a value miss."""


def _conv_bn(in_channels: int, out_channels: int, kernel_size: int) -> tuple[nn.Conv2d, nn.BatchNorm2d]:
    """A 'same'-padded convolution without bias (the batch norm after it has one) and its batch norm."""
    conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2, bias=False)
    return conv, nn.BatchNorm2d(out_channels)


class ResidualBlock(nn.Module):
    """``relu(x + bn(conv(relu(bn(conv(x))))))`` with 3x3 convolutions; ``[B, C, H, W] -> [B, C, H, W]``."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1, self.bn1 = _conv_bn(channels, channels, 3)
        self.conv2, self.bn2 = _conv_bn(channels, channels, 3)

    def forward(self, x: Tensor) -> Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


class PolicyValueNet(nn.Module):
    """AlphaZero's two-headed residual network, fully convolutional so that one set of weights plays every board.

    ``forward(x)`` maps the input planes ``float32[B, in_planes, H, W]`` to ``(policy, value)``: policy
    logits ``float32[B, policy_planes, H, W]`` in the family's action planes (``Game.action_space``) and
    ``value`` ``float32[B]`` in [-1, 1], the expected result from the side to move's view. :meth:`heads` adds
    the moves-left head's plies to the end (``None`` without the head, ``NetworkConfig.moves_left``).
    """

    def __init__(self, config: NetworkConfig, *, seed: int = 0) -> None:
        super().__init__()
        self.config = config
        # Built on the meta device so that torch's default initialisation draws nothing from the global RNG;
        # reset_parameters then fills every tensor from a generator seeded by ``seed``.
        with torch.device("meta"):
            self.stem_conv, self.stem_bn = _conv_bn(config.in_planes, config.filters, 3)
            self.tower = nn.Sequential(*(ResidualBlock(config.filters) for _ in range(config.blocks)))
            self.policy_conv, self.policy_bn = _conv_bn(config.filters, config.filters, config.policy_kernel)
            self.policy_out = nn.Conv2d(config.filters, config.policy_planes, 1)
            self.value_conv, self.value_bn = _conv_bn(config.filters, config.filters, 1)
            self.value_hidden = nn.Linear(config.filters, config.value_hidden)
            self.value_out = nn.Linear(config.value_hidden, 1)
            if config.moves_left:  # built last: the other heads' initial weights are the same with it or without
                self.moves_left_conv, self.moves_left_bn = _conv_bn(config.filters, config.filters, 1)
                self.moves_left_hidden = nn.Linear(config.filters, config.value_hidden)
                self.moves_left_out = nn.Linear(config.value_hidden, 1)
        self.to_empty(device="cpu")
        self.reset_parameters(torch.Generator().manual_seed(seed))

    @torch.no_grad()
    def reset_parameters(self, generator: torch.Generator) -> None:
        """Fill every parameter and buffer: He-normal convolutions (fan out, as torchvision's ResNet), PyTorch's
        default uniform for linear layers, unit batch norms with the last one of each residual block zeroed
        (each block starts as the identity; Goyal et al. 2017), fresh running statistics."""
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu", generator=generator)
                if module.bias is not None:
                    module.bias.zero_()
            elif isinstance(module, nn.Linear):
                bound = 1.0 / math.sqrt(module.in_features)
                module.weight.uniform_(-bound, bound, generator=generator)
                module.bias.uniform_(-bound, bound, generator=generator)
            elif isinstance(module, nn.BatchNorm2d):
                module.reset_parameters()
            elif any(True for _ in module.parameters(recurse=False)) or any(True for _ in module.buffers(False)):
                raise TypeError(f"reset_parameters does not know how to initialise {type(module).__name__}")
        for block in self.tower:
            assert isinstance(block, ResidualBlock)
            block.bn2.weight.zero_()

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """``float32[B, in_planes, H, W]`` -> (policy logits ``[B, policy_planes, H, W]``, value ``[B]`` in [-1, 1])."""
        policy, value, _ = self._run(x, moves_left=False)
        return policy, value

    def heads(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor | None]:
        """:meth:`forward`'s ``(policy, value)`` and the moves-left head's plies to the end ``float32[B]`` (>= 0;
        ``None`` for a network without the head)."""
        return self._run(x, moves_left=self.config.moves_left)

    def _run(self, x: Tensor, *, moves_left: bool) -> tuple[Tensor, Tensor, Tensor | None]:
        if x.dim() != 4 or x.shape[1] != self.config.in_planes:
            raise ValueError(f"expected input [B, {self.config.in_planes}, H, W], got {list(x.shape)}")
        h = self.tower(torch.relu(self.stem_bn(self.stem_conv(x))))
        policy = self.policy_out(torch.relu(self.policy_bn(self.policy_conv(h))))
        pooled = torch.relu(self.value_bn(self.value_conv(h))).mean(dim=(2, 3))
        value = torch.tanh(self.value_out(torch.relu(self.value_hidden(pooled))))
        if not moves_left:
            return policy, value.squeeze(1), None
        pooled = torch.relu(self.moves_left_bn(self.moves_left_conv(h))).mean(dim=(2, 3))
        plies = nn.functional.softplus(self.moves_left_out(torch.relu(self.moves_left_hidden(pooled))))
        return policy, value.squeeze(1), plies.squeeze(1) * MOVES_LEFT_UNIT


def build_network(config: NetworkConfig, seed: int = 0, device: torch.device | str = "cpu") -> PolicyValueNet:
    """A freshly initialised network on ``device``; the same ``(config, seed)`` always gives the same weights."""
    return PolicyValueNet(config, seed=seed).to(device)


def inference_copy(net: PolicyValueNet) -> PolicyValueNet:
    """A snapshot of ``net`` for fast inference: eval mode, every batch norm folded into the convolution before
    it, weights in channels-last memory format (feed it ``x.contiguous(memory_format=torch.channels_last)``).

    Same outputs as ``net.eval()`` up to float rounding; about 1.1-1.3x faster on a CPU. Not for training.
    """
    snapshot = copy.deepcopy(net).eval()

    def fold(owner: nn.Module, conv: str, bn: str) -> None:
        setattr(owner, conv, fuse_conv_bn_eval(getattr(owner, conv), getattr(owner, bn)))
        setattr(owner, bn, nn.Identity())

    heads = ["policy", "value", "moves_left"] if net.config.moves_left else ["policy", "value"]
    for owner, conv, bn in [(snapshot, "stem_conv", "stem_bn")] + [(snapshot, f"{h}_conv", f"{h}_bn") for h in heads]:
        fold(owner, conv, bn)
    for block in snapshot.tower:
        fold(block, "conv1", "bn1")
        fold(block, "conv2", "bn2")
    return snapshot.to(memory_format=torch.channels_last)  # type: ignore[call-overload]


def policy_logits(planes_out: Tensor, policy_index: Tensor | np.ndarray) -> Tensor:
    """Each action's logit: ``[B, P, H, W]`` policy planes and ``int64[A]`` indices into the flattened
    ``[P * H * W]`` planes (``ActionSpace.policy_index``) -> ``[B, A]``."""
    index = torch.as_tensor(policy_index, dtype=torch.long, device=planes_out.device)
    return planes_out.flatten(1).index_select(1, index)


def masked_log_softmax(logits: Tensor, mask: Tensor) -> Tensor:
    """Log-probabilities over the legal actions: ``[..., A]`` logits and ``bool[..., A]`` mask -> ``[..., A]``.

    Illegal actions get the dtype's most negative finite value instead of ``-inf``, so that their
    probability is exactly 0 and a cross-entropy ``-(target * log_p).sum()`` with zero targets there stays
    finite. A row with no legal action is that value everywhere: probability 0 throughout, never NaN, and
    zero gradient.
    """
    very_negative = torch.finfo(logits.dtype).min
    log_p = torch.log_softmax(logits.masked_fill(~mask, very_negative), dim=-1)
    return log_p.masked_fill(~mask, very_negative)


def masked_softmax(logits: Tensor, mask: Tensor) -> Tensor:
    """Probabilities over the legal actions of each row (``[..., A]``): 0 on illegal actions, summing to 1 over
    legal ones; a row with no legal action is all zeros (never NaN)."""
    very_negative = torch.finfo(logits.dtype).min
    return torch.softmax(logits.masked_fill(~mask, very_negative), dim=-1).masked_fill(~mask, 0.0)
