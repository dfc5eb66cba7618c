"""Stage modules import no other stage module: what two stages share lives in ``mmc`` or in a non-stage module of
``pipelines`` (``paths``, ``starts``, ``records``, ...)."""

from __future__ import annotations

import ast
from pathlib import Path

import pipelines

STAGES = {"expert", "learn", "adapt", "evaluate", "study_report"}
"""The modules that declare a DVC stage's flow."""


def test_no_stage_module_imports_another() -> None:
    folder = Path(pipelines.__file__).parent
    offenders = []
    for stage in sorted(STAGES):
        for node in ast.walk(ast.parse((folder / f"{stage}.py").read_text())):
            modules = []
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            offenders += [f"{stage}: {m}" for m in modules if m.startswith("pipelines.") and m.split(".")[1] in STAGES]
    assert offenders == []
