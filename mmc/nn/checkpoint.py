"""Checkpoints: the network's ``state_dict`` in ``<name>.pt`` and its config as JSON in ``<name>.json`` beside it.

A checkpoint is named by its weights file, say ``models/gen_003.pt``; the config lands in
``models/gen_003.json`` (``NetworkConfig.to_dict()``, readable without torch). Each file is written
atomically: to a temporary file in the same directory, flushed to disk, then renamed over the target, so
a reader never sees half a file. The config is written first, so a crash between the two renames leaves
new config beside old weights at worst, which :func:`load_checkpoint` reports (shape mismatch) instead
of loading silently. The weights are loaded with ``torch.load(weights_only=True)``: no pickled code runs.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import torch

from mmc.core.atomic import atomic_write
from mmc.nn.config import NetworkConfig
from mmc.nn.network import PolicyValueNet

__all__ = ["CheckpointError", "config_path", "load_checkpoint", "load_config", "save_checkpoint"]

logger = logging.getLogger(__name__)


class CheckpointError(ValueError):
    """A checkpoint file that exists but cannot be read as one (corrupt, truncated or mismatched)."""


def config_path(path: str | os.PathLike[str]) -> Path:
    """The config JSON beside the weights file ``path``: ``x/model.pt`` -> ``x/model.json``."""
    return Path(path).with_suffix(".json")


def _weights_path(path: str | os.PathLike[str]) -> Path:
    weights = Path(path)
    if weights.suffix != ".pt":
        raise ValueError(f"a checkpoint is named by its weights file ending in .pt, got {str(path)!r}")
    return weights


def save_checkpoint(net: PolicyValueNet, config: NetworkConfig, path: str | os.PathLike[str]) -> Path:
    """Save ``net`` as ``path`` (weights, must end in ``.pt``) plus ``config_path(path)`` (JSON); return ``path``.

    ``config`` must be the network's own (``net.config``): it is what :func:`load_checkpoint` rebuilds the
    network from. Parent directories are created; existing files are replaced atomically.
    """
    weights = _weights_path(path)
    if config != net.config:
        raise ValueError(f"config {config} is not the network's own config {net.config}")
    weights.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(config.to_dict(), indent=2) + "\n"
    atomic_write(config_path(weights), lambda file: file.write(text.encode()))
    state = {name: tensor.detach().cpu() for name, tensor in net.state_dict().items()}
    atomic_write(weights, lambda file: torch.save(state, file))
    logger.info("saved checkpoint %s (%s)", weights, config)
    return weights


def load_config(path: str | os.PathLike[str]) -> NetworkConfig:
    """The config of the checkpoint ``path`` (its weights file); errors name the JSON file."""
    json_file = config_path(_weights_path(path))
    if not json_file.is_file():
        raise FileNotFoundError(f"checkpoint config {json_file} not found")
    try:
        return NetworkConfig.from_dict(json.loads(json_file.read_text()))
    except (ValueError, TypeError, UnicodeDecodeError) as error:
        raise CheckpointError(f"checkpoint config {json_file} is not a valid NetworkConfig: {error}") from error


def load_checkpoint(
    path: str | os.PathLike[str], device: torch.device | str = "cpu"
) -> tuple[PolicyValueNet, NetworkConfig]:
    """The network saved as ``path`` (its ``.pt`` file), on ``device`` and in eval mode, and its config.

    ``FileNotFoundError`` or :class:`CheckpointError` name the file that is missing or unreadable.
    """
    weights = _weights_path(path)
    config = load_config(weights)
    if not weights.is_file():
        raise FileNotFoundError(f"checkpoint weights {weights} not found")
    try:
        state = torch.load(weights, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises several types (RuntimeError, UnpicklingError, EOFError, ...)
        raise CheckpointError(f"checkpoint weights {weights} cannot be read: {error}") from error
    net = PolicyValueNet(config)
    try:
        net.load_state_dict(state)
    except (RuntimeError, TypeError, AttributeError) as error:
        mismatch = f"checkpoint weights {weights} do not match config {config_path(weights)}: {error}"
        raise CheckpointError(mismatch) from error
    net.eval()
    return net.to(device), config
