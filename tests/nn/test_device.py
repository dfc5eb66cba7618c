"""Device names: ``cpu`` always, ``auto`` where torch looks, ``cuda`` only where torch sees one, and a one-line
error for anything else; a network is copied to a device only when it is not there already."""

from __future__ import annotations

import pytest
import torch

from mmc.nn import DEVICES, DeviceError, NetworkConfig, build_network, on_device, resolve_device

CUDA = torch.cuda.is_available()


def test_cpu_and_auto_resolve_here() -> None:
    assert DEVICES == ("auto", "cpu", "cuda")
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("auto").type == ("cuda" if CUDA else "cpu")


@pytest.mark.parametrize("name", ["gpu", "CPU", "cuda:0", ""])
def test_an_unknown_name_is_one_line_naming_it(name: str) -> None:
    with pytest.raises(DeviceError) as caught:
        resolve_device(name)
    assert str(caught.value) == f"device must be one of auto, cpu, cuda, got {name!r}"
    assert caught.value.problem == f"must be one of auto, cpu, cuda, got {name!r}"
    assert isinstance(caught.value, ValueError)


@pytest.mark.skipif(CUDA, reason="torch sees a CUDA device here")
def test_cuda_without_a_cuda_device_says_so_and_what_to_use() -> None:
    with pytest.raises(DeviceError, match=r"^device cuda, but torch sees no CUDA device \(use auto or cpu\)$"):
        resolve_device("cuda")


@pytest.mark.skipif(not CUDA, reason="torch sees no CUDA device here")
def test_cuda_resolves_where_torch_sees_one() -> None:
    assert resolve_device("cuda").type == resolve_device("auto").type == "cuda"


def test_a_network_already_there_is_not_copied() -> None:
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    assert on_device(net, resolve_device("cpu")) is net


@pytest.mark.skipif(not CUDA, reason="torch sees no CUDA device here")
def test_a_network_elsewhere_is_copied_and_left_alone() -> None:
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    moved = on_device(net, resolve_device("cuda"))
    assert moved is not net and next(moved.parameters()).is_cuda and not next(net.parameters()).is_cuda
    assert on_device(moved, resolve_device("cuda")) is moved
    pairs = zip(net.state_dict().values(), moved.state_dict().values(), strict=True)
    assert all(torch.equal(a, b.cpu()) for a, b in pairs)
