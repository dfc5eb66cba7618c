"""The policy-value network: one set of weights for every variant, its checkpoints and its batched evaluator.

>>> from mmc.games.chess import initial_state
>>> from mmc.nn import NetworkConfig, NetworkEvaluator, build_network
>>> evaluator = NetworkEvaluator(build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0))
>>> priors, values = evaluator([initial_state("gardner"), initial_state("los_alamos")])
"""

from mmc.nn.checkpoint import CheckpointError, config_path, load_checkpoint, load_config, save_checkpoint
from mmc.nn.config import NetworkConfig
from mmc.nn.device import DEVICES, DeviceError, on_device, resolve_device
from mmc.nn.evaluate import NetworkEvaluator
from mmc.nn.network import (
    MOVES_LEFT_UNIT,
    PolicyValueNet,
    build_network,
    inference_copy,
    masked_log_softmax,
    masked_softmax,
    policy_logits,
)

__all__ = [
    "DEVICES",
    "MOVES_LEFT_UNIT",
    "CheckpointError",
    "DeviceError",
    "NetworkConfig",
    "NetworkEvaluator",
    "PolicyValueNet",
    "build_network",
    "config_path",
    "inference_copy",
    "load_checkpoint",
    "load_config",
    "masked_log_softmax",
    "masked_softmax",
    "on_device",
    "policy_logits",
    "resolve_device",
    "save_checkpoint",
]
