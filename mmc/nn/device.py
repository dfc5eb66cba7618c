"""Where networks run: a device name of the study (``params.yaml`` key ``device``, the CLI's ``--device``).

``cpu`` is the default and the tested path; ``cuda`` asks for the first CUDA device; ``auto`` is ``cuda`` when
torch sees one, else ``cpu``. The loops pass the name to their jobs, and each job moves a copy of its network
there when it starts (:func:`on_device`) and hands back CPU networks and arrays, so results pickle, save and
fingerprint the same wherever they were computed. A GPU's results are not bit-identical to the CPU's.
"""

from __future__ import annotations

import copy

import torch

from mmc.nn.network import PolicyValueNet

__all__ = ["DEVICES", "DeviceError", "on_device", "resolve_device"]

DEVICES = ("auto", "cpu", "cuda")
"""The device names: ``auto`` (cuda when torch sees one, else cpu), ``cpu``, ``cuda``."""


class DeviceError(ValueError):
    """A device name that cannot be used here. ``str()`` is ``"device cuda, but torch sees no CUDA device (use auto
    or cpu)"``; ``problem`` is the part after ``device``, so that a caller can name the setting its own way
    (``params.yaml: device: cuda, but ...``, ``--device cuda, but ...``)."""

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(f"device {problem}")


def resolve_device(name: str) -> torch.device:
    """The torch device of ``name`` (one of :data:`DEVICES`); :class:`DeviceError` for another name, or for
    ``cuda`` where torch sees no CUDA device."""
    if name not in DEVICES:
        raise DeviceError(f"must be one of {', '.join(DEVICES)}, got {name!r}")
    if name == "cpu":
        return torch.device("cpu")
    if torch.cuda.is_available():
        return torch.device("cuda")
    if name == "cuda":
        raise DeviceError("cuda, but torch sees no CUDA device (use auto or cpu)")
    return torch.device("cpu")


def on_device(net: PolicyValueNet, device: torch.device) -> PolicyValueNet:
    """``net`` itself when its weights are on ``device`` already, else a copy there (``net`` is left untouched)."""
    here = next(net.parameters()).device
    if here.type == device.type and device.index in (None, here.index):  # "cuda" (no index): any CUDA device
        return net
    return copy.deepcopy(net).to(device)
