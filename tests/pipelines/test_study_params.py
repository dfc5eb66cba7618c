"""The study driver's summary reads the parameters the stages ran with (``pipelines.study.params_after``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from pipelines.config import load_params
from pipelines.paths import Paths
from pipelines.study import params_after

from .conftest import TINY_PARAMS


def test_a_dvc_exp_run_set_param_reaches_the_summary(tmp_path: Path) -> None:
    """``dvc exp run -S adapt.targets=[...]`` rewrites params.yaml before its stages run: the driver, which loaded
    the file before DVC started, reads it again and names the keys that changed."""
    shutil.copy(TINY_PARAMS, tmp_path / "params.yaml")
    paths = Paths(tmp_path)
    before = load_params(paths.params)
    assert params_after(paths, before) == (before, {})
    data = yaml.safe_load(paths.params.read_text())
    targets = [*data["adapt"]["targets"], "chess"]
    data["adapt"]["targets"] = targets
    paths.params.write_text(yaml.safe_dump(data))
    after, changed = params_after(paths, before)
    assert after.targets == targets and before.targets != after.targets
    assert changed == {"adapt.targets": targets}


def test_an_unreadable_params_file_keeps_the_loaded_study(tmp_path: Path) -> None:
    shutil.copy(TINY_PARAMS, tmp_path / "params.yaml")
    paths = Paths(tmp_path)
    before = load_params(paths.params)
    paths.params.write_text("adapt: [")
    assert params_after(paths, before) == (before, {})
